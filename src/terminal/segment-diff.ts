// What a piece of chrome (a row header) needs sent when its text changed: the cells that differ,
// not the whole line again. A header's age turning "<1m" into " 1m" changes one cell of a line of
// 40 to 200; sending the line and its colours cost ~165 bytes a header, 2.6 KB a minute for an idle
// dashboard of 16 rows where tmux sends a few hundred bytes. The texts are ANSI lines as the views
// render them (printable characters and SGR sequences): each is read into cells, a character and
// the SGR in force for it, and the changed span is rendered from the new text's cells, its style
// set first and reset after. Anything else in a text (another escape, a control character) makes
// the whole text the answer, as before.
import { codePointWidth } from '../text/cell-width.js';
import { SGR_RESET } from './escapes.js';

/** One cell of a segment: its character(s) and the SGR in force; `width` 0 marks the right half of a wide one. */
interface SegmentCell {
  text: string;
  style: string;
  width: number;
}

/** The change to send: `text` (ANSI) drawn from column `offset` of the segment. */
export interface SegmentChange {
  offset: number;
  text: string;
}

/** SGR sequences (CSI ... m) with numeric parameters, the only escapes a segment may hold to be diffed. */
const SGR = /^\x1b\[([0-9;:]*)m/;

/** The cells `text` covers, or null when it holds anything but printable text and SGR sequences. */
export function segmentCells(text: string): SegmentCell[] | null {
  const cells: SegmentCell[] = [];
  let style = '';
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === 0x1b) {
      const m = SGR.exec(text.slice(i, i + 64));
      if (!m) return null;
      const params = m[1]!;
      // A reset ends what was in force (`0;...` then sets its own); any other SGR adds to it.
      if (params === '' || params === '0') style = '';
      else if (params.startsWith('0;')) style = m[0];
      else style += m[0];
      i += m[0].length;
      continue;
    }
    if (c < 0x20 || c === 0x7f) return null;
    const cp = text.codePointAt(i)!;
    const units = cp > 0xffff ? 2 : 1;
    const ch = text.slice(i, i + units);
    i += units;
    const width = codePointWidth(cp);
    if (width === 0) {
      // A combining mark or zero-width character joins the cell before it.
      const last = cells[cells.length - 1];
      if (last === undefined) return null;
      const owner = last.width === 0 ? cells[cells.length - 2]! : last;
      owner.text += ch;
      continue;
    }
    cells.push({ text: ch, style, width });
    if (width === 2) cells.push({ text: '', style, width: 0 });
  }
  return cells;
}

const sameCell = (a: SegmentCell | undefined, b: SegmentCell | undefined): boolean => a !== undefined && b !== undefined && a.text === b.text && a.style === b.style && a.width === b.width;

/**
 * The part of `next` that differs from `prev` on the terminal, as ANSI text from a column of the
 * segment; null when nothing differs; the whole of `next` (offset 0) when the two cannot be
 * compared cell by cell (other escapes, other widths).
 */
export function segmentChange(prev: string, next: string): SegmentChange | null {
  if (prev === next) return null;
  const whole = { offset: 0, text: next };
  const a = segmentCells(prev);
  const b = segmentCells(next);
  if (a === null || b === null || a.length !== b.length) return whole;
  let start = 0;
  while (start < b.length && sameCell(a[start], b[start])) start++;
  if (start === b.length) return null;
  let end = b.length - 1;
  while (end > start && sameCell(a[end], b[end])) end--;
  // Never half a wide character, in either version: widen to its left half, and past its right one.
  while (start > 0 && (a[start]!.width === 0 || b[start]!.width === 0)) start--;
  while (end < b.length - 1 && (a[end + 1]!.width === 0 || b[end + 1]!.width === 0)) end++;
  let out = '';
  let style: string | null = null;
  for (let x = start; x <= end; x++) {
    const cell = b[x]!;
    if (cell.width === 0) continue;
    if (cell.style !== style) {
      // A style that starts with its own reset needs none before it.
      out += cell.style.startsWith('\x1b[0;') ? cell.style : SGR_RESET + cell.style;
      style = cell.style;
    }
    out += cell.text;
  }
  return { offset: start, text: out + SGR_RESET };
}
