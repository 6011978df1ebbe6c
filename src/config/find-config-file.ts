// Which config file a launch reads, and where it was found: the origin decides whether the file is
// the operator's own (trusted by where it is) or somebody else's (trusted only once the operator
// said so, config-trust.ts). Search order: `--config FILE`, else `$SWB_CONFIG`, else
// `./switchboard.json[c]` in `cwd` (for a hub: the workspace's top), else the operator's
// `<config dir>/config.json[c]`. Small and free of zod: the thin client asks it before launching a server.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { LOCAL_CONFIG_NAMES, USER_CONFIG_NAMES, userConfigDir } from './config-paths.js';

/**
 * - `flag`: `--config FILE` on the operator's command line;
 * - `env`: `$SWB_CONFIG` (the dashboard sets it for its rows; anything else could set it too);
 * - `workspace`: found in the directory swb runs in, i.e. shipped with whatever was cloned there;
 * - `user`: the operator's own config directory.
 */
/** A config file may be at most this big (checked before parsing). */
export const MAX_CONFIG_BYTES = 1024 * 1024;

export type ConfigOrigin = 'flag' | 'env' | 'workspace' | 'user';

export interface FoundConfig {
  /** Absolute. For `flag` and `env`, returned whether or not the file exists. */
  path: string;
  origin: ConfigOrigin;
}

export interface FindConfigOptions {
  /** `--config FILE` (relative to cwd). */
  configPath?: string;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
}

export function findConfig(opts: FindConfigOptions = {}): FoundConfig | null {
  const cwd = opts.cwd ?? process.cwd();
  if (opts.configPath !== undefined) return { path: resolve(cwd, opts.configPath), origin: 'flag' };
  const fromEnv = (opts.env ?? process.env).SWB_CONFIG;
  if (fromEnv) return { path: resolve(cwd, fromEnv), origin: 'env' };
  for (const name of LOCAL_CONFIG_NAMES) {
    const path = join(resolve(cwd), name);
    if (existsSync(path)) return { path, origin: 'workspace' };
  }
  for (const path of userConfigFiles(opts.env)) if (existsSync(path)) return { path, origin: 'user' };
  return null;
}

/** The operator's own config files, in the order they are looked for. */
export function userConfigFiles(env: NodeJS.ProcessEnv = process.env): string[] {
  return USER_CONFIG_NAMES.map((n) => join(userConfigDir(env), n));
}
