// Starts the workspace server detached from this terminal: its own session (setsid, no controlling
// tty, so closing the terminal or losing SSH sends it no SIGHUP — it ignores SIGHUP anyway), stdio
// to a private log file, and a pipe on fd 3 on which it says once whether it listens. Under systemd
// with KillUserProcesses=yes, logging out kills every process of the login session however
// detached; the server is then started in its own transient scope (`systemd-run --user --scope`)
// when that is available, outside the session. SWB_NO_SCOPE=1 turns that off.
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { SwbError } from '../protocol/error-codes.js';
import type { RuntimePaths } from '../hub/runtime-paths.js';
import { systemClock } from '../util/clock.js';
import { serverMainPath, swbBinPath } from '../util/package-root.js';
import { SERVER_NODE_FLAGS } from '../util/server-node-flags.js';
import { caCertsAside } from '../util/ca-certs-aside.js';

const READY_TIMEOUT_MS = 20_000;

export interface LaunchOptions {
  paths: RuntimePaths;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** `swb server` flags: --config, --workspace, --fresh. */
  flags: string[];
}

/** The server refused to start, in its own words (a bad row argument, a config error). */
export class LaunchError extends Error {}

/** Resolves once the server listens (with its pid); throws with the server's own words when it cannot start. */
export async function launchServer(o: LaunchOptions): Promise<number> {
  mkdirSync(o.paths.runDir, { recursive: true, mode: 0o700 });
  const logPath = join(o.paths.runDir, 'server.out');
  const out = openSync(logPath, 'a', 0o600);
  // The server's own entry (a CommonJS file: src/server/server-main.ts says why), or, from a build
  // without bundles, `swb server` itself.
  const args = [serverMainPath() ?? swbBinPath(), 'server', ...o.flags, '--ready-fd', '3'];
  // The server has no terminal of its own: Ink's colours follow the terminal that started it.
  const depth = process.stdout.isTTY ? process.stdout.getColorDepth(o.env) : 8;
  // Without NODE_EXTRA_CA_CERTS for its node to parse at start (its NATS link and its rows get it back: ca-certs-aside.ts).
  const env = { ...caCertsAside(o.env), SWB_COLOR_LEVEL: String(depth >= 24 ? 3 : depth >= 8 ? 2 : depth >= 4 ? 1 : 0) };
  const scoped = systemdScope(o.env);
  // SWB_SERVER_NODE_ARGS: flags for the server's node (a profiler, say), after its own (a V8 flag
  // given twice: the last wins); the rows never see them.
  const nodeArgs = [...SERVER_NODE_FLAGS, ...(o.env.SWB_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean)];
  const [file, argv] = scoped ? ['systemd-run', [...scoped, '--', process.execPath, ...nodeArgs, ...args]] : [process.execPath, [...nodeArgs, ...args]];
  let child: ReturnType<typeof spawn>;
  try {
    child = spawn(file, argv, { cwd: o.cwd, env, detached: true, stdio: ['ignore', out, out, 'pipe'] });
  } finally {
    closeSync(out);
  }
  const ready = child.stdio[3] as Readable;
  let said = '';
  ready.setEncoding('utf8');
  ready.on('data', (chunk: string) => {
    if (said.length < 64 * 1024) said += chunk;
  });
  const outcome = await new Promise<{ ok: true; pid: number } | { ok: false; message: string }>((resolve) => {
    const timer = systemClock.setTimer(() => resolve({ ok: false, message: `the swb server did not start within ${READY_TIMEOUT_MS / 1000} s (its output: ${logPath})` }), READY_TIMEOUT_MS);
    const settle = () => {
      timer.dispose();
      const line = said.split('\n')[0] ?? '';
      try {
        const v = JSON.parse(line) as { ok: boolean; pid?: number; message?: string };
        resolve(v.ok ? { ok: true, pid: v.pid ?? child.pid ?? 0 } : { ok: false, message: v.message ?? 'the swb server did not start' });
      } catch {
        resolve({ ok: false, message: `the swb server exited before it listened (its output: ${logPath})` });
      }
    };
    ready.on('end', settle);
    ready.on('error', settle);
    child.on('error', (err) => {
      timer.dispose();
      resolve({ ok: false, message: `the swb server could not be started: ${err.message}` });
    });
  });
  ready.destroy();
  child.unref();
  if (!outcome.ok) {
    const m = /^swb: ([A-Z_]+): (.*)$/s.exec(outcome.message);
    throw m ? new SwbError(m[1] as never, m[2]!.trim()) : new LaunchError(outcome.message);
  }
  return outcome.pid;
}

/** `systemd-run --user --scope` arguments when a user systemd manages this login, else null. */
function systemdScope(env: NodeJS.ProcessEnv): string[] | null {
  if (env.SWB_NO_SCOPE === '1' || !existsSync('/run/systemd/system')) return null;
  const runtime = env.XDG_RUNTIME_DIR;
  if (!runtime || !existsSync(join(runtime, 'systemd', 'private')) && !existsSync(join(runtime, 'bus'))) return null;
  const probe = spawnSync('systemd-run', ['--user', '--scope', '--quiet', '--collect', '--', 'true'], { stdio: 'ignore', timeout: 3000 });
  return probe.status === 0 ? ['--user', '--scope', '--quiet', '--collect', '--unit', `swb-server-${process.pid}-${Date.now()}`] : null;
}
