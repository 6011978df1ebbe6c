// The three width models swb meets, side by side on one sample of hard text:
//  - xterm: the cells a row's emulated screen advances (a RowScreen, the terminal the compositor paints rows
//    from, as swb constructs it: @xterm/headless with the Unicode 11 widths of @xterm/addon-unicode11);
//  - the table (cellWidth, src/text/cell-width.ts): the per-code-point cells swb counts for text it paints
//    itself beside those screens (row headers, the attached status line) and for the CLI;
//  - string-width (inkWidth, src/text/ink-width.ts): what Ink counts when it lays out the chrome.
// The first block asserts the table matches xterm; the next two record, value by value, where the models part,
// so the choice of which to use where stays an informed one (and a change in xterm or string-width shows here).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RowScreen } from '../../../src/rows/row-screen.js';
import { cellWidth } from '../../../src/text/cell-width.js';
import { inkWidth } from '../../../src/text/ink-width.js';

/** Where the table and xterm agree: wide CJK, flags, VS16, combining marks, zero-width characters. */
const AGREE: ReadonlyArray<readonly [label: string, text: string]> = [
  ['CJK ideographs', '漢字'],
  ['kana', 'ひらがなカタカナ'],
  ['Hangul syllables', '한국어'],
  ['conjoining jamo (one syllable)', '\u1100\u1161\u11a8'],
  ['CJK punctuation and ideographic space', '、。\u3000'],
  ['fullwidth Latin', 'ＡＢ'],
  ['halfwidth katakana, with a voiced mark', 'ｶﾀｶﾅｶﾞ'],
  ['CJK extension B (astral, wide)', '\u{20000}\u{2a6d6}'],
  ['a flag (two regional indicators)', '🇯🇵'],
  ['two flags', '🇺🇳🇫🇷'],
  ['a lone regional indicator', '🇯'],
  ['text-default emoji + VS16', '❤️☺️✔️'],
  ['keycap sequence', '1️⃣#️⃣'],
  ['text-presentation symbols', '❤✔©™→…█─Ω'],
  ['combining acute', 'e\u0301'],
  ['stacked combining marks', 'a\u0300\u0301\u0302'],
  ['Thai tone mark', 'ก่'],
  ['Devanagari conjunct with a spacing vowel sign', 'क्षि'],
  ['combining enclosing circle', 'a\u20dd'],
  ['Hebrew points', 'שָׁ'],
  ['Arabic harakat', 'بِسْمِ'],
  ['zero width space', 'a\u200bb'],
  ['zero width non-joiner', 'a\u200cb'],
  ['zero width joiner between letters', 'a\u200db'],
  ['word joiner', 'a\u2060b'],
  ['BOM / zero width no-break space', 'a\ufeffb'],
  ['combining grapheme joiner', 'a\u034fb'],
  ['VS16 after a letter', 'x\ufe0f'],
  ['a tag character', 'a\u{e0041}b'],
  // Wide since Unicode 9, and so in a row (Unicode 11 widths) as on the operator's terminal.
  ['emoji presentation', '😀'],
  ['check mark button', '✅'],
  ['watch (BMP emoji)', '⌚'],
  ['mahjong tile', '🀄'],
  ['skin tone modifier', '👍🏽'],
  ['ZWJ family', '👨‍👩‍👧'],
  ['ZWJ with VS16 (rainbow flag)', '🏳️‍🌈'],
  ['ZWJ profession', '🧑‍💻'],
  ['kana supplement', '\u{1b000}'],
  ['enclosed ideographic supplement', '\u{1f200}'],
];

/**
 * Where the table and the rows' xterm part. Rows use Unicode 11 widths (@xterm/addon-unicode11; xterm's
 * own default, Unicode 6, made every emoji one cell); the table follows this Node's Unicode, as current
 * terminals do: what Unicode 11 did not know yet, and a few format characters, differ. Compositor-painted
 * chrome keeps the table: it must fit the operator's terminal.
 */
