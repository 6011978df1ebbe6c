// Finds, reads and validates the config, then resolves what depends on it (keymap, theme, hub limits).
// Search order: `--config FILE` (must exist), else `$SWB_CONFIG` (must exist: the dashboard sets it
// for its rows, so a hub a row's CLI starts after a crash reads the same file), `./switchboard.json`,
// `<config dir>/config.json` (`$XDG_CONFIG_HOME/switchboard` or `~/.config/switchboard`); with none
// of them, the defaults apply.
// Every problem comes back in one CONFIG_INVALID value, one line each, naming the file and the field.
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

  let raw: unknown = {};
  if (path !== null) {
    const read = readJsonFile(path, MAX_CONFIG_BYTES);
    if (!read.ok) return fail(read.missing && explicit !== undefined ? `${flag} ${path}: no such file` : read.message);
    raw = read.value;
  }
  const label = path ?? 'defaults';
  const problems: string[] = [];
  const parsed = checkConfig(raw);
  // Schema problems, then what the other checks find in the parts the schema let through, so a
  // file with several mistakes hears of all of them at once.
  const badPaths = parsed.ok ? [] : parsed.error.all.map((p) => p.path);
  const clean = (field: string) => !badPaths.some((p) => p === field || p.startsWith(`${field}.`) || p.startsWith(`${field}[`) || p === '');
  if (!parsed.ok) for (const p of parsed.error.all) problems.push(`${label}: ${p.path || '(root)'}: ${p.problem}`);
  const given = (parsed.ok ? parsed.value : typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? raw : {}) as Partial<SwitchboardConfig>;

  if (opts.knownProfiles && Array.isArray(given.rows)) {
    const known = opts.knownProfiles;
    given.rows.forEach((row, i) => {
      const profile = typeof row === 'object' && row !== null ? (row as { profile?: unknown }).profile : undefined;
      if (typeof profile === 'string' && !known.includes(profile) && clean(`rows[${i}].profile`)) {
        problems.push(`${label}: rows[${i}].profile: unknown profile "${profile}" (known: ${known.join(', ')})`);
      }
    });
  }

  let keymap: Keymap | null = null;
  if (clean('keys') && clean('detachKey')) {
    const keys = buildKeymap(given.keys ?? {}, given.detachKey);
    if (keys.ok) keymap = keys.keymap;
    else for (const p of keys.problems) problems.push(`${label}: ${p.message}`);
  }

  let theme: Theme | null = null;
  if (clean('theme')) {
    const themeName = typeof given.theme === 'string' ? given.theme : DEFAULT_THEME;
    const loaded = loadTheme(themeName, { ...(opts.env && { env: opts.env }), ...(opts.themeDirs && { dirs: opts.themeDirs }) });
    if (loaded.ok) theme = loaded.theme;
    else problems.push(given.theme !== undefined ? `${label}: theme: ${loaded.error.message}` : loaded.error.message);
  }

  if (problems.length > 0 || !parsed.ok || !keymap || !theme) return fail(problems.join('\n'));
  const config = parsed.value;

  return {
    ok: true,
    value: {
      config,
      path,
      baseDir: path ? dirname(path) : cwd,
      keymap,
      theme,
      limits: resolveHubLimits(config.limits),
    },
  };
}
