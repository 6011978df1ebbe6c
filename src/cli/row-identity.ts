// Which row a `swb` command runs in. A row's program gets SWB_SESSION, SWB_TOKEN and SWB_SOCKET, but
// agents do not always pass their own environment on to the commands they run: Gemini CLI's variable
// redaction drops names containing TOKEN (no setting lets one through), its GitHub Actions mode keeps
// only a fixed list (every SWB_* is gone), other tools scrub *TOKEN*/*KEY*/*SECRET*. Such a command is
// still a descendant of the row's program, whose environment at exec is readable in /proc/PID/environ
// (same user only). So when the variables are missing, the nearest ancestor that has them names the row.
// The hub still checks the token: nothing here grants more than the row's own program already holds.
import { readFileSync } from 'node:fs';

export interface RowIdentity {
  session: string;
  token: string;
  /** The hub socket the row was given (its workspace's hub). */
  socket?: string;
  /** Where it came from: this process's environment, or the ancestor with this pid. */
  from: 'env' | number;
}

/** Far enough for agent → shell → wrapper chains; a loop guard, not a policy. */
const MAX_ANCESTORS = 32;
/** /proc/PID/environ of a program started with a huge environment is still read whole, but bounded. */
const MAX_ENVIRON_BYTES = 1024 * 1024;

export interface FindRowIdentityOptions {
  /** Start of the ancestor walk (default: this process's parent). */
  ppid?: number;
  /** Where /proc is (tests). */
  procRoot?: string;
}

/**
 * The row this command speaks as: from the environment when SWB_SESSION and SWB_TOKEN are both there,
 * else from the nearest ancestor process whose environment has them (when SWB_SESSION is set, only an
 * ancestor of that same row counts). Undefined when neither says so (the caller is not in a row).
 */
export function findRowIdentity(env: NodeJS.ProcessEnv, options: FindRowIdentityOptions = {}): RowIdentity | undefined {
  if (env.SWB_SESSION && env.SWB_TOKEN) {
    return { session: env.SWB_SESSION, token: env.SWB_TOKEN, ...(env.SWB_SOCKET ? { socket: env.SWB_SOCKET } : {}), from: 'env' };
  }
  if (process.platform !== 'linux') return undefined;
  const proc = options.procRoot ?? '/proc';
  let pid = options.ppid ?? process.ppid;
  for (let depth = 0; depth < MAX_ANCESTORS && pid > 1; depth++) {
    const vars = readEnviron(`${proc}/${pid}/environ`);
    const session = vars?.get('SWB_SESSION');
    const token = vars?.get('SWB_TOKEN');
    if (session && token && (!env.SWB_SESSION || env.SWB_SESSION === session)) {
      const socket = vars!.get('SWB_SOCKET');
      return { session, token, ...(socket ? { socket } : {}), from: pid };
    }
    const parent = parentOf(`${proc}/${pid}/stat`);
    if (parent === undefined || parent === pid) break;
    pid = parent;
  }
  return undefined;
}

/** The SWB_* variables of a process's initial environment; undefined when unreadable (another user, gone). */
function readEnviron(path: string): Map<string, string> | undefined {
  let raw: Buffer;
  try {
    raw = readFileSync(path);
  } catch {
    return undefined;
  }
  if (raw.length > MAX_ENVIRON_BYTES) raw = raw.subarray(0, MAX_ENVIRON_BYTES);
  const vars = new Map<string, string>();
  for (const entry of raw.toString('utf8').split('\0')) {
    if (!entry.startsWith('SWB_')) continue;
    const eq = entry.indexOf('=');
    if (eq > 0) vars.set(entry.slice(0, eq), entry.slice(eq + 1));
  }
  return vars;
}

/** The parent pid from /proc/PID/stat ("pid (comm) state ppid ..."; comm may hold spaces and parens). */
function parentOf(path: string): number | undefined {
  let stat: string;
  try {
    stat = readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
  const close = stat.lastIndexOf(')');
  if (close < 0) return undefined;
  const ppid = Number(stat.slice(close + 2).split(' ')[1]);
  return Number.isInteger(ppid) && ppid >= 0 ? ppid : undefined;
}
