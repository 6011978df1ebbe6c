// The bundled themes as the build checked them (src/config/compiled-themes.ts): the build's file holds
// each bundled theme exactly as parsing its file gives it, keyed by the file and the SHA-256 of its
// bytes, so a start takes a theme from it only for those very bytes; edited bytes, or a damaged
// file, find nothing there (and the theme file is parsed as before).
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMPILED_THEMES_PATH, compiledThemeIndex, decodeThemes, encodeThemes, themeKey } from '../../../src/config/compiled-themes.js';
import { loadTheme, parseTheme } from '../../../src/config/theme.js';
import { parseJsonc } from '../../../src/config/parse-jsonc.js';
import { packageRoot } from '../../../src/util/package-root.js';

const themesDir = join(packageRoot(), 'themes');
const files = readdirSync(themesDir).filter((f) => f.endsWith('.json')).sort();
const bytesOf = (file: string) => readFileSync(join(themesDir, file));
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const parsed = (bytes: Buffer) => {
  const r = parseJsonc(bytes.toString('utf8'));
  if (!r.ok) throw new Error(r.problem);
  return parseTheme(r.value);
};

describe('compiled themes', () => {
  it("the build's file holds every bundled theme as its file parses, under the SHA-256 of the file's bytes", () => {
    const built = decodeThemes(readFileSync(join(packageRoot(), ...COMPILED_THEMES_PATH), 'utf8'));
    expect(built?.map((t) => t.file)).toEqual(files);
    for (const t of built!) {
      const bytes = bytesOf(t.file);
      expect(t.sha256, t.file).toBe(sha256(bytes));
      expect(t.theme, t.file).toEqual(parsed(bytes));
    }
  });

  it('are found only for the bytes the build read: edited bytes or another directory find nothing', () => {
    const bytes = bytesOf('dark.json');
    const text = encodeThemes([{ file: 'dark.json', sha256: sha256(bytes), theme: parsed(bytes) }]);
    const index = compiledThemeIndex(text, themesDir);
    expect(index.get(themeKey(join(themesDir, 'dark.json'), sha256(bytes)))).toEqual(parsed(bytes));
    expect(index.get(themeKey(join(themesDir, 'dark.json'), sha256(Buffer.concat([bytes, Buffer.from(' ')]))))).toBeUndefined();
    expect(index.get(themeKey(join('/elsewhere', 'dark.json'), sha256(bytes)))).toBeUndefined();
  });

  it('a damaged file, or one of another shape, gives none', () => {
    expect(decodeThemes('{"themes":')).toBeNull();
    expect(decodeThemes('{}')).toBeNull();
    expect(decodeThemes('{"themes":[{"file":"dark.json"}]}')).toBeNull();
    expect(compiledThemeIndex('not json', themesDir).size).toBe(0);
  });

  it('a start loads the same themes', () => {
    for (const file of files) {
      const r = loadTheme(file.slice(0, -'.json'.length), { dirs: { user: '/nonexistent-swb-themes' } });
      expect(r.ok && r.theme, file).toEqual(parsed(bytesOf(file)));
    }
  });
});
