// A damaged mail.db (issue #9 item 15) stops the hub with RECOVERY_REQUIRED, names the file, sets a
// copy aside for recovery and says where; the original is left as it was.
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Hub } from '../../../src/hub/hub.js';
import { SwbError } from '../../../src/protocol/error-codes.js';
import { runCleanups } from '../../helpers/cleanup.js';
import { runSwb } from '../../helpers/run-swb.js';
import { createTempHome } from '../../helpers/temp-home.js';
import { connectClient, startTestHub } from '../../helpers/hub-harness.js';

afterEach(runCleanups);

describe('a damaged store', () => {
  it('is refused at start with RECOVERY_REQUIRED, naming the file and the copy set aside', async () => {
    const { hub, paths, home } = await startTestHub();
    const { client } = await connectClient(paths, { session: 'alice' });
    await client.request('mail.send', { to: ['alice'], text: 'before the damage' });
    client.close();
    await hub.stop();
    // Overwrite the middle of the file (its pages), keeping the header: SQLite opens it, then finds garbage.
    const bytes = readFileSync(paths.dbFile);
    for (let i = 4096; i < bytes.length; i++) bytes[i] = (i * 7919) & 0xff;
    writeFileSync(paths.dbFile, bytes);
    const damaged = Buffer.from(bytes);

    const err = await Hub.start({ paths }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(SwbError);
    expect(err).toMatchObject({ code: 'RECOVERY_REQUIRED', message: expect.stringContaining(paths.dbFile) });
    const copy = (err as SwbError).details?.copy as string;
    expect(copy).toMatch(/mail\.db\.damaged-/);
    expect(readFileSync(copy)).toEqual(damaged);
    expect(readFileSync(paths.dbFile)).toEqual(damaged);

    // The CLI that tries to start a hub there says the same, not "no hub".
    const r = await runSwb(['hub'], { home });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^swb hub: RECOVERY_REQUIRED: mail\.db could not be opened: .*is damaged.*A copy was set aside at /);
    expect(readdirSync(dirname(paths.dbFile)).filter((f) => f.includes('.damaged-')).length).toBeGreaterThanOrEqual(1);
  });

  it('a file that is not a database at all is refused the same way', async () => {
    const home = createTempHome();
    const { paths } = home;
    await (await Hub.start({ paths })).stop();
    writeFileSync(paths.dbFile, 'this is not an SQLite database, just text that is long enough to look like a header '.repeat(64));
    await expect(Hub.start({ paths })).rejects.toMatchObject({ code: 'RECOVERY_REQUIRED' });
    expect(existsSync(paths.dbFile)).toBe(true);
  });
});
