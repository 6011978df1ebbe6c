// The bundled themes, checked once at build rather than at every server start (issue #33), as the
// bundled agent profiles are (src/agents/compiled-profiles.ts). Building the theme schema and
// parsing the three bundled themes through it was 3-5 ms of a cold server's way to the first frame,
// twice zod's first use, for files that ship with the code: `npm run build` checks them
// (scripts/compile-themes.mjs: a bad bundled theme fails the build) and writes each one's file
// name, the SHA-256 of its bytes and the theme. A start still reads every theme file it loads and
// takes a build's theme only for the very bytes the build checked (theme.ts keys its parsed themes
// by file and SHA-256): a theme edited after the build is parsed as before.
// Generic over the theme's type, which theme.ts defines and hands in: this file is what theme.ts
// reads, and must not read theme.ts back.
import { join } from 'node:path';

/** Where the build writes the checked themes, under the package root. */
export const COMPILED_THEMES_PATH = ['dist', 'themes.json'] as const;

/** One bundled theme as the build checked it: its file name in themes/, the SHA-256 of its bytes, the theme. */
export interface CompiledTheme<T = unknown> {
  file: string;
  sha256: string;
  theme: T;
}

/** The checked themes as the build writes them. */
export function encodeThemes<T>(themes: readonly CompiledTheme<T>[]): string {
  return JSON.stringify({ themes });
}

/** The themes the build checked (as the build wrote them: each a `T`), or null when the text is not such a file (damaged, another format). */
export function decodeThemes<T>(text: string): CompiledTheme<T>[] | null {
  try {
    const file = JSON.parse(text) as { themes?: unknown };
    if (!Array.isArray(file.themes)) return null;
    const out: CompiledTheme<T>[] = [];
    for (const t of file.themes as unknown[]) {
      if (typeof t !== 'object' || t === null) return null;
      const { file: name, sha256, theme } = t as Partial<CompiledTheme>;
      if (typeof name !== 'string' || typeof sha256 !== 'string' || typeof theme !== 'object' || theme === null) return null;
      out.push({ file: name, sha256, theme: theme as T });
    }
    return out;
  } catch {
    return null;
  }
}

/** The key of one theme file's bytes: its path and their SHA-256 (theme.ts keys parsed themes so too). */
export function themeKey(path: string, sha256: string): string {
  return `${path}\0${sha256}`;
}

/** The build's themes (its file's text) by themeKey, for the theme files in `themesDir`; empty for a file that is not one. */
export function compiledThemeIndex<T>(text: string, themesDir: string): Map<string, T> {
  const index = new Map<string, T>();
  for (const t of decodeThemes<T>(text) ?? []) index.set(themeKey(join(themesDir, t.file), t.sha256), t.theme);
  return index;
}
