import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listThemes, loadTheme, nextThemeName, parseTheme, themeDirs } from '../../../src/config/theme.js';
import { SchemaError } from '../../../src/util/schema.js';

let dir: string;
let userDir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'swb-theme-'));
  userDir = join(dir, 'themes');
  mkdirSync(userDir);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const bundled = (name: string): Record<string, unknown> =>
  JSON.parse(readFileSync(join(themeDirs({ dirs: { user: '/nonexistent' } }).bundled, `${name}.json`), 'utf8')) as Record<string, unknown>;

describe('bundled themes', () => {
  it('include dark, light and high-contrast, and all validate', () => {
    const names = listThemes({ dirs: { user: join(dir, 'none') } }).map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['dark', 'light', 'high-contrast']));
    for (const name of names) {
      const r = loadTheme(name, { dirs: { user: join(dir, 'none') } });
      expect(r.ok, name).toBe(true);
      if (r.ok) expect(r.theme.name).toBe(name);
    }
  });

  it('high-contrast uses only ANSI colour names, so it follows the terminal palette', () => {
    expect(JSON.stringify(bundled('high-contrast'))).not.toMatch(/#[0-9a-f]{6}/i);
  });
});

describe('parseTheme', () => {
  it('rejects a bad colour with the field path', () => {
    const t = bundled('dark');
    (t.state as Record<string, unknown>).busy = 'orange';
    expect(() => parseTheme(t)).toThrow(SchemaError);
    expect(() => parseTheme(t)).toThrow(/^state\.busy: expected a colour/);
  });

  it('rejects short hex, unknown fields and missing slots', () => {
    const short = bundled('dark');
    short.muted = '#abc';
    expect(() => parseTheme(short)).toThrow(/^muted:/);
    const extra = { ...bundled('dark'), sparkle: '#ffffff' };
    expect(() => parseTheme(extra)).toThrow(/^sparkle: unknown field/);
    const missing = bundled('dark');
    delete missing.error;
    expect(() => parseTheme(missing)).toThrow(/^error:/);
  });

  it('accepts "$schema" (for editors) and leaves it out of the theme', () => {
    const t = parseTheme({ $schema: '../schemas/theme.schema.json', ...bundled('dark') });
    expect(t.name).toBe('dark');
    expect(t).not.toHaveProperty('$schema');
  });

  it('accepts a missing background (terminal default)', () => {
    const t = bundled('dark');
    (t.unread as Record<string, unknown>).bg = undefined;
    expect(parseTheme(JSON.parse(JSON.stringify(t))).unread.bg).toBeUndefined();
  });
});

describe('loadTheme', () => {
  it('prefers a user theme over the bundled one of the same name', () => {
    const mine = { ...bundled('dark'), description: 'mine' };
    writeFileSync(join(userDir, 'dark.json'), JSON.stringify(mine));
    const r = loadTheme('dark', { dirs: { user: userDir } });
    expect(r.ok && r.theme.description).toBe('mine');
    expect(listThemes({ dirs: { user: userDir } }).find((t) => t.name === 'dark')?.source).toBe('user');
  });

  it('finds themes in $XDG_CONFIG_HOME/switchboard/themes', () => {
    const xdgThemes = join(dir, 'xdg', 'switchboard', 'themes');
    mkdirSync(xdgThemes, { recursive: true });
    writeFileSync(join(xdgThemes, 'mine.json'), JSON.stringify({ ...bundled('light'), name: 'mine' }));
    const r = loadTheme('mine', { env: { XDG_CONFIG_HOME: join(dir, 'xdg') } });
    expect(r.ok).toBe(true);
  });

  it('names the file and field of an invalid user theme', () => {
    writeFileSync(join(userDir, 'bad.json'), JSON.stringify({ ...bundled('dark'), name: 'bad', muted: 'nope' }));
    const r = loadTheme('bad', { dirs: { user: userDir } });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.code).toBe('CONFIG_INVALID');
      expect(r.error.message).toContain(`${join(userDir, 'bad.json')}: muted: expected a colour`);
    }
  });

  it('reports JSON syntax errors with line and column', () => {
    writeFileSync(join(userDir, 'broken.json'), '{\n  "name" "broken"\n}');
    const r = loadTheme('broken', { dirs: { user: userDir } });
    expect(!r.ok && r.error.message).toBe(`${join(userDir, 'broken.json')}:2:10: expected ":"`);
  });

  it('requires the name inside to match the file', () => {
    writeFileSync(join(userDir, 'other.json'), JSON.stringify(bundled('dark')));
    const r = loadTheme('other', { dirs: { user: userDir } });
    expect(!r.ok && r.error.message).toMatch(/name: is "dark" but the file is other\.json/);
  });

  it('lists what exists when a theme is missing', () => {
    const r = loadTheme('nope', { dirs: { user: userDir } });
    expect(!r.ok && r.error.message).toMatch(/theme "nope" not found \(available: .*dark.*\)/);
  });

  it('refuses names that could reach outside the theme directories', () => {
    for (const name of ['../dark', '/etc/passwd', 'a/b', '.hidden', 'Dark', '']) {
      const r = loadTheme(name, { dirs: { user: userDir } });
      expect(r.ok, name).toBe(false);
      if (!r.ok) expect(r.error.message).toMatch(/not a theme name/);
    }
  });

  it('parses a theme once while its file is unchanged, and an edited file afresh', () => {
    writeFileSync(join(userDir, 'mine.json'), JSON.stringify({ ...bundled('dark'), name: 'mine', description: 'first' }));
    const a = loadTheme('mine', { dirs: { user: userDir } });
    const b = loadTheme('mine', { dirs: { user: userDir } });
    expect(a.ok && b.ok && a.theme === b.theme).toBe(true);
    writeFileSync(join(userDir, 'mine.json'), JSON.stringify({ ...bundled('dark'), name: 'mine', description: 'second' }));
    const c = loadTheme('mine', { dirs: { user: userDir } });
    expect(c.ok && c.theme.description).toBe('second');
    // An edit that breaks the file is reported, not hidden behind the theme parsed before.
    writeFileSync(join(userDir, 'mine.json'), JSON.stringify({ ...bundled('dark'), name: 'mine', muted: 'nope' }));
    const d = loadTheme('mine', { dirs: { user: userDir } });
    expect(!d.ok && d.error.message).toContain('muted: expected a colour');
  });

  it('bounds the file size before parsing', () => {
    writeFileSync(join(userDir, 'huge.json'), `{"name":"huge","description":"${'x'.repeat(70_000)}"}`);
    const r = loadTheme('huge', { dirs: { user: userDir } });
    expect(!r.ok && r.error.message).toMatch(/the limit is 65536/);
  });
});

describe('nextThemeName', () => {
  it('cycles and wraps', () => {
    expect(nextThemeName('dark', ['dark', 'high-contrast', 'light'])).toBe('high-contrast');
    expect(nextThemeName('light', ['dark', 'high-contrast', 'light'])).toBe('dark');
    expect(nextThemeName('gone', ['dark', 'light'])).toBe('dark');
    expect(nextThemeName('dark', [])).toBe('dark');
  });
});
