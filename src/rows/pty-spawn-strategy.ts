// How a row's program is started on Linux (issue #33, cold start). node-pty 1.1.0 starts each one
// with forkpty(3) + execvp, and fork() copies the page tables of the ~80 MB server: 8-16 ms a row,
// ~140 ms of a first frame with eight rows. native/pty-spawn.c does the same start with
// posix_spawn (CLONE_VFORK: nothing copied, ~1-4 ms) and returns what node-pty's native fork
// returns, so it is put in that function's place on the native module object node-pty's
// unixTerminal.js calls (`pty.fork(...)`): requiring the same pty.node through node-pty's own
// loader gives that very object (node caches it by path; node-pty stays external in the bundles,
// scripts/bundle.mjs). node-pty's JavaScript then runs as before on the result.
//
// Where the addon declines (null: a program it cannot find or run, uid/gid, no pty) node-pty's own
// fork runs instead, so those fail exactly as they did; it runs the program through the descriptor-
// closing wrapper (isolated-command.ts), since its fork leaks every earlier row's master. The addon
// closes them itself, so a row it starts needs no wrapper (rows: `needsFdWrapper`). Left alone, with one warning: another
// node-pty version or shape, or an addon that did not build (non-Linux, old glibc: it exports no
// fork there, silently). SWB_PTY_SPAWN=fork keeps node-pty's fork (side-by-side benches).
import { createRequire } from 'node:module';
import { requireNativeAddon } from '../util/native-addon.js';
import { type ExecCommand, isolatedCommand } from './isolated-command.js';

/** node-pty 1.1.0's native fork on Unix (src/unix/pty.cc, PtyFork) and what it returns. */
type NativeFork = (
  file: string,
  args: string[],
  env: string[],
  cwd: string,
  cols: number,
  rows: number,
  uid: number,
  gid: number,
  utf8: boolean,
  helperPath: string,
  onexit: (code: number, signal: number) => void,
) => { fd: number; pid: number; pty: string };

export interface PtySpawnAddon {
  fork?: (...args: Parameters<NativeFork>) => ReturnType<NativeFork> | null;
}

/** The node-pty whose internals this replaces a piece of. */
const NODE_PTY_VERSION = '1.1.0';
/** The functions node-pty's unixTerminal.js calls on its native module, all present in 1.1.0. */
const NATIVE_FUNCTIONS = ['fork', 'open', 'resize', 'process'] as const;

export type PtySpawnState =
  | { installed: true }
  /** Why node-pty's own fork starts the rows. */
  | { installed: false; reason: string };

let state: PtySpawnState | undefined;

/**
 * Puts the posix_spawn fork in node-pty's place, once (later calls return the first answer).
 * Called before the first row starts.
 */
export function installPtySpawn(): PtySpawnState {
  if (state !== undefined) return state;
  state = install();
  if (!state.installed && state.reason !== OFF && state.reason !== UNSUPPORTED) {
    process.emitWarning(`rows start with node-pty's fork: ${state.reason}`, { code: 'SWB_PTY_SPAWN' });
  }
  return state;
}

const OFF = 'SWB_PTY_SPAWN=fork';
const UNSUPPORTED = 'not Linux with glibc 2.34 or later';

function install(): PtySpawnState {
  if (process.env.SWB_PTY_SPAWN === 'fork') return { installed: false, reason: OFF };
  if (process.platform !== 'linux') return { installed: false, reason: UNSUPPORTED };
  const addon = requireNativeAddon<PtySpawnAddon>('pty_spawn.node', 'the pty-spawn addon');
  if (typeof addon === 'string') return { installed: false, reason: addon };
  const spawnFork = addon.fork;
  if (typeof spawnFork !== 'function') return { installed: false, reason: UNSUPPORTED };

  let native: unknown;
  let version: unknown;
  try {
    const require = createRequire(import.meta.url);
    version = (require('node-pty/package.json') as { version?: unknown }).version;
    // node-pty's own loader, from its own directory: the path, hence the object, unixTerminal.js has.
    const utils = require('node-pty/lib/utils.js') as { loadNativeModule?: (name: string) => { module?: unknown } };
    native = utils.loadNativeModule?.('pty').module;
  } catch (err) {
    return { installed: false, reason: `cannot load node-pty's native module: ${(err as Error).message.split('\n')[0]}` };
  }
  return replaceFork(native, version, spawnFork, isolatedCommand);
}

/**
 * Whether a row's program must be started through the descriptor-closing wrapper: not once the
 * posix_spawn fork is in place (it keeps only 0-2, and wraps what it hands to node-pty's fork).
 */
export function needsFdWrapper(): boolean {
  return !installPtySpawn().installed;
}

/**
 * Puts `spawnFork` in place of `native.fork` (node-pty `version`'s native module), node-pty's
 * fork taking over where it returns null, with the program rewritten by `declined` (the wrapper
 * that closes inherited descriptors); or leaves `native` untouched and says why.
 */
export function replaceFork(
  native: unknown,
  version: unknown,
  spawnFork: NonNullable<PtySpawnAddon['fork']>,
  declined: (file: string, args: readonly string[]) => ExecCommand,
): PtySpawnState {
  if (version !== NODE_PTY_VERSION) return { installed: false, reason: `node-pty is ${String(version)}, not ${NODE_PTY_VERSION}` };
  if (typeof native !== 'object' || native === null) return { installed: false, reason: "node-pty's native module has another shape" };
  const module = native as Record<string, unknown>;
  const missing = NATIVE_FUNCTIONS.find((name) => typeof module[name] !== 'function');
  if (missing !== undefined) return { installed: false, reason: `node-pty's native module has no ${missing}()` };

  const nodePtyFork = module.fork as NativeFork;
  const fork: NativeFork = (...args) => {
    const started = spawnFork(...args);
    if (started !== null) return started;
    const [file, argv, ...rest] = args;
    const wrapped = declined(file, argv);
    return nodePtyFork(wrapped.file, wrapped.args, ...rest);
  };
  module.fork = fork;
  return { installed: true };
}
