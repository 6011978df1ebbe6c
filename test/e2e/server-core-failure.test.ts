// The server says it is ready as soon as it listens for clients, and builds its core (mail.db, the
// hub, the rows) while the launching client connects (src/server/client-listener.ts). A core that
// then fails cannot be reported on the ready line any more: the client that came hears it in its
// BYE, prints it and exits non-zero, and the server ends (no process left holding the workspace).
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { runCleanups } from '../helpers/cleanup.js';
import { isProcessAlive } from '../helpers/processes.js';
import { runSwb } from '../helpers/run-swb.js';
import { traceMark } from '../helpers/start-trace-file.js';
import { createTempHome } from '../helpers/temp-home.js';
import { startSwb } from '../helpers/terminal-harness.js';
import { waitUntil } from '../helpers/wait-until.js';

afterEach(runCleanups);

describe('a server whose core fails after it said ready', () => {
  test('a mail.db that is not SQLite: the client prints why and exits 1, and the server exits', async () => {
    const home = createTempHome();
    mkdirSync(dirname(home.paths.dbFile), { recursive: true, mode: 0o700 });
    writeFileSync(home.paths.dbFile, 'this is no SQLite database, and it is long enough to have a header\n'.repeat(100), { mode: 0o600 });
    const trace = join(home.home, 'start-trace');
    const t = startSwb({ home, args: ['one=echo NEVER-STARTED; exec sleep 600'], env: { SWB_START_TRACE: trace } });
    const exit = await t.waitForExit({ timeoutMs: 20_000 });
    expect(exit.exitCode).toBe(1);
    const said = t.screenText().join('\n');
    expect(said).toMatch(/swb: [A-Z_]+: .*mail\.db/);
    expect(said).not.toContain('NEVER-STARTED');
    // The ready line said ok: the failure came after it, in the BYE.
    const listening = traceMark(trace, 'listening');
    expect(listening).toBeDefined();
    expect(traceMark(trace, 'server core started')).toBeUndefined();
    await waitUntil(() => !isProcessAlive(listening!.pid), { what: 'the server to exit', timeoutMs: 10_000 });
    // Nothing holds the workspace: a mail command starts its own hub, which meets the same store.
    const after = await runSwb(['ls'], { home });
    expect(after.status).not.toBe(0);
    expect(after.stderr).toMatch(/NO_SERVER/);
  }, 60_000);
});
