// A mail command run in the wrong directory reaches (or starts) the hub of another workspace
// (issue #31.11): its "not known here" errors name the workspace they asked, and say when the
// command itself started that hub; `swb kill-server` there stops such a headless hub, which
// otherwise could only be killed by pid.
import { existsSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { runCleanups } from '../../helpers/cleanup.js';
import { isProcessAlive, loggedHubPids } from '../../helpers/processes.js';
import { runSwb } from '../../helpers/run-swb.js';
import { createTempHome } from '../../helpers/temp-home.js';
import { waitUntil } from '../../helpers/wait-until.js';

afterEach(runCleanups);

describe('a mail command in the wrong workspace', () => {
  it('UNKNOWN_PEER names the workspace it asked and says this command started its hub; swb kill-server there stops that headless hub', async () => {
    const home = createTempHome();
    const sent = await runSwb(['send', '@claude', 'hi'], { home });
    expect(sent.status).toBe(1);
    expect(sent.stderr).toContain('UNKNOWN_PEER: No session named claude is known to this hub.');
    expect(sent.stderr).toContain(`[asked the hub of workspace ${home.paths.workspaceId} (${home.workspace}); this command started that hub (headless): swb kill-server --workspace ${home.workspace} stops it]`);
    await waitUntil(() => loggedHubPids(home.home).length === 1, { what: 'the started hub to log its pid' });
    const [hubPid] = loggedHubPids(home.home);
    expect(isProcessAlive(hubPid!)).toBe(true);

    // The next one finds the hub running: it still names the workspace, and says how to pick another.
    const again = await runSwb(['send', '@claude', 'hi'], { home });
    expect(again.status).toBe(1);
    expect(again.stderr).toContain(`[asked the hub of workspace ${home.paths.workspaceId} (${home.workspace}); run it from the workspace you meant, or give --workspace NAME|DIR]`);

    const killed = await runSwb(['kill-server'], { home });
    expect(killed.stderr).toBe('');
    expect(killed.status).toBe(0);
    expect(killed.stdout).toBe(`no server ran; the headless hub of workspace ${home.paths.workspaceId} (pid ${hubPid}) stopped\n`);
    expect(isProcessAlive(hubPid!)).toBe(false);
    expect(existsSync(home.paths.socketPath)).toBe(false);

    // Nothing runs any more: kill-server says so, as before.
    const none = await runSwb(['kill-server'], { home });
    expect(none.status).toBe(1);
    expect(none.stderr).toMatch(/NO_SERVER: No swb server runs for workspace/);
  });

  it('kill-server --json on a headless hub reports it stopped', async () => {
    const home = createTempHome();
    expect((await runSwb(['peers'], { home })).status).toBe(0);
    await waitUntil(() => loggedHubPids(home.home).length === 1, { what: 'the started hub to log its pid' });
    const killed = await runSwb(['kill-server', '--json'], { home });
    expect(killed.status).toBe(0);
    expect(JSON.parse(killed.stdout)).toEqual({ stopping: true, rows: 0, hub: true, pid: loggedHubPids(home.home)[0], stopped: true });
  });
});
