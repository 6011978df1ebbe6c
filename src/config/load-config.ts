// Finds, reads and validates the config, then resolves what depends on it (keymap, theme, hub limits).
// Search order (find-config-file.ts): `--config FILE` (must exist), else `$SWB_CONFIG` (must exist:
// the dashboard sets it for its rows, so a hub a row's CLI starts after a crash reads the same
// file), `./switchboard.json[c]`, `<config dir>/config.json[c]` (`$XDG_CONFIG_HOME/switchboard` or
// `~/.config/switchboard`); with none of them, the defaults apply.
// A file that is not the operator's own and that they have not trusted (config-trust.ts) is read
// and checked all the same, but what it would run (runnable-parts.ts: rows, worktree setup,
// federation) is withheld here, in the one place every launch reads its config through: the
// dashboard's server, `swb hub` and a hub a CLI command starts in the background alike.
// Every problem comes back in one CONFIG_INVALID value, one line each, naming the file and the field.
import { dirname } from 'node:path';
import type { HubLimits } from '../protocol/limits.js';
import { configError, type ConfigError } from './config-error.js';
import { checkConfig, defaultConfig, resolveHubLimits, type SwitchboardConfig } from './config-schema.js';
import { isConfigTrusted } from './config-trust.js';
import { findConfig, MAX_CONFIG_BYTES, type ConfigOrigin } from './find-config-file.js';
import { buildKeymap, type Keymap } from './keymap.js';
import { readJsonFile } from './read-json-file.js';
import { hasRunnableParts, runnableParts, withoutRunnableParts, type RunnableParts } from './runnable-parts.js';
import { DEFAULT_THEME, loadTheme, type Theme, type ThemeOptions } from './theme.js';

export { MAX_CONFIG_BYTES };

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
  /** The config as it applies: without its runnable parts when the file is not trusted. */
  config: SwitchboardConfig;
  /** The file read, or null when none was found and the defaults apply. */
  path: string | null;
  /** Where the file was found (null: the defaults). */
  origin: ConfigOrigin | null;
  /** SHA-256 of the bytes read, or null. */
  sha256: string | null;
  /** What an untrusted file would have run and did not (null: trusted, or it names nothing to run). */
  withheld: RunnableParts | null;
  /** Directory relative row `cwd`s are resolved against (the file's, or cwd). */
  baseDir: string;
  keymap: Keymap;
  theme: Theme;
  limits: HubLimits;
}

export type LoadConfigResult = { ok: true; value: LoadedConfig } | { ok: false; error: ConfigError };

/** The config file to read, or null. An explicit path is returned whether or not it exists. */
export function findConfigFile(opts: LoadConfigOptions = {}): string | null {
  return findConfig(opts)?.path ?? null;
}

export function loadConfig(opts: LoadConfigOptions = {}): LoadConfigResult {
  const cwd = opts.cwd ?? process.cwd();
  const env = opts.env ?? process.env;
  const fail = (message: string): LoadConfigResult => ({ ok: false, error: configError(message) });
  if (opts.configPath !== undefined && opts.configPath.trim() === '') return fail('--config: empty file name');
  const found = findConfig(opts);

  let raw: unknown = {};
  let sha256: string | null = null;
  if (found) {
    const read = readJsonFile(found.path, MAX_CONFIG_BYTES);
    if (!read.ok) {
      const named = found.origin === 'flag' ? '--config' : found.origin === 'env' ? 'SWB_CONFIG' : null;
      return fail(read.missing && named ? `${named} ${found.path}: no such file` : read.message);
    }
    raw = read.value;
    sha256 = read.sha256;
  }
  const label = found?.path ?? 'defaults';
  const problems: string[] = [];
  // No file: the defaults, which need no schema (defaultConfig).
  const parsed = found ? checkConfig(raw) : ({ ok: true, value: defaultConfig() } as const);
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
  let config = parsed.value;
  let withheld: RunnableParts | null = null;
  if (found && sha256 !== null && !isConfigTrusted(found, sha256, env)) {
    const parts = runnableParts(config);
    if (hasRunnableParts(parts)) withheld = parts;
    config = withoutRunnableParts(config);
  }
  return {
    ok: true,
    value: {
      config,
      path: found?.path ?? null,
      origin: found?.origin ?? null,
      sha256,
      withheld,
      baseDir: found ? dirname(found.path) : cwd,
      keymap,
      theme,
      limits: resolveHubLimits(config.limits),
    },
  };
}
