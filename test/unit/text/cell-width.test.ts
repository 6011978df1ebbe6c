import { describe, expect, it } from 'vitest';
import { cellWidth, codePointWidth, padToWidth, truncateToWidth } from '../../../src/text/cell-width.js';

describe('cellWidth', () => {
  it.each([
    ['', 0],
    ['hello', 5],
    ['日本語', 6],
    ['中文：', 6],
    ['한국어', 6],
    ['ｶﾀｶﾅ', 4], // halfwidth katakana
    ['ＡＢ', 4], // fullwidth Latin
    ['e\u0301', 1], // combining acute
    ['ñ', 1],
    ['a\u0300\u0301\u0302\u0303', 1], // stacked marks
    ['\u1100\u1161\u11a8', 2], // conjoining jamo: one syllable
    ['😀', 2],
    ['🎉👍', 4],
    ['👍🏽', 4], // modifier drawn separately by per-code-point terminals
    ['🇯🇵', 2], // regional indicators: one cell each
    ['👨\u200d👩', 4], // ZWJ is zero width
    ['❤', 1],
    ['❤️', 1], // text-presentation base + VS16: the selector adds nothing
    ['a\u200bb', 2],
    ['\u00ad', 0],
    ['\x1b[31m', 4], // ESC itself 0; sanitize text before measuring
    ['\u{20000}\u{2fffd}', 4], // CJK extension planes
    ['\ud800', 1], // lone surrogate shows as U+FFFD
  ])('%j is %i cells', (s, w) => {
    expect(cellWidth(s)).toBe(w);
  });

  it('agrees with the Unicode properties of this Node for marks and emoji presentation', () => {
    const mark = /[\p{Mn}\p{Me}]/u;
    const emoji = /\p{Emoji_Presentation}/u;
    for (let cp = 0; cp < 0x30000; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      const ch = String.fromCodePoint(cp);
      if (mark.test(ch)) expect(codePointWidth(cp), `U+${cp.toString(16)}`).toBe(0);
      else if (emoji.test(ch) && !(cp >= 0x1f1e6 && cp <= 0x1f1ff)) expect(codePointWidth(cp), `U+${cp.toString(16)}`).toBe(2);
    }
  });
});

describe('truncateToWidth', () => {
  it('leaves text that fits alone', () => {
    expect(truncateToWidth('hello', 5)).toBe('hello');
    expect(truncateToWidth('日本', 4)).toBe('日本');
  });

  it('cuts with an ellipsis that fits in the width', () => {
    expect(truncateToWidth('hello world', 5)).toBe('hell…');
    expect(truncateToWidth('hello', 4, '...')).toBe('h...');
    expect(truncateToWidth('hello', 3, '')).toBe('hel');
  });

  it('never splits a wide character or a surrogate pair', () => {
    expect(truncateToWidth('日本語', 5)).toBe('日本…');
    expect(truncateToWidth('日本語', 4)).toBe('日…');
    expect(cellWidth(truncateToWidth('日本語', 4))).toBe(3);
    expect(truncateToWidth('😀😀😀', 3)).toBe('😀…');
  });

  it('keeps combining marks with their base character', () => {
    expect(truncateToWidth('e\u0301e\u0301e\u0301x', 3)).toBe('e\u0301e\u0301…');
  });

  it('handles tiny widths', () => {
    expect(truncateToWidth('hello', 1)).toBe('…');
    expect(truncateToWidth('hello', 0)).toBe('');
    expect(truncateToWidth('hello', 1, '...')).toBe('.');
  });
});

describe('padToWidth', () => {
  it('pads to exactly the width', () => {
    expect(padToWidth('ab', 4)).toBe('ab  ');
    expect(padToWidth('ab', 4, 'right')).toBe('  ab');
    expect(padToWidth('日本', 5)).toBe('日本 ');
  });

  it('truncates and still fills the width', () => {
    const out = padToWidth('日本語', 4);
    expect(out).toBe('日… ');
    expect(cellWidth(out)).toBe(4);
  });
});

describe('speed', () => {
  it('measures a megabyte of mixed text quickly', () => {
    const s = 'abc 日本 é 😀 '.repeat(80_000);
    const t0 = performance.now();
    const w = cellWidth(s);
    const ms = performance.now() - t0;
    expect(w).toBe(14 * 80_000);
    expect(ms).toBeLessThan(500); // typically ~5 ms; generous for slow CI
  });
});
