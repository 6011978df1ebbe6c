// Every request has a deadline (issue #9 item 7): against a hub that accepts connections but never
// answers (SIGSTOP), `swb send` fails with TIMEOUT in about its --timeout, instead of waiting forever.
import { existsSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { runCleanups } from '../../helpers/cleanup.js';
import { runSwb, spawnSwb } from '../../helpers/run-swb.js';
import { createTempHome } from '../../helpers/temp-home.js';
import { waitUntil } from '../../helpers/wait-until.js';

afterEach(runCleanups);

describe('request deadlines', () => {
  it('swb send against a stopped hub fails with TIMEOUT after --timeout, naming the hub', async () => {
    const home = createTempHome();
    const hub = spawnSwb(['hub'], { home });
    await waitUntil(() => existsSync(home.paths.socketPath) && hub.stderr().includes('listening'), { what: 'the hub to listen' });
    expect((await runSwb(['send', '--as', 'a', '@a', 'warm-up'], { home })).status).toBe(0);
    process.kill(hub.pid, 'SIGSTOP');
    try {
      const started = Date.now();
      const r = await runSwb(['send', '--as', 'a', '--timeout', '1', '@a', 'are you there?'], { home, timeoutMs: 10_000 });
      const took = Date.now() - started;
      expect(r.status).toBe(1);
      expect(r.stderr).toMatch(/^swb send: TIMEOUT: The hub at .*hub\.sock did not answer (hello|mail\.send) within 1\.0 s/);
      expect(took).toBeLessThan(5000);
    } finally {
      process.kill(hub.pid, 'SIGCONT');
    }
  });

  it('--timeout must be a positive number of seconds (usage error, exit 2)', async () => {
    const home = createTempHome();
    const r = await runSwb(['send', '--timeout', '0', '@a', 'x'], { home });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('--timeout must be a number of seconds above 0');
  });
});
