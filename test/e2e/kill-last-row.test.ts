// `swb kill ROW` of the server's last row, with no client attached (issue #34.3): closing it leaves the
// server nothing to do, so it stops, and the kill must still be told as the success it was (exit 0,
// its usual line), not as the hub's connection closing under it.
import { afterEach, describe, expect, test } from 'vitest';
import { runCleanups } from '../helpers/cleanup.js';
import { isLive } from '../helpers/process-descendants.js';
import { ls } from '../helpers/swb-ls.js';
import { runSwb } from '../helpers/run-swb.js';
import { createTempHome } from '../helpers/temp-home.js';
import { startSwb } from '../helpers/terminal-harness.js';
import { waitUntil } from '../helpers/wait-until.js';

afterEach(runCleanups);

describe('swb kill of the last row', () => {
  test('exits 0 with its normal output though the server stops behind it', async () => {
    const home = createTempHome();
    const t = startSwb({ home, args: ['only=echo ONLY-UP; exec sleep 600'] });
    await t.waitForText('ONLY-UP');
    await t.waitForText(/enter attach/);
    // Detach: the row runs on in the server, nobody attached.
    t.write('d');
    expect(await t.waitForExit()).toEqual({ exitCode: 0, signal: 0 });
    const row = (await ls(home)).rows.find((r) => r.name === 'only')!;
    expect(row).toMatchObject({ running: true });

    const killed = await runSwb(['kill', 'only'], { home });
    expect(killed.stderr).toBe('');
    expect(killed.stdout).toBe('closed row only\n');
    expect(killed.status).toBe(0);
    await waitUntil(() => !isLive(row.pid!), { what: 'the row\u2019s program to end' });
    // The server had nothing left to do and stopped.
    const after = await runSwb(['ls'], { home });
    expect(after.status).not.toBe(0);
  });
});
