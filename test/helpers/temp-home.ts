// A private SWB_HOME per test (DESIGN §3): run/ and data/ under a fresh temp dir, plus a separate
// workspace dir to run `swb` from. Everything is removed after the test, after any hub that a
// CLI started there in the background has been killed.
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveRuntimePaths, type RuntimePaths } from '../../src/hub/runtime-paths.js';
import { deferCleanup } from './cleanup.js';
import { killSwbProcess, loggedHubPids, loggedServerPids } from './processes.js';
import { processFamily } from './process-descendants.js';
import { waitUntil } from './wait-until.js';

export interface TempHome {
  /** The SWB_HOME directory. */
  home: string;
  /** The directory `swb` runs in (it has no .git above it, so it is its own workspace). */
  workspace: string;
  /** Environment entries a CLI needs to find this home. */
  env: { SWB_HOME: string };
  /** Where the hub of `workspace` lives under `home`. */
  paths: RuntimePaths;
}

export interface TempHomeOptions {
  /** Pad the SWB_HOME path to at least this many characters (to push the socket past its limit). */
  minLength?: number;
}

export function createTempHome(opts: TempHomeOptions = {}): TempHome {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'swb-test-')));
  let home = join(base, 'home');
  if (opts.minLength !== undefined && home.length < opts.minLength) {
    home = join(base, 'h'.repeat(opts.minLength - base.length - 1));
  }
  mkdirSync(home, { recursive: true, mode: 0o700 });
  const workspace = join(base, 'workspace');
  mkdirSync(workspace, { mode: 0o700 });
  const env = { SWB_HOME: home };
  const paths = resolveRuntimePaths({ cwd: workspace, env });
  deferCleanup(`temp home ${home}`, async () => {
    await killServers(home);
    await killBackgroundHubs(home, paths);
    if (paths.socketDir !== paths.runDir) rmSync(paths.socketDir, { recursive: true, force: true });
    rmSync(base, { recursive: true, force: true });
  });
  return { home, workspace, env, paths };
}

/** Kills the workspace servers swb started under this home, with every row they run. */
async function killServers(home: string): Promise<void> {
  for (const pid of loggedServerPids(home)) await killSwbProcess(pid, home, 5000, processFamily);
}

/** Kills the detached hubs CLI commands started under this home (they log their pid). */
async function killBackgroundHubs(home: string, paths: RuntimePaths): Promise<void> {
  // A hub that just started may answer before its "listening (pid N)" line is written.
  if (await socketAnswers(paths.socketPath)) {
    await waitUntil(() => loggedHubPids(home).length > 0, { timeoutMs: 2000, what: 'a background hub to log its pid' }).catch(() => undefined);
  }
  for (const pid of loggedHubPids(home)) await killSwbProcess(pid, home);
}

export function socketAnswers(socketPath: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection(socketPath);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
