// `swb hub` stops cleanly on a signal sent the moment it says it listens: it catches SIGINT, SIGTERM
// and SIGHUP before it writes the line that names its pid. Before, a SIGTERM read off that line could
// find node's default action and kill the hub with nothing closed (seen: a trust test's hub never
// logged "hub stopped"; here, 22 of 40 starts killed so).
import { afterEach, describe, expect, it } from 'vitest';
import { runCleanups } from '../../helpers/cleanup.js';
import { spawnSwb } from '../../helpers/run-swb.js';
import { createTempHome } from '../../helpers/temp-home.js';

afterEach(runCleanups);

describe('swb hub and signals', () => {
  it('a SIGTERM sent as soon as the hub says it listens stops it cleanly, every time', async () => {
    for (let i = 0; i < 10; i++) {
      const home = createTempHome();
      const hub = spawnSwb(['hub'], { home });
      let sent = false;
      hub.child.stderr!.on('data', () => {
        if (!sent && hub.stderr().includes('listening on')) {
          sent = true;
          hub.child.kill('SIGTERM');
        }
      });
      const r = await hub.exited;
      expect({ run: i, signal: r.signal, status: r.status, stopped: r.stderr.includes('hub stopped') }).toEqual({ run: i, signal: null, status: 0, stopped: true });
    }
  });
});
