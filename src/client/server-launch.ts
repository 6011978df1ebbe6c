// Starts the workspace server detached from this terminal: its own session (setsid, no controlling
// tty, so closing the terminal or losing SSH sends it no SIGHUP — it ignores SIGHUP anyway), stdio
// to a private log file, and a socket pair on fd 3: the client says go on it (server-gate.ts), and the
// server says once whether it listens. Under systemd with KillUserProcesses=yes, logging out kills
// every process of the login session however detached; the server is then started in its own
// transient scope (`systemd-run --user --scope`) when that is available, outside the session.
// SWB_NO_SCOPE=1 turns that off.
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, rmdirSync, statSync, unlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Socket } from 'node:net';
import { SwbError } from '../protocol/error-codes.js';
import type { RuntimePaths } from '../hub/runtime-paths.js';
import { systemClock } from '../util/clock.js';
import { serverMainPath, swbBinPath } from '../util/package-root.js';
import { SERVER_NODE_FLAGS } from '../util/server-node-flags.js';
import { caCertsAside } from '../util/ca-certs-aside.js';
import { colourLevel, terminalColourLevel } from '../util/colour-level.js';

export const READY_TIMEOUT_MS = 20_000;

/** A launch whose server said nothing within READY_TIMEOUT_MS. */
export function readyTimedOut(logPath: string): LaunchOutcome {
  return { ok: false, message: `the swb server did not start within ${READY_TIMEOUT_MS / 1000} s (its output: ${logPath})` };
}

export interface LaunchOptions {
  paths: RuntimePaths;
  cwd: string;
  env: NodeJS.ProcessEnv;
}

/** The server refused to start, in its own words (a bad row argument, a config error). */
export class LaunchError extends Error {}

/**
 * How a launch ended: listening (its pid), or the server's own words, with its error code when it
 * gave one. Plain data, not an error: the dashboard's head start (a bundle of its own) holds the
 * server, and the client that says go is another bundle, with its own error classes
 * (launchProblem makes them there).
 */
export type LaunchOutcome = { ok: true; pid: number } | { ok: false; code?: string; message: string };

/** A server whose node is starting and loading its code, waiting for the client's go (src/server/server-gate.ts). */
export interface HeldServer {
  /** Go, with the `swb server` flags the client settled (--config, --workspace, --fresh): resolves once it listens, or cannot start. */
  go(flags: readonly string[]): Promise<LaunchOutcome>;
  /** Not wanted after all (a usage error, a "no" at the trust question): it exits, having touched nothing. */
  cancel(): void;
}

/**
 * Starts the server's node at once, held at its gate: it loads its code while this client checks
 * its command line and the config's trust, and starts only at go() (server-gate.ts says why).
 */
export function holdServer(o: LaunchOptions): HeldServer {
  // What this makes for the server's log, taken away again if it is cancelled: a typo on the command
  // line leaves the runtime dir as it found it (issue #31.3).
  const madeDir = mkdirSync(o.paths.runDir, { recursive: true, mode: 0o700 });
  const logPath = join(o.paths.runDir, 'server.out');
  const madeLog = !existsSync(logPath);
  const out = openSync(logPath, 'a', 0o600);
  // The server's own entry (a CommonJS file: src/server/server-main.ts says why), or, from a build
  // without bundles, `swb server` itself.
  const args = [serverMainPath() ?? swbBinPath(), 'server', '--held', '--ready-fd', '3'];
  // The server has no terminal of its own: Ink's colours follow the terminal that started it.
  // Without NODE_EXTRA_CA_CERTS for its node to parse at start (its NATS link and its rows get it back: ca-certs-aside.ts).
  const env = { ...caCertsAside(o.env), SWB_COLOR_LEVEL: process.stdout.isTTY ? terminalColourLevel(o.env) : colourLevel(8) };
  const scoped = systemdScope(o.env);
  // SWB_SERVER_NODE_ARGS: flags for the server's node (a profiler, say), after its own (a V8 flag
  // given twice: the last wins); the rows never see them.
  const nodeArgs = [...SERVER_NODE_FLAGS, ...(o.env.SWB_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean)];
  const [file, argv] = scoped ? ['systemd-run', [...scoped, '--', process.execPath, ...nodeArgs, ...args]] : [process.execPath, [...nodeArgs, ...args]];
  let child: ReturnType<typeof spawn>;
  try {
    // fd 3 is a socket pair: the go line goes down it, the ready line comes back.
    child = spawn(file, argv, { cwd: o.cwd, env, detached: true, stdio: ['ignore', out, out, 'pipe'] });
  } finally {
    closeSync(out);
  }
  const gate = child.stdio[3] as Socket;
  let spawnError: Error | null = null;
  child.once('error', (err) => (spawnError = err));
  gate.on('error', () => undefined); // a server gone before go: go() reads that as an early exit
  // Neither holds this client's process open: a client that ends before go() cancels by ending.
  child.unref();
  gate.unref();
  let said = '';
  gate.setEncoding('utf8');
  gate.on('data', (chunk: string) => {
    if (said.length < MAX_READY_BYTES) said += chunk;
  });
  const ended = new Promise<void>((resolve) => {
    gate.once('end', resolve);
    gate.once('close', resolve);
  });
  return {
    async go(flags) {
      gate.ref();
      gate.write(`${JSON.stringify({ go: true, flags })}\n`);
      const outcome = await new Promise<LaunchOutcome>((resolve) => {
        const timer = systemClock.setTimer(() => resolve(readyTimedOut(logPath)), READY_TIMEOUT_MS);
        void ended.then(() => {
          timer.dispose();
          if (spawnError) {
            resolve({ ok: false, message: `the swb server could not be started: ${(spawnError as Error).message}` });
            return;
          }
          resolve(readyLineOutcome(said, child.pid ?? 0) ?? { ok: false, message: `the swb server exited before it listened (its output: ${logPath})` });
        });
      });
      gate.destroy();
      return outcome;
    },
    cancel() {
      gate.destroy();
      if (madeLog) unmake(logPath, madeDir);
    },
  };
}

