import { describe, expect, it } from 'vitest';
import { oneByteSource } from '../../../src/util/one-byte-source.js';

/** Runs `source` as a function body and returns what it returns. */
const run = (source: string): unknown => new Function(source)();

describe('oneByteSource', () => {
  it('leaves nothing above U+00FF, and keeps Latin-1 and ASCII as written', () => {
    const out = oneByteSource('// a dash — an arrow → µ é\nreturn 1;');
    expect(out).toBe('// a dash \\u2014 an arrow \\u2192 µ é\nreturn 1;');
    expect([...out].every((c) => c.charCodeAt(0) <= 0xff)).toBe(true);
  });

  it('is the same program: strings, templates, regular expressions (with and without u) and astral characters', () => {
    const source = [
      '/* ✉ a comment ⏎ */',
      'const s = "a — b";',
      'const t = `x ${1 + 1} → y`;',
      'const r = /(ns|µs|—)/.exec("10—")[1];',
      'const u = /^😀.$/u.test("😀→");',
      'const v = "😀".length;',
      'return [s, t, r, u, v];',
    ].join('\n');
    const out = oneByteSource(source);
    expect(out).not.toMatch(/[^\x00-\xff]/);
    expect(run(out)).toEqual(run(source));
    expect(run(out)).toEqual(['a — b', 'x 2 → y', '—', true, 2]);
  });

  it('an identity escape of a wide character (\\—) becomes its \\u escape, not an escaped backslash', () => {
    const source = 'return ["\\—", /\\—/.test("—"), "\\\\—"];';
    const out = oneByteSource(source);
    expect(out).toBe('return ["\\u2014", /\\u2014/.test("\\u2014"), "\\\\\\u2014"];');
    expect(run(out)).toEqual(run(source));
  });
});
