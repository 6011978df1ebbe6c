// node-pty 1.1.0 on Linux forks with forkpty(3) and leaves every pty master it opened without
// FD_CLOEXEC, so each later child inherits the masters of all earlier rows: row B's program could
// read row A's output or type into it, and row A's terminal is not hung up when swb closes it.
// Node offers no fcntl, so the fix is on the child side: the program is started through a tiny
// exec wrapper that closes every descriptor above 2 and then execs the real program (same pid,
// same process group). Measured start cost: about 5 ms per spawn. macOS is unaffected (node-pty
// spawns there with POSIX_SPAWN_CLOEXEC_DEFAULT).
import { accessSync, constants } from 'node:fs';

/** argv[0] of the wrapper; shows up in its error messages ("swb-exec: line 1: exec: foo: not found"). */
const WRAPPER_NAME = 'swb-exec';

// Bash accepts multi-digit descriptors in redirections (dash only 0-9). The glob is expanded
// before the loop runs, so the directory handle it used is closed again by then: `-L` skips it
// (an open descriptor is a symlink in /proc). `--posix` keeps bash from sourcing $BASH_ENV; the
// program itself still sees BASH_ENV and is not put in POSIX mode.
const CLOSE_FDS_SCRIPT =
  'for f in /proc/$$/fd/*; do f=${f##*/}; case $f in 0|1|2) ;; *) [ -L "/proc/$$/fd/$f" ] && eval "exec $f>&-" ;; esac; done; exec "$@"';

const BASH_CANDIDATES = ['/bin/bash', '/usr/bin/bash', '/usr/local/bin/bash'];

let cachedBash: string | null | undefined;

function findBash(): string | null {
  if (cachedBash !== undefined) return cachedBash;
  cachedBash = null;
  for (const candidate of BASH_CANDIDATES) {
    try {
      accessSync(candidate, constants.X_OK);
      cachedBash = candidate;
      break;
    } catch {
      // try the next one
    }
  }
  return cachedBash;
}

export interface ExecCommand {
  file: string;
  args: string[];
}

/** Whether children started through {@link isolatedCommand} hold only their own descriptors. */
export function fdIsolationAvailable(): boolean {
  if (process.platform === 'darwin' || process.platform === 'win32') return true;
  return process.platform === 'linux' && findBash() !== null;
}

/**
 * Rewrites `file args` so the program starts with only descriptors 0-2 open. Where node-pty does
 * not leak (macOS, Windows), without /proc (other Unixes) or without bash, it is unchanged.
 */
export function isolatedCommand(file: string, args: readonly string[]): ExecCommand {
  if (process.platform !== 'linux') return { file, args: [...args] };
  const bash = findBash();
  if (bash === null) return { file, args: [...args] };
  return { file: bash, args: ['--posix', '-c', CLOSE_FDS_SCRIPT, WRAPPER_NAME, file, ...args] };
}
