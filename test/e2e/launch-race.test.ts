// Two `swb` started at the same moment in one workspace, no server running: each launches a server,
// the workspace lock lets one win, and the other's client joins the winner. The losing server asks
// the winner's hub to step down (it may be a stale one) while that hub is still starting and cannot
// answer: it must ask again on its next try, not wait out the 15 s handover while its client shows
// a blank screen (src/server/take-workspace-lock.ts).
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, test } from 'vitest';
import { runCleanups } from '../helpers/cleanup.js';
import { processFamily } from '../helpers/process-descendants.js';
import { isProcessAlive } from '../helpers/processes.js';
import { runSwb } from '../helpers/run-swb.js';
import { ls } from '../helpers/swb-ls.js';
import { createTempHome } from '../helpers/temp-home.js';
import { startSwb } from '../helpers/terminal-harness.js';
import { waitUntil } from '../helpers/wait-until.js';

afterEach(runCleanups);

/** The `swb server` processes among these clients' descendants. */
function servers(...clientPids: number[]): number[] {
  return clientPids.flatMap((pid) => processFamily(pid)).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes('server');
    } catch {
      return false;
    }
  });
}

describe('two clients launching at once', () => {
  test('end up on one server, each drawing its row within seconds (not after the 15 s hub handover)', async () => {
    const home = createTempHome();
    const started = Date.now();
    const a = startSwb({ home, args: ['one=printf "ONE-UP\\n"; exec sleep 600'], cols: 120, rows: 30 });
    const b = startSwb({ home, args: ['two=printf "TWO-UP\\n"; exec sleep 600'], cols: 120, rows: 30 });
    const launched = servers(a.pid, b.pid);
    await a.waitForText('ONE-UP', { timeoutMs: 20_000 });
    await b.waitForText('TWO-UP', { timeoutMs: 20_000 });
    expect(Date.now() - started).toBeLessThan(12_000);
    const listing = await ls(home);
    expect(listing.rows.map((r) => r.name).sort()).toEqual(['one', 'two']);
    // The loser's server found the workspace taken and ended: one server runs.
    await waitUntil(() => [...launched, ...servers(a.pid, b.pid)].filter((pid) => isProcessAlive(pid)).length <= 1, { what: 'one server to remain' });
    await runSwb(['kill-server', '--force'], { home });
    await a.waitForExit();
    await b.waitForExit();
  }, 60_000);
});
