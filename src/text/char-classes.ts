// The table of single code points that must never reach the terminal as they are. `sanitize` decides what
// each class becomes (see its header); escape *sequences* (ESC ..., 8-bit CSI/OSC/...) are recognised first
// by `scanEscapeSequence`, so ESC and the C1 introducers appear here only as the controls they also are.
// "\n" and "\t" are not listed: they are structure, handled by `sanitize` itself.

export type CharClass =
  | 'c0' // C0 controls other than \n and \t (NUL, BEL, BS, CR, VT, FF, ESC ...): cursor and screen effects
  | 'del' // DEL
  | 'c1' // 8-bit controls U+0080–U+009F (some terminals act on them like ESC sequences)
  | 'bidi' // bidirectional embeddings, overrides, isolates and marks: reorder what the reader sees
  | 'invisible' // zero-width or blank-looking characters that hide text or fake names
  | 'joiner' // ZWJ, ZWNJ, soft hyphen: layout hints whose rendering differs between terminals
  | 'variationSelector' // selects a glyph variant; legitimate once after a character, a hiding place in runs
  | 'tag' // Unicode tag characters: invisible ASCII look-alikes ("ASCII smuggling" into agents)
  | 'lineBreak' // LINE / PARAGRAPH SEPARATOR: treated as newline
  | 'noncharacter'; // permanently unassigned code points

export type CodePointRange = readonly [first: number, last: number];

export interface CharClassRow {
  cls: CharClass;
  ranges: readonly CodePointRange[];
}

const noncharacterRanges: CodePointRange[] = [[0xfdd0, 0xfdef]];
for (let plane = 0; plane <= 0x10; plane++) noncharacterRanges.push([plane * 0x10000 + 0xfffe, plane * 0x10000 + 0xffff]);

export const CHAR_CLASSES: readonly CharClassRow[] = [
  { cls: 'c0', ranges: [[0x00, 0x08], [0x0b, 0x1f]] },
  { cls: 'del', ranges: [[0x7f, 0x7f]] },
  { cls: 'c1', ranges: [[0x80, 0x9f]] },
  {
    cls: 'bidi',
    ranges: [
      [0x061c, 0x061c], // ARABIC LETTER MARK
      [0x200e, 0x200f], // LRM, RLM
      [0x202a, 0x202e], // LRE, RLE, PDF, LRO, RLO
      [0x2066, 0x2069], // LRI, RLI, FSI, PDI
    ],
  },
  {
    cls: 'invisible',
    ranges: [
      [0x034f, 0x034f], // COMBINING GRAPHEME JOINER
      [0x115f, 0x1160], // HANGUL CHOSEONG / JUNGSEONG FILLER
      [0x17b4, 0x17b5], // KHMER VOWEL INHERENT AQ / AA
      [0x180b, 0x180f], // MONGOLIAN free variation selectors, vowel separator
      [0x200b, 0x200b], // ZERO WIDTH SPACE
      [0x2060, 0x2064], // WORD JOINER, invisible operators
      [0x206a, 0x206f], // deprecated format characters
      [0x3164, 0x3164], // HANGUL FILLER
      [0xfeff, 0xfeff], // ZERO WIDTH NO-BREAK SPACE / BOM
      [0xffa0, 0xffa0], // HALFWIDTH HANGUL FILLER
      [0xfff9, 0xfffb], // interlinear annotation
      [0x1bca0, 0x1bca3], // shorthand format controls
      [0x1d173, 0x1d17a], // musical symbol format controls
    ],
  },
  { cls: 'joiner', ranges: [[0x00ad, 0x00ad], [0x200c, 0x200d]] },
  { cls: 'variationSelector', ranges: [[0xfe00, 0xfe0f], [0xe0100, 0xe01ef]] },
  { cls: 'tag', ranges: [[0xe0000, 0xe007f]] },
  { cls: 'lineBreak', ranges: [[0x2028, 0x2029]] },
  { cls: 'noncharacter', ranges: noncharacterRanges },
];

interface FlatRange {
  first: number;
  last: number;
  cls: CharClass;
}

const SORTED: readonly FlatRange[] = CHAR_CLASSES.flatMap((row) =>
  row.ranges.map(([first, last]) => ({ first, last, cls: row.cls })),
).sort((a, b) => a.first - b.first);

const LATIN: readonly (CharClass | null)[] = Array.from({ length: 0xa0 }, (_, cp) => lookup(cp));

function lookup(cp: number): CharClass | null {
  let lo = 0;
  let hi = SORTED.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const r = SORTED[mid];
    if (!r) break;
    if (cp < r.first) hi = mid - 1;
    else if (cp > r.last) lo = mid + 1;
    else return r.cls;
  }
  return null;
}

/** The class of a code point that needs treatment, or null for an ordinary character (and for \n, \t). */
export function classifyCodePoint(cp: number): CharClass | null {
  if (cp === 0x0a || cp === 0x09) return null;
  if (cp < 0xa0) return LATIN[cp] ?? null;
  return lookup(cp);
}

function escapeForClass(cp: number): string {
  return cp <= 0xffff ? `\\u${cp.toString(16).padStart(4, '0')}` : `\\u{${cp.toString(16)}}`;
}

/**
 * Matches the first character `sanitize` has to look at: anything in the table, \n, \t, and lone surrogates
 * (with the `u` flag a surrogate range matches only unpaired halves). Built from the table, so the fast path
 * and the slow path cannot disagree.
 */
export const NEEDS_ATTENTION = new RegExp(
  `[\\t\\n\\ud800-\\udfff${SORTED.map((r) => `${escapeForClass(r.first)}-${escapeForClass(r.last)}`).join('')}]`,
  'u',
);
