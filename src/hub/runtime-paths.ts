// Where a workspace's hub lives (DESIGN §3): a private runtime dir for the socket and the election
// lock, a data dir for mail.db. SWB_HOME=DIR puts both under DIR (every test uses its own).
import { existsSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fnvHex } from '../util/fnv-hash.js';
import { operatorStateRoot } from '../util/state-root.js';

export interface RuntimePaths {
  /** The workspace's directory (found from the cwd or a --workspace directory), or the name given with --workspace. */
  workspace: string;
  /** The workspace was named (--workspace NAME): it has no directory of its own. */
  explicitWorkspace: boolean;
  workspaceId: string;
  runDir: string;
  dataDir: string;
  socketPath: string;
  /** The workspace server's socket for thin clients (`swb`, `swb attach`), beside the hub's. */
  serverSocketPath: string;
  /** Set when the socket had to move to a short private dir to fit the socket-path limit. */
  socketDir: string;
  lockFile: string;
  operatorTokenFile: string;
  dbFile: string;
}

/** sun_path is 108 bytes on Linux, 104 on macOS, including the NUL; stay well inside both. */
export const MAX_SOCKET_PATH_BYTES = 100;

export function findWorkspaceRoot(cwd: string): string {
  let dir = resolve(cwd);
  for (;;) {
    if (existsSync(join(dir, '.git'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return resolve(cwd);
    dir = parent;
  }
}

export function workspaceIdFor(workspace: string, explicitName?: string): string {
  const label = (explicitName ?? basename(workspace) ?? 'root').replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 24) || 'root';
  if (explicitName) return label;
  const hash = fnvHex(workspace, 10);
  return `${label}-${hash}`;
}

function uid(): number {
  return typeof process.getuid === 'function' ? process.getuid() : 0;
}

/**
 * Whether a --workspace value names a directory (`--workspace ~/src/app`, `--workspace .`) rather
 * than a workspace by name: it has a slash, or is `.` or `..`. A directory means that directory's
 * workspace — the same hub as running swb there — not a new workspace called "_src_app".
 */
export function isWorkspaceDir(value: string): boolean {
  return value.includes('/') || value === '.' || value === '..';
}

/** Why a --workspace value cannot be used (a directory that is not there), or null. */
export function workspaceFlagProblem(value: string, cwd: string): string | null {
  if (value === '') return '--workspace needs a name or a directory';
  if (!isWorkspaceDir(value)) return null;
  const dir = resolve(cwd, value);
  let isDir = false;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    // not there
  }
  return isDir ? null : `--workspace ${value}: ${dir} is not a directory (a name without a slash names a workspace instead)`;
}

export function resolveRuntimePaths(opts: { cwd?: string; workspace?: string; env?: NodeJS.ProcessEnv } = {}): RuntimePaths {
  const env = opts.env ?? process.env;
  const cwd = opts.cwd ?? process.cwd();
  const named = opts.workspace && !isWorkspaceDir(opts.workspace) ? opts.workspace : undefined;
  const workspace = named ?? findWorkspaceRoot(opts.workspace ? resolve(cwd, opts.workspace) : cwd);
  const workspaceId = workspaceIdFor(workspace, named);
  let runDir: string;
  if (env.SWB_HOME) runDir = join(resolve(env.SWB_HOME), 'run', workspaceId);
  else runDir = join(env.XDG_RUNTIME_DIR || tmpdir(), `switchboard-${uid()}`, workspaceId);
  const dataDir = join(operatorStateRoot(env), workspaceId);
  let socketDir = runDir;
  if (Buffer.byteLength(join(runDir, 'hub.sock')) > MAX_SOCKET_PATH_BYTES) {
    // A long SWB_HOME or XDG_RUNTIME_DIR: keep the socket in a short private dir named after the
    // full run dir, so every client computes the same place.
    const digest = fnvHex(runDir, 16);
    socketDir = join('/tmp', `swb-${uid()}`, digest);
  }
  return {
    workspace,
    explicitWorkspace: named !== undefined,
    workspaceId,
    runDir,
    dataDir,
    socketDir,
    socketPath: join(socketDir, 'hub.sock'),
    serverSocketPath: join(socketDir, 'server.sock'),
    lockFile: join(runDir, 'hub.lock'),
    operatorTokenFile: join(runDir, 'operator.token'),
    dbFile: join(dataDir, 'mail.db'),
  };
}
