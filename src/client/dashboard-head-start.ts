// The first part of `swb` and `swb attach`, loaded before the rest of the thin client
// (bin/swb.ts, its own small bundle: scripts/bundle.mjs): it reads the client's own flags, and, when
// this dashboard will need a server that is not running, starts the server's node at once, held at
// its gate (server-launch.ts holdServer, server/server-gate.ts). On a cold start the server's node
// start and code load (some 130-180 ms) were the first frame's longest part, and they waited behind
// the client's own load and checks (some 40 ms more: the dashboard bundle, the row arguments, the
// config's trust); now the two run side by side, and the client says go (or cancels) once its
// checks are done (attach-client.ts). A running server is connected to here too, and the
// connection handed on.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Socket } from 'node:net';
import { resolve } from 'node:path';
import { isWorkspaceDir, resolveRuntimePaths, workspaceFlagProblem, type RuntimePaths } from '../hub/runtime-paths.js';
import { SwbError } from '../protocol/error-codes.js';
import { checkPeer, checkSocketPath } from './trusted-socket.js';
import { holdServer, type HeldServer } from './server-launch.js';
import { takeEarlyServer, type EarlyStartedServer } from './early-server.js';

export interface AttachOptions {
  argv: readonly string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Start a server when none runs (`swb`); `swb attach` only attaches. */
  create: boolean;
}

export interface SplitArgs {
  workspace?: string;
  config?: string;
  fresh: boolean;
  /** For the server's dashboard plan: rows, --layout, --theme, --config. */
  hello: string[];
}

/**
 * The workspace server as the head start found it: connected, held at its gate, or a problem for
 * the client to report in turn — swb's own (its code and words: plain data, since the client is
 * another bundle with its own error classes), or anything else, as it was thrown.
 */
export type EarlyServer = { socket: Socket } | { held: HeldServer } | { refused: { code: string; message: string } } | { error: unknown };

export type HeadStart =
  /** A usage problem in the client's own flags (printed by the client). */
  | { problem: string }
  | {
      /** The options with --workspace DIR applied (its directory is the cwd). */
      o: AttachOptions;
      split: SplitArgs;
      /** `--help` or `-h` among the dashboard's flags. */
      help: boolean;
      /** The server, when this client will run a dashboard on a terminal; null: not looked for yet. */
      early: EarlyServer | null;
    };

/** The thin client's options for the dashboard's argv (`attach` first: attach only, start nothing). */
export function dashboardOptions(argv: readonly string[]): AttachOptions {
  const attach = argv[0] === 'attach';
  return { argv: attach ? argv.slice(1) : argv, env: process.env, cwd: process.cwd(), create: !attach };
}

/** Runs the head start for the dashboard's argv. */
export function dashboardHeadStart(argv: readonly string[]): Promise<HeadStart> {
  return headStart(dashboardOptions(argv));
}

export async function headStart(given: AttachOptions): Promise<HeadStart> {
  // A server bin/swb started beside this client, listened for at once: it is used below where this
  // client would start one, and let go on every other way out.
  const beside = takeEarlyServer(given.env);
  try {
    return await headStartWith(given, beside);
  } finally {
    beside?.releaseUnheld();
  }
}

async function headStartWith(given: AttachOptions, beside: EarlyStartedServer | null): Promise<HeadStart> {
  const split = splitArgs(given.argv);
  if (typeof split === 'string') return { problem: split };
  let o = given;
  if (split.workspace !== undefined) {
    const problem = workspaceFlagProblem(split.workspace, o.cwd);
    if (problem) return { problem };
    // A directory: as if swb ran there (its workspace, its switchboard.json, new rows start
    // there); a --config FILE typed beside it still means the file seen from here.
    if (isWorkspaceDir(split.workspace)) {
      if (split.config !== undefined) split.config = resolve(o.cwd, split.config);
      split.hello = configFromHere(split.hello, o.cwd);
      o = { ...o, cwd: resolve(o.cwd, split.workspace) };
      delete split.workspace;
    }
  }
  const help = helpAsked(split.hello);
  // Only a dashboard that will run looks for its server here: not for the help, not without a
  // terminal (the client says so after its argument check), not for `swb attach` (nothing to start).
  const early = !help && given.create && process.stdout.isTTY && process.stdin.isTTY ? await findOrHoldServer(o, split, beside) : null;
  return { o, split, help, early };
}