/**
 * What a launching client heard from the server that it started (all it said up to its close): it
 * listens, or why not, in swb's words (`swb: CODE: sentence`, split into the two) where it gave
 * them; null when it said no line at all.
 */
export function readyLineOutcome(said: string, pid: number): LaunchOutcome | null {
  const line = said.split('\n')[0] ?? '';
  let v: { ok?: unknown; pid?: unknown; message?: unknown };
  try {
    v = JSON.parse(line) as typeof v;
  } catch {
    return null;
  }
  if (typeof v !== 'object' || v === null) return null;
  if (v.ok === true) return { ok: true, pid: typeof v.pid === 'number' ? v.pid : pid };
  const message = typeof v.message === 'string' ? v.message : 'the swb server did not start';
  const m = /^swb: ([A-Z_]+): (.*)$/s.exec(message);
  return m ? { ok: false, code: m[1]!, message: m[2]!.trim() } : { ok: false, message };
}

/** The bound on what a launching client keeps of what its server says (one line is expected). */
export const MAX_READY_BYTES = 64 * 1024;

/**
 * Takes away the log file a cancelled launch made, if nothing was written to it (the held server
 * writes nothing before go), and the directories made for it, innermost first, while they are empty.
 */
function unmake(logPath: string, madeDir: string | undefined): void {
  try {
    if (statSync(logPath).size !== 0) return;
    unlinkSync(logPath);
  } catch {
    return;
  }
  if (madeDir === undefined) return;
  for (let dir = dirname(logPath); ; dir = dirname(dir)) {
    try {
      rmdirSync(dir);
    } catch {
      return; // not empty (something else is there now), or gone
    }
    if (dir === madeDir || dirname(dir) === dir) return;
  }
}

/** A launch that failed as this bundle's error: SwbError with the server's code, else LaunchError. */
export function launchProblem(outcome: Extract<LaunchOutcome, { ok: false }>): Error {
  return outcome.code !== undefined ? new SwbError(outcome.code as never, outcome.message) : new LaunchError(outcome.message);
}

/** `systemd-run --user --scope` arguments when a user systemd manages this login, else null. */
function systemdScope(env: NodeJS.ProcessEnv): string[] | null {
  if (env.SWB_NO_SCOPE === '1' || !existsSync('/run/systemd/system')) return null;
  const runtime = env.XDG_RUNTIME_DIR;
  if (!runtime || !existsSync(join(runtime, 'systemd', 'private')) && !existsSync(join(runtime, 'bus'))) return null;
  const probe = spawnSync('systemd-run', ['--user', '--scope', '--quiet', '--collect', '--', 'true'], { stdio: 'ignore', timeout: 3000 });
  return probe.status === 0 ? ['--user', '--scope', '--quiet', '--collect', '--unit', `swb-server-${process.pid}-${Date.now()}`] : null;
}
