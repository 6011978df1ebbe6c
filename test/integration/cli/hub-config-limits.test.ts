// Limits come from one place, the config, and flags override (issue #9 item 8): `swb hub` reads the
// workspace's switchboard.json, a hub that a CLI command auto-starts (after the dashboard crashed)
// reads the config the dashboard gave its rows in SWB_CONFIG, and a restarted hub has the same limits.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HubClient } from '../../../src/client/hub-client.js';
import type { HelloResult } from '../../../src/protocol/methods.js';
import { deferCleanup, runCleanups } from '../../helpers/cleanup.js';
import { runSwb, spawnSwb } from '../../helpers/run-swb.js';
import { createTempHome, type TempHome } from '../../helpers/temp-home.js';
import { waitUntil } from '../../helpers/wait-until.js';

afterEach(runCleanups);

async function hubLimits(home: TempHome): Promise<HelloResult['limits']> {
  const client = await HubClient.open(home.paths.socketPath);
  deferCleanup('client', () => client.destroy());
  return (await client.sayHello({ session: 'probe' })).limits;
}

describe('hub limits from the config', () => {
  it('swb hub reads the workspace switchboard.json; a flag overrides one limit', async () => {
    const home = createTempHome();
    writeFileSync(join(home.workspace, 'switchboard.json'), JSON.stringify({ limits: { maxUnread: 7, rate: 3 } }));
    const hub = spawnSwb(['hub', '--rate', '9'], { home });
    await waitUntil(() => hub.stderr().includes('listening'), { what: 'the hub to listen' });
    expect(hub.stderr()).toMatch(/limits from .*switchboard\.json and flags/);
    expect(await hubLimits(home)).toMatchObject({ maxUnread: 7, ratePerSecond: 9 });
  });

  it("a hub auto-started by a row's CLI reads SWB_CONFIG, so a restart keeps the operator's limits", async () => {
    const home = createTempHome();
    const elsewhere = join(home.home, 'operator-config.json');
    writeFileSync(elsewhere, JSON.stringify({ limits: { maxUnread: 5, participantTtlHours: 2 } }));
    // No hub runs: `swb send` starts one in the background, from the environment a row would have.
    const r = await runSwb(['send', '--as', 'script', '@script', 'hi'], { home, env: { SWB_CONFIG: elsewhere } });
    expect(r.stderr).toBe('');
    expect(await hubLimits(home)).toMatchObject({ maxUnread: 5, participantTtlHours: 2 });
  });

  it('a config with bad limits stops swb hub with the file and field named', async () => {
    const home = createTempHome();
    writeFileSync(join(home.workspace, 'switchboard.json'), JSON.stringify({ limits: { maxUnread: -1 } }));
    const r = await runSwb(['hub'], { home });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/switchboard\.json: limits\.maxUnread: must be >= 0/);
  });
});
