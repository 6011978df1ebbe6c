// Widths of text that Ink lays out (components/*.tsx, the composer's line window). Ink measures
// every line with string-width and cuts `wrap="truncate"` text by it; when swb pads or truncates
// that text to a width, it must count the same way or Ink cuts a character off, or wraps, a line we
// sized to fit. So this is string-width itself (the version Ink resolves, a direct dependency so
// the two stay one package), counted per grapheme cluster as string-width does: a ZWJ sequence, a
// flag or an emoji with VS16 is one 2-cell cluster here.
// Text the compositor paints itself (row headers, the attached status line) and the CLI use
// cell-width.ts instead, the terminal's per-code-point cells; test/unit/text/xterm-widths.test.ts
// shows where the two models differ. Only the server's UI imports this file, so `swb send` and the
// thin client never load string-width (test/unit/architecture.test.ts).
import stringWidth from 'string-width';
import { lazyGraphemeSegmenter } from './grapheme-segmenter.js';

// No Intl.Segmenter before a text needs one (grapheme-segmenter.ts says why).
const graphemes = lazyGraphemeSegmenter();

/** Cells Ink gives the string (ANSI escapes count nothing, as in Ink). */
export function inkWidth(str: string): number {
  return stringWidth(str);
}

/**
 * Cut `str` so Ink lays it out in `cells`, ending with `ellipsis` when something was cut. Cuts only
 * between grapheme clusters; a wide cluster that would straddle the edge is dropped (the result may
 * then be one cell narrower than `cells`).
 */
export function truncateToInkWidth(str: string, cells: number, ellipsis = '…'): string {
  if (cells <= 0) return '';
  if (stringWidth(str) <= cells) return str;
  const ellipsisWidth = stringWidth(ellipsis);
  if (ellipsisWidth > cells) return truncateToInkWidth(ellipsis, cells, '');
  const budget = cells - ellipsisWidth;
  let width = 0;
  let end = 0;
  for (const { segment, index } of graphemes.segment(str)) {
    width += stringWidth(segment);
    if (width > budget) break;
    end = index + segment.length;
  }
  return str.slice(0, end) + ellipsis;
}

/** Exactly `cells` wide to Ink: truncated with an ellipsis when too wide, padded with spaces otherwise. */
export function padToInkWidth(str: string, cells: number, align: 'left' | 'right' = 'left'): string {
  if (cells <= 0) return '';
  const fitted = truncateToInkWidth(str, cells);
  const pad = ' '.repeat(Math.max(0, cells - stringWidth(fitted)));
  return align === 'left' ? fitted + pad : pad + fitted;
}

/** The string's grapheme clusters, the units Ink's width is counted in. */
export function inkClusters(str: string): string[] {
  return Array.from(graphemes.segment(str), (s) => s.segment);
}
