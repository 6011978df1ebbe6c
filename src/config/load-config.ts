// Finds, reads and validates the config, then resolves what depends on it (keymap, theme, hub limits).
// Search order: `--config FILE` (must exist), else `$SWB_CONFIG` (must exist: the dashboard sets it
// for its rows, so a hub a row's CLI starts after a crash reads the same file), `./switchboard.json`,
// `<config dir>/config.json` (`$XDG_CONFIG_HOME/switchboard` or `~/.config/switchboard`); with none
// of them, the defaults apply.
// Every problem comes back as one CONFIG_INVALID value whose message names the file and the field.
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { HubLimits } from '../protocol/limits.js';
import { configError, type ConfigError } from './config-error.js';
import { LOCAL_CONFIG_NAMES, USER_CONFIG_NAMES, userConfigDir } from './config-paths.js';
import { checkConfig, resolveHubLimits, type SwitchboardConfig } from './config-schema.js';
import { buildKeymap, type Keymap } from './keymap.js';
import { readJsonFile } from './read-json-file.js';
import { DEFAULT_THEME, loadTheme, type Theme, type ThemeOptions } from './theme.js';

export const MAX_CONFIG_BYTES = 1024 * 1024;

export interface LoadConfigOptions {
  /** `--config FILE` (relative to cwd); a missing file is an error. */
  configPath?: string;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Agent profile ids; when given, a row's `profile` must be one of them. */
  knownProfiles?: readonly string[];
  /** Theme directories (tests). */
  themeDirs?: ThemeOptions['dirs'];
}

export interface LoadedConfig {
  config: SwitchboardConfig;
  /** The file read, or null when none was found and the defaults apply. */
  path: string | null;
  /** Directory relative row `cwd`s are resolved against (the file's, or cwd). */
  baseDir: string;
  keymap: Keymap;
  theme: Theme;
  limits: HubLimits;
}

export type LoadConfigResult = { ok: true; value: LoadedConfig } | { ok: false; error: ConfigError };

/** The config file to read, or null. An explicit path is returned whether or not it exists. */
export function findConfigFile(opts: LoadConfigOptions = {}): string | null {
  const cwd = opts.cwd ?? process.cwd();
  const explicit = explicitPath(opts);
  if (explicit !== undefined) return resolve(cwd, explicit);
  const candidates = [...LOCAL_CONFIG_NAMES.map((n) => join(cwd, n)), ...USER_CONFIG_NAMES.map((n) => join(userConfigDir(opts.env), n))];
  for (const candidate of candidates) {
    if (existsSync(candidate)) return candidate;
  }
  return null;
}

/** `--config FILE`, else a non-empty $SWB_CONFIG. */
function explicitPath(opts: LoadConfigOptions): string | undefined {
  if (opts.configPath !== undefined) return opts.configPath;
  const fromEnv = (opts.env ?? process.env).SWB_CONFIG;
  return fromEnv ? fromEnv : undefined;
}

export function loadConfig(opts: LoadConfigOptions = {}): LoadConfigResult {
  const cwd = opts.cwd ?? process.cwd();
  const fail = (message: string): LoadConfigResult => ({ ok: false, error: configError(message) });
  if (opts.configPath !== undefined && opts.configPath.trim() === '') return fail('--config: empty file name');
  const explicit = explicitPath(opts);
  const flag = opts.configPath !== undefined ? '--config' : 'SWB_CONFIG';
  const path = findConfigFile(opts);

  let config: SwitchboardConfig;
  if (path === null) config = { rows: [] };
  else {
    const read = readJsonFile(path, MAX_CONFIG_BYTES);
    if (!read.ok) return fail(read.missing && explicit !== undefined ? `${flag} ${path}: no such file` : read.message);
    const parsed = checkConfig(read.value);
    if (!parsed.ok) return fail(`${path}: ${parsed.error.message}`);
    config = parsed.value;
  }
  const label = path ?? 'defaults';

  if (opts.knownProfiles) {
    const known = opts.knownProfiles;
    const bad = config.rows.findIndex((r) => r.profile !== undefined && !known.includes(r.profile));
    if (bad >= 0) {
      return fail(`${label}: rows[${bad}].profile: unknown profile "${config.rows[bad]?.profile}" (known: ${known.join(', ')})`);
    }
  }

  const keys = buildKeymap(config.keys ?? {}, config.detachKey);
  if (!keys.ok) return fail(keys.problems.map((p) => `${label}: ${p.message}`).join('\n'));

  const themeName = config.theme ?? DEFAULT_THEME;
  const theme = loadTheme(themeName, { ...(opts.env && { env: opts.env }), ...(opts.themeDirs && { dirs: opts.themeDirs }) });
  if (!theme.ok) return fail(config.theme !== undefined ? `${label}: theme: ${theme.error.message}` : theme.error.message);

  return {
    ok: true,
    value: {
      config,
      path,
      baseDir: path ? dirname(path) : cwd,
      keymap: keys.keymap,
      theme: theme.theme,
      limits: resolveHubLimits(config.limits),
    },
  };
}
