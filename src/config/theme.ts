// Themes style Switchboard's chrome only (headers, borders, badges, overlays); what the programs in the
// rows print keeps its own colours. A theme is a JSON file `<name>.json` in the user's
// `<config dir>/themes/` (searched first, so a user file can replace a bundled one) or the package's
// `themes/`. Every slot is required; colours are "#rrggbb" or one of the 16 ANSI names (which follow
// the terminal's palette). A slot's `bg` may be left out for the terminal's default background.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as z from 'zod';
import { lazySchema } from '../protocol/lazy-schema.js';
import { packageRoot } from '../util/package-root.js';
import { compareCodeUnits } from '../text/code-unit-order.js';
import { checkFile, editorSchemaField, parse } from '../util/schema.js';
import { configError, type ConfigError } from './config-error.js';
import { COMPILED_THEMES_PATH, compiledThemeIndex, themeKey } from './compiled-themes.js';
import { userConfigDir, USER_THEMES_DIR } from './config-paths.js';
import { readJsonFile } from './read-json-file.js';

export const ANSI_COLOR_NAMES = [
  'black', 'red', 'green', 'yellow', 'blue', 'magenta', 'cyan', 'white',
  'blackBright', 'redBright', 'greenBright', 'yellowBright', 'blueBright', 'magentaBright', 'cyanBright', 'whiteBright',
  'gray', 'grey', // aliases of blackBright
] as const;

/** "#rrggbb" or an ANSI colour name; both are understood by Ink's `color` / `backgroundColor`. */
export type Color = string;

export const THEME_NAME_PATTERN = /^[a-z0-9][a-z0-9._-]{0,63}$/;
export const DEFAULT_THEME = 'dark';
export const MAX_THEME_BYTES = 64 * 1024;

const HEX_COLOR = /^#[0-9a-fA-F]{6}$/;
const NAMED_COLORS: ReadonlySet<string> = new Set(ANSI_COLOR_NAMES);
const notAColour = (iss: { input?: unknown }) =>
  `expected a colour: "#rrggbb" or one of ${ANSI_COLOR_NAMES.join(', ')} (got ${JSON.stringify(iss.input)?.slice(0, 40) ?? String(iss.input)})`;
// One string check rather than a union, so every wrong value gets the one message; the JSON Schema
// still offers both forms to an editor. The schemas are built at their first use (protocol/lazy-schema.ts
// says why).
const color = lazySchema(() =>
  z
    .string({ error: notAColour })
    .refine((v) => HEX_COLOR.test(v) || NAMED_COLORS.has(v), { error: notAColour })
    .meta({ id: 'colour', description: '"#rrggbb" or an ANSI colour name (which follows the terminal\'s palette).', anyOf: [{ pattern: HEX_COLOR.source }, { enum: [...ANSI_COLOR_NAMES] }] }),
);
/** A slot's `bg` may be left out for the terminal's default background. */
const pair = lazySchema(() => z.strictObject({ fg: color(), bg: z.optional(color()) }).meta({ id: 'colourPair', description: 'Foreground and, optionally, background (left out: the terminal\'s default).' }));

/** The theme file as written; every slot is required. */
export const themeFileSchema = lazySchema(() =>
  z
    .strictObject({
      $schema: editorSchemaField(),
      name: z.string().regex(THEME_NAME_PATTERN, { error: 'lower-case letters, digits, ".", "_" or "-"' }).describe('The theme\'s name: the file is <name>.json.'),
      description: z.optional(z.string().max(200)),
      header: z.strictObject({ focused: pair(), unfocused: pair(), attached: pair() }).describe('Row header bar: the focused row, the others, and the row keys are going to while attached.'),
      border: z.strictObject({ focused: color(), unfocused: color() }),
      state: z.strictObject({ busy: color(), idle: color(), waiting: color(), exited: color(), unknown: color() }).describe('Row state badges.'),
      unread: pair().describe('Unread-mail badge.'),
      notification: pair().describe('The notification strip.'),
      composer: z.strictObject({ fg: color(), bg: z.optional(color()), border: color(), mention: color(), placeholder: color() }),
      help: z.strictObject({ fg: color(), bg: z.optional(color()), border: color(), key: color() }).describe('The help overlay (`?`): text, background, frame, and key names.'),
      muted: color(),
      error: color(),
      accent: color(),
    })
    .meta({ title: 'Switchboard theme', description: 'A Switchboard theme: colours for its chrome (headers, borders, badges, overlays), "#rrggbb" or ANSI colour names.' }),
);

const themeSchema = lazySchema(() => themeFileSchema().transform(({ $schema: _editorOnly, ...theme }) => theme));
export type Theme = z.output<ReturnType<typeof themeSchema>>;
export type ColorPair = z.output<ReturnType<typeof pair>>;