const TABLE_VS_XTERM: ReadonlyArray<readonly [label: string, text: string, widths: { xterm: number; table: number }]> = [
  ['Unicode 15 emoji', '🫨', { xterm: 1, table: 2 }],
  ['soft hyphen', '\u00ad', { xterm: 1, table: 0 }],
  ['prepended concatenation mark', '\u0600', { xterm: 0, table: 1 }],
  ['a mark newer than Unicode 6', '\u{16fe4}', { xterm: 1, table: 0 }],
];

/**
 * Where string-width (Ink) and xterm part, over every sample above; everything not listed here agrees.
 * string-width counts grapheme clusters: a sequence with VS16, a keycap, a ZWJ sequence or a modifier is one
 * 2-cell emoji, a Devanagari conjunct one cluster. Terminals that, like xterm, draw code point by code point
 * disagree. That is why Ink's text is measured with string-width (Ink's layout has to agree with our padding)
 * and nothing that must land on xterm's cells is.
 */
const INK_VS_XTERM: Readonly<Record<string, { xterm: number; ink: number }>> = {
  '❤️☺️✔️': { xterm: 3, ink: 6 },
  '1️⃣#️⃣': { xterm: 2, ink: 4 },
  'क्षि': { xterm: 3, ink: 2 },
  '🫨': { xterm: 1, ink: 2 },
  '👍🏽': { xterm: 4, ink: 2 },
  '👨‍👩‍👧': { xterm: 6, ink: 2 },
  '🏳️‍🌈': { xterm: 3, ink: 2 },
  '🧑‍💻': { xterm: 4, ink: 2 },
  '\u00ad': { xterm: 1, ink: 0 },
  '\u{16fe4}': { xterm: 1, ink: 0 },
};

const SAMPLES = [...AGREE.map(([, text]) => text), ...TABLE_VS_XTERM.map(([, text]) => text)];

/** How many cells xterm advanced for each sample, read back from its buffer cells. */
const advance = new Map<string, number>();
let screen: RowScreen;

beforeAll(async () => {
  // Each sample on its own line between an 'x' (a base for lone marks) and a '|' (the end mark).
  screen = new RowScreen({ cols: 40, rows: SAMPLES.length + 1, scrollback: 0 });
  screen.write(SAMPLES.map((s) => `x${s}|`).join('\r\n'));
  await screen.flush();
  const cell = screen.buffer.getNullCell();
  SAMPLES.forEach((text, y) => {
    const line = screen.buffer.getLine(y)!;
    // Walk the cells as the compositor does (render-viewport.ts): by each cell's own width.
    let x = 1;
    while (x < line.length && line.getCell(x, cell)!.getChars() !== '|') x += Math.max(1, cell.getWidth());
    if (x >= line.length) throw new Error(`no end mark after ${JSON.stringify(text)}`);
    advance.set(text, x - 1);
  });
});

afterAll(() => screen.dispose());

describe('the width table against xterm', () => {
  it.each(AGREE)('%s: cellWidth is what xterm advances', (_label, text) => {
    expect(cellWidth(text)).toBe(advance.get(text));
  });

  it('a wide character takes a 2-wide cell and an empty 0-wide one, as the compositor reads them', () => {
    const cell = screen.buffer.getNullCell();
    const line = screen.buffer.getLine(0)!; // x漢字|
    expect([1, 2, 3, 4].map((x) => line.getCell(x, cell)!.getWidth())).toEqual([2, 0, 2, 0]);
  });

  it.each(TABLE_VS_XTERM)('%s: xterm and the table differ as recorded', (_label, text, widths) => {
    expect({ xterm: advance.get(text), table: cellWidth(text) }).toEqual(widths);
  });
});

describe('string-width (Ink) against xterm', () => {
  it.each(SAMPLES)('%j', (text) => {
    const xterm = advance.get(text)!;
    expect({ xterm, ink: inkWidth(text) }).toEqual(INK_VS_XTERM[text] ?? { xterm, ink: xterm });
  });
});
