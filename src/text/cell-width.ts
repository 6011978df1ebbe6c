// How many terminal cells a string occupies, with the classic per-code-point wcwidth model most terminals
// use: East Asian Wide/Fullwidth and emoji-presentation characters take 2 cells, combining marks, format
// characters and conjoining Hangul vowels/finals take 0, everything else printable takes 1. Control
// characters count 0 (sanitized text has none). A ZWJ sequence or a skin-tone modifier counts as the sum of
// its parts, which is how terminals without grapheme clustering draw them; `sanitize` removes ZWJ so the
// two views agree. Runs every frame: the BMP is a flat lookup table, astral planes a binary search.
// Why a generated table and not string-width: this is the terminal's count, code point by code point, for
// text swb places on the terminal's cells itself — the row headers and the attached status line the
// compositor paints beside rows' emulated screens, the cursor column sanitize expands tabs from, the CLI's
// output. Wide CJK, flags, VS16, combining marks and zero-width characters count here exactly as xterm
// advances them; string-width counts grapheme clusters (a ZWJ sequence or an emoji with VS16 is 2) and is
// used where Ink lays text out (ink-width.ts). test/unit/text/xterm-widths.test.ts checks the table against
// a real xterm and records where the three models differ (rows' xterm uses Unicode 11 widths, so emoji are
// two cells there as here; only characters newer than that and a few format characters differ). It is also free to load: `swb send` and the thin client carry no segmenter or emoji regex.

import { WIDE_RANGES, ZERO_WIDTH_RANGES } from './width-tables.js';

const BMP_WIDTH = buildBmpTable();

function buildBmpTable(): Uint8Array {
  const table = new Uint8Array(0x10000).fill(1);
  const fill = (ranges: readonly number[], width: number): void => {
    for (let i = 0; i < ranges.length; i += 2) {
      const first = ranges[i] ?? 0;
      const last = ranges[i + 1] ?? 0;
      if (first > 0xffff) break;
      table.fill(width, first, Math.min(last, 0xffff) + 1);
    }
  };
  fill(WIDE_RANGES, 2);
  fill(ZERO_WIDTH_RANGES, 0);
  table.fill(0, 0, 0x20); // C0
  table.fill(0, 0x7f, 0xa0); // DEL, C1
  return table;
}

function inRanges(ranges: readonly number[], cp: number): boolean {
  let lo = 0;
  let hi = ranges.length / 2 - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (cp < (ranges[mid * 2] ?? 0)) hi = mid - 1;
    else if (cp > (ranges[mid * 2 + 1] ?? 0)) lo = mid + 1;
    else return true;
  }
  return false;
}

/** Cells taken by one code point (0, 1 or 2). */
export function codePointWidth(cp: number): number {
  if (cp < 0x10000) return BMP_WIDTH[cp] ?? 1;
  if (inRanges(ZERO_WIDTH_RANGES, cp)) return 0;
  return inRanges(WIDE_RANGES, cp) ? 2 : 1;
}

/** Cells the string occupies on one terminal line. A lone surrogate counts 1 (drawn as U+FFFD). */
export function cellWidth(str: string): number {
  let width = 0;
  const n = str.length;
  for (let i = 0; i < n; i++) {
    const c = str.charCodeAt(i);
    if (c < 0x7f) {
      if (c >= 0x20) width++;
      continue;
    }
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < n) {
      const d = str.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        width += codePointWidth(((c - 0xd800) << 10) + (d - 0xdc00) + 0x10000);
        i++;
        continue;
      }
    }
    width += BMP_WIDTH[c] ?? 1;
  }
  return width;
}

/**
 * Cut `str` so it fits in `cells`, ending with `ellipsis` when something was cut. Never splits a surrogate
 * pair and keeps combining marks with the character they belong to; a wide character that would straddle
 * the edge is dropped (the result may then be one cell narrower than `cells`).
 */
export function truncateToWidth(str: string, cells: number, ellipsis = '…'): string {
  if (cells <= 0) return '';
  const ellipsisWidth = cellWidth(ellipsis);
  if (ellipsisWidth > cells) return truncateToWidth(ellipsis, cells, '');
  const budget = cells - ellipsisWidth;
  let width = 0;
  let cut = -1; // end index of the longest prefix that fits in `budget`
  const n = str.length;
  for (let i = 0; i < n; i++) {
    const start = i;
    const c = str.charCodeAt(i);
    let w: number;
    if (c < 0x7f) w = c >= 0x20 ? 1 : 0;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < n && (str.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      w = codePointWidth(((c - 0xd800) << 10) + (str.charCodeAt(i + 1) - 0xdc00) + 0x10000);
      i++;
    } else w = BMP_WIDTH[c] ?? 1;
    if (cut < 0 && width + w > budget) cut = start;
    width += w;
    if (width > cells) return str.slice(0, cut) + ellipsis;
  }
  return str;
}

/**
 * Exactly `cells` wide: truncated with an ellipsis when too wide, padded with spaces otherwise.
 */
export function padToWidth(str: string, cells: number, align: 'left' | 'right' = 'left'): string {
  if (cells <= 0) return '';
  const fitted = truncateToWidth(str, cells);
  const pad = ' '.repeat(Math.max(0, cells - cellWidth(fitted)));
  return align === 'left' ? fitted + pad : pad + fitted;
}
