// Where the operator's Switchboard settings live: `$XDG_CONFIG_HOME/switchboard` (when it is an absolute
// path, as the XDG spec requires) or `~/.config/switchboard`. Same rule as src/agents' profile loader.
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';

export function userConfigDir(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_CONFIG_HOME;
  const base = xdg && isAbsolute(xdg) ? xdg : join(env.HOME && isAbsolute(env.HOME) ? env.HOME : homedir(), '.config');
  return join(base, 'switchboard');
}

/** The file names looked for in the current directory, in order (both may hold comments: JSONC). */
export const LOCAL_CONFIG_NAMES = ['switchboard.json', 'switchboard.jsonc'] as const;
/** The file names inside userConfigDir(), in order. */
export const USER_CONFIG_NAMES = ['config.json', 'config.jsonc'] as const;
export const USER_THEMES_DIR = 'themes';
