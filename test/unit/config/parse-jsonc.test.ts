import { describe, expect, it } from 'vitest';
import { parseJsonc } from '../../../src/config/parse-jsonc.js';

describe('parseJsonc', () => {
  it('takes comments and trailing commas (JSONC)', () => {
    const r = parseJsonc('// my config\n{\n  "theme": "dark", /* for now */\n  "rows": [{"command": "x"},],\n}\n');
    expect(r).toEqual({ ok: true, value: { theme: 'dark', rows: [{ command: 'x' }] } });
  });

  it.each([
    ['{"a" 1}', 1, 6],
    ['{"a": 1 "b": 2}', 1, 9],
    ['{\n  "rows": [\n    {"command": "x"}\n    {"command": "y"}\n  ]\n}', 4, 5],
    ['{"a": tru}', 1, 7],
    ['{"a": "unterminated', 1, 7],
    ['', 1, 1],
  ])('%j: an error with its line and column', (text, line, column) => {
    const r = parseJsonc(text);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect({ line: r.line, column: r.column }).toEqual({ line, column });
      expect(r.problem).toMatch(/^(unknown word|expected|missing|unterminated|malformed|the file is empty)/);
    }
  });

  it('keeps "__proto__" an ordinary own key, never a prototype', () => {
    const r = parseJsonc('{"__proto__": {"polluted": true}, "a": 1}');
    expect(r.ok).toBe(true);
    const v = (r as { value: Record<string, unknown> }).value;
    expect(Object.getPrototypeOf(v)).toBe(Object.prototype);
    expect(Object.hasOwn(v, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('refuses hostile nesting instead of overflowing the stack', () => {
    const r = parseJsonc('['.repeat(100_000));
    expect(r).toMatchObject({ ok: false, problem: expect.stringMatching(/nested more than/) });
    // Brackets in strings and comments do not count.
    expect(parseJsonc(`{"a": "${'['.repeat(1000)}"} // ${'{'.repeat(1000)}`).ok).toBe(true);
  });
  it.each([
    '{"__proto__": {"polluted": true}, "a": 1}',
    '{"a": 1, "b": [1, 2.5e3, -0, null, true, "x\\u00e9\\ud83d\\ude00"], "a": 2}',
    '[[[]], {}, {"z": {"y": {"x": "\\""}}}]',
    '  "just a string"  ',
    `{"deep": ${'['.repeat(255)}${']'.repeat(255)}}`,
  ])('plain JSON (the quick path) gives what the tree parser gives: %j', (json) => {
    const quick = parseJsonc(json);
    // A comment makes it JSONC: the tree parser's value.
    const tree = parseJsonc(`${json}\n// a comment`);
    expect(quick.ok && tree.ok).toBe(true);
    const [a, b] = [(quick as { value: unknown }).value, (tree as { value: unknown }).value];
    expect(a).toEqual(b);
    // Same key order, same own keys ("__proto__" included), the same prototype.
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    if (typeof a === 'object' && a !== null) {
      expect(Reflect.ownKeys(a)).toEqual(Reflect.ownKeys(b as object));
      expect(Object.getPrototypeOf(a)).toBe(Object.getPrototypeOf(b));
    }
  });

  it('plain JSON nested past the bound is refused on the quick path too', () => {
    const r = parseJsonc(`${'['.repeat(300)}${']'.repeat(300)}`);
    expect(r).toMatchObject({ ok: false, problem: expect.stringMatching(/nested more than/) });
  });
});