async function findOrHoldServer(o: AttachOptions, split: SplitArgs, beside: EarlyStartedServer | null): Promise<EarlyServer> {
  try {
    const paths: RuntimePaths = resolveRuntimePaths({ cwd: o.cwd, env: o.env, ...(split.workspace ? { workspace: split.workspace } : {}) });
    const path = paths.serverSocketPath;
    checkSocketPath(path);
    // The server bin/swb started beside this client, when it did; else one started here.
    const hold = (): HeldServer => (beside ? beside.held({ paths, cwd: o.cwd, env: o.env }) : holdServer({ paths, cwd: o.cwd, env: o.env }));
    // No socket there: no server to try (a connect would only say so a turn of the event loop later).
    if (!existsSync(path)) return { held: hold() };
    try {
      const socket = await connectTrusted(path);
      // Until the client takes it over: a server gone meanwhile shows as the connection's close.
      socket.on('error', () => socket.destroy());
      return { socket };
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (err instanceof SwbError || (code !== 'ENOENT' && code !== 'ECONNREFUSED')) throw err;
    }
    return { held: hold() };
  } catch (err) {
    return err instanceof SwbError ? { refused: { code: err.code, message: err.message } } : { error: err };
  }
}

/** Connects to the server's socket; rejects unless the process on the other end runs as us. */
export function connectTrusted(path: string): Promise<Socket> {
  // node:net when there is a server to connect to: a cold start spawns one before it needs the
  // module (some 3 ms of the head start's way to that spawn). Required, not imported: an import()
  // would start node's ES module loader in the CommonJS entry (dashboard-main.ts).
  const { connect } = createRequire(import.meta.url)('node:net') as typeof import('node:net');
  return new Promise((resolve, reject) => {
    const socket = connect(path);
    socket.once('error', reject);
    socket.once('connect', () => {
      socket.off('error', reject);
      try {
        checkPeer(socket, path); // the server runs as us, or nothing is sent
      } catch (err) {
        socket.destroy();
        reject(err);
        return;
      }
      resolve(socket);
    });
  });
}

/** --workspace and --fresh are the client's; the rest is the dashboard's command line. */
export function splitArgs(argv: readonly string[]): SplitArgs | string {
  const out: SplitArgs = { fresh: false, hello: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const [flag, inline] = a.startsWith('--') && a.includes('=') ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)] : [a, undefined];
    if (flag === '--fresh') {
      out.fresh = true;
      continue;
    }
    if (flag === '--workspace' || flag === '--config') {
      const v = inline ?? argv[++i];
      if (v === undefined || v === '') return `${flag} needs a value`;
      if (flag === '--workspace') out.workspace = v;
      else {
        out.config = v;
        out.hello.push('--config', v);
      }
      continue;
    }
    if (a === '--') {
      out.hello.push(...argv.slice(i));
      break;
    }
    out.hello.push(a);
  }
  return out;
}

/** `--help` or `-h` among the dashboard's flags (not after `--`, where a row's own words begin). */
function helpAsked(hello: readonly string[]): boolean {
  for (const a of hello) {
    if (a === '--') return false;
    if (a === '--help' || a === '-h') return true;
  }
  return false;
}

/** The dashboard's command line with each --config FILE made absolute, as seen from `cwd`. */
export function configFromHere(hello: readonly string[], cwd: string): string[] {
  const out = [...hello];
  for (let i = 0; i < out.length - 1 && out[i] !== '--'; i++) {
    if (out[i] !== '--config') continue;
    out[i + 1] = resolve(cwd, out[i + 1]!);
    i++; // the value: never itself a flag
  }
  return out;
}
