// The operator's own state directory for swb (DESIGN §3's data place): `SWB_HOME=DIR` puts it at
// `DIR/data` (every test has its own), else `${XDG_STATE_HOME:-~/.local/state}/switchboard`. Each
// workspace's mail.db lives in a directory below it (src/hub/runtime-paths.ts); what belongs to the
// operator rather than to one workspace (the configs they trust) sits beside those directories.
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';

export function operatorStateRoot(env: NodeJS.ProcessEnv = process.env): string {
  if (env.SWB_HOME) return join(resolve(env.SWB_HOME), 'data');
  // The home of the environment given (as userConfigDir reads it), so a caller's env decides alone.
  const home = env.HOME && isAbsolute(env.HOME) ? env.HOME : homedir();
  return join(env.XDG_STATE_HOME || join(home, '.local', 'state'), 'switchboard');
}