/** Validates parsed JSON as a theme; throws SchemaError with the field path. */
export function parseTheme(value: unknown): Theme {
  return parse(themeSchema(), value);
}

export interface ThemeDirs {
  /** Searched first. */
  user: string;
  bundled: string;
}

export interface ThemeOptions {
  env?: NodeJS.ProcessEnv;
  dirs?: Partial<ThemeDirs>;
}

export function themeDirs(opts: ThemeOptions = {}): ThemeDirs {
  return {
    user: opts.dirs?.user ?? join(userConfigDir(opts.env), USER_THEMES_DIR),
    bundled: opts.dirs?.bundled ?? join(packageRoot(), 'themes'),
  };
}

export type ThemeResult = { ok: true; theme: Theme; file: string } | { ok: false; error: ConfigError };

/** Loads and validates a theme by name (user dir first, then the bundled themes). */
export function loadTheme(name: string, opts: ThemeOptions = {}): ThemeResult {
  if (!THEME_NAME_PATTERN.test(name)) {
    return { ok: false, error: configError(`theme ${JSON.stringify(name.slice(0, 70))}: not a theme name (lower-case letters, digits, ".", "_" or "-")`) };
  }
  const dirs = themeDirs(opts);
  for (const dir of [dirs.user, dirs.bundled]) {
    const file = join(dir, `${name}.json`);
    const read = readJsonFile(file, MAX_THEME_BYTES);
    if (!read.ok) {
      if (read.missing) continue;
      return { ok: false, error: configError(read.message) };
    }
    const key = themeKey(file, read.sha256);
    let theme = parsedThemes.get(key) ?? compiledThemes().get(key);
    if (theme === undefined) {
      const parsed = checkFile(themeSchema(), read.value);
      if (!parsed.ok) return { ok: false, error: configError(`${file}: ${parsed.error.message}`) };
      theme = parsed.value;
      if (parsedThemes.size >= PARSED_THEMES_MAX) parsedThemes.delete(parsedThemes.keys().next().value!);
      parsedThemes.set(key, theme);
    }
    if (theme.name !== name) {
      return { ok: false, error: configError(`${file}: name: is ${JSON.stringify(theme.name)} but the file is ${name}.json`) };
    }
    return { ok: true, theme, file };
  }
  const known = listThemes(opts).map((t) => t.name);
  return { ok: false, error: configError(`theme "${name}" not found (available: ${known.join(', ') || 'none'})`) };
}

/**
 * Themes already validated, by file and the SHA-256 of the bytes read: the server plans its launch at
 * its start and again at every client's HELLO (issue #33), and parsing every theme through zod again
 * cost 7-9 ms on the way to the first frame. Keyed by content, so an edited file is parsed afresh;
 * the themes are never written to, so one value serves every plan.
 */
const parsedThemes = new Map<string, Theme>();
/** A handful of theme files: past that, edits piling up, the oldest go first. */
const PARSED_THEMES_MAX = 64;

/**
 * The bundled themes the build checked (compiled-themes.ts), keyed as parsedThemes is: by the file
 * in the package's themes/ and the SHA-256 of the bytes the build read. Read at the first theme
 * loaded; empty when the build's file is not there (tsc alone) or not one of ours.
 */
function compiledThemes(): ReadonlyMap<string, Theme> {
  if (compiled !== undefined) return compiled;
  let text: string;
  try {
    text = readFileSync(join(packageRoot(), ...COMPILED_THEMES_PATH), 'utf8');
  } catch {
    return (compiled = new Map()); // not built: every theme is parsed
  }
  return (compiled = compiledThemeIndex<Theme>(text, join(packageRoot(), 'themes')));
}
let compiled: Map<string, Theme> | undefined;

export interface ThemeEntry {
  name: string;
  source: 'user' | 'bundled';
  file: string;
}

/** Theme names available, sorted; a user theme hides the bundled one of the same name. Not validated. */
export function listThemes(opts: ThemeOptions = {}): ThemeEntry[] {
  const dirs = themeDirs(opts);
  const found = new Map<string, ThemeEntry>();
  for (const [source, dir] of [['user', dirs.user], ['bundled', dirs.bundled]] as const) {
    if (!existsSync(dir)) continue;
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      continue;
    }
    for (const file of names) {
      if (!file.endsWith('.json')) continue;
      const name = file.slice(0, -'.json'.length);
      if (THEME_NAME_PATTERN.test(name) && !found.has(name)) found.set(name, { name, source, file: join(dir, file) });
    }
  }
  return [...found.values()].sort((a, b) => compareCodeUnits(a.name, b.name));
}

/** The theme after `current` in `names` (wrapping), for the theme key. */
export function nextThemeName(current: string, names: readonly string[]): string {
  if (names.length === 0) return current;
  const i = names.indexOf(current);
  return names[(i + 1) % names.length] ?? current;
}
