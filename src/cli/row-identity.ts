// Which row a `swb` command runs in. A row's program gets SWB_SESSION, SWB_TOKEN and SWB_SOCKET, but
// agents do not always pass their own environment on to the commands they run: Gemini CLI's variable
// redaction drops names containing TOKEN (no setting lets one through), its GitHub Actions mode keeps
// only a fixed list (every SWB_* is gone), other tools scrub *TOKEN*/*KEY*/*SECRET*. Such a command is
// still a descendant of the row's program, whose environment at exec is readable in /proc/PID/environ
// (same user only). So when the variables are missing, the nearest ancestor that has them names the row.
// The hub still checks the token: nothing here grants more than the row's own program already holds.
import { findInAncestry } from '../util/proc-ancestry.js';

export interface RowIdentity {
  session: string;
  token: string;
  /** The hub socket the row was given (its workspace's hub). */
  socket?: string;
  /** Where it came from: this process's environment, or the ancestor with this pid. */
  from: 'env' | number;
}

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
  return findInAncestry(
    options.ppid ?? process.ppid,
    (vars, pid): RowIdentity | undefined => {
      const session = vars.get('SWB_SESSION');
      const token = vars.get('SWB_TOKEN');
      if (!session || !token || (env.SWB_SESSION && env.SWB_SESSION !== session)) return undefined;
      const socket = vars.get('SWB_SOCKET');
      return { session, token, ...(socket ? { socket } : {}), from: pid };
    },
    options.procRoot,
  );
}
