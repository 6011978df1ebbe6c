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
});
