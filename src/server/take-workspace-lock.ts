// The workspace server's first step: the workspace's lock, which makes it the one server (and the
// one hub) of the workspace. Taken before anything else, because the server then listens on its
// client socket under it (a leftover socket is removed on the grounds that no live server can own
// it) and says it is ready before its hub is up (workspace-server.ts says why). A headless hub
// already running (started by a CLI command) is asked to step down, and the lock is taken once it
// has let go. The lock then goes to the hub (HubOptions.lock), its one owner.
import { readFileSync } from 'node:fs';
import { HubClient } from '../client/hub-client.js';
import { takeHubLock } from '../hub/hub.js';
import type { RuntimePaths } from '../hub/runtime-paths.js';
import type { WorkspaceLock } from '../hub/workspace-lock.js';
import { SwbError } from '../protocol/error-codes.js';
import { sleep, type Clock } from '../util/clock.js';

/** How long starting waits for a headless hub (or a stopping server) to let go of the workspace's lock. */
const HUB_HANDOVER_WAIT_MS = 15_000;
/** How often starting tries the lock again meanwhile (another process holds it: no event says when it lets go). */
const HUB_HANDOVER_RETRY_MS = 50;

/** The workspace's lock, or HUB_RUNNING when another server owns the workspace (or the handover timed out). */
export async function takeWorkspaceLock(paths: RuntimePaths, clock: Clock): Promise<WorkspaceLock> {
  // Long enough for a server that is stopping to end its rows (SIGHUP, then SIGKILL after the grace).
  const deadline = clock.now() + HUB_HANDOVER_WAIT_MS;
  for (let asked = false; ; ) {
    try {
      return takeHubLock(paths);
    } catch (err) {
      if (!(err instanceof SwbError) || err.code !== 'HUB_RUNNING' || clock.now() > deadline) throw err;
      if (!asked) {
        asked = true;
        await askHubToStop(paths).catch((e: unknown) => {
          // Another server owns this workspace: say so instead of waiting for it.
          if (e instanceof SwbError && e.code === 'HUB_RUNNING') throw e;
          // Nobody answered: the lock's holder is a server still starting its hub (two launched at
          // once, issue #33), or one going away. Ask again next time, rather than wait out the
          // deadline for a server that would have said it owns the workspace.
          asked = false;
        });
      }
      await sleep(HUB_HANDOVER_RETRY_MS, clock);
    }
  }
}

async function askHubToStop(paths: RuntimePaths): Promise<void> {
  const token = readFileSync(paths.operatorTokenFile, 'utf8').trim();
  const client = await HubClient.open(paths.socketPath);
  try {
    await client.sayHello({ session: 'operator', token });
    await client.request('hub.shutdown');
  } finally {
    client.destroy();
  }
}
