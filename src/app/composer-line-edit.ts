// Single-line editing as a pure function of (text, cursor) and one key: what the composer's input does
// with printable text, Backspace, the arrows, Home/End and the readline keys Ctrl-A/E/U/K/W.
// Typed or pasted text is cleaned before it enters the line (no control characters, no escapes).
// The window onto the line is measured with ink-width.ts (string-width, by grapheme cluster): Ink lays
// the composer out, so the window must fit by Ink's count, not the terminal's per-code-point one.
import type { InkKeyLike } from '../config/match-ink-input.js';
import { inkClusters, inkWidth, truncateToInkWidth } from '../text/ink-width.js';
import { sanitize } from '../text/sanitize.js';

export interface Line {
  text: string;
  /** UTF-16 index, 0..text.length, never inside a surrogate pair. */
  cursor: number;
}

export const MAX_LINE = 16_384;

function prevBoundary(text: string, i: number): number {
  if (i <= 0) return 0;
  const code = text.charCodeAt(i - 1);
  return code >= 0xdc00 && code <= 0xdfff && i >= 2 ? i - 2 : i - 1;
}

function nextBoundary(text: string, i: number): number {
  if (i >= text.length) return text.length;
  const code = text.charCodeAt(i);
  return code >= 0xd800 && code <= 0xdbff && i + 1 < text.length ? i + 2 : i + 1;
}

/** Text the operator typed or pasted, made safe for one line. */
export function cleanInput(input: string): string {
  return sanitize(input.replace(/\r\n|\r|\n/g, ' '), { singleLine: true, placeholder: 'strip', maxChars: MAX_LINE, tabWidth: 1 });
}

export function insertText(line: Line, input: string): Line {
  const clean = cleanInput(input).slice(0, Math.max(0, MAX_LINE - line.text.length));
  if (clean === '') return line;
  return { text: line.text.slice(0, line.cursor) + clean + line.text.slice(line.cursor), cursor: line.cursor + clean.length };
}

/**
 * One key applied to the line, or null when the key is not an editing key (Enter, Tab, Esc, Up/Down
 * and other control chords are the caller's). Ink reports the Backspace key as `delete`, so both erase
 * backwards.
 */
export function editLine(line: Line, input: string, key: InkKeyLike): Line | null {
  const { text, cursor } = line;
  if (key.return || key.escape || key.tab || key.upArrow || key.downArrow || key.pageUp || key.pageDown) return null;
  if (key.leftArrow) return { text, cursor: key.ctrl || key.meta ? wordStart(text, cursor) : prevBoundary(text, cursor) };
  if (key.rightArrow) return { text, cursor: key.ctrl || key.meta ? wordEnd(text, cursor) : nextBoundary(text, cursor) };
  if (key.home) return { text, cursor: 0 };
  if (key.end) return { text, cursor: text.length };
  if (key.backspace || key.delete) {
    if (key.meta) return killWordBack(line);
    const from = prevBoundary(text, cursor);
    return { text: text.slice(0, from) + text.slice(cursor), cursor: from };
  }
  if (key.ctrl) {
    switch (input) {
      case 'a':
        return { text, cursor: 0 };
      case 'e':
        return { text, cursor: text.length };
      case 'b':
        return { text, cursor: prevBoundary(text, cursor) };
      case 'f':
        return { text, cursor: nextBoundary(text, cursor) };
      case 'u':
        return { text: text.slice(cursor), cursor: 0 };
      case 'k':
        return { text: text.slice(0, cursor), cursor };
      case 'w':
        return killWordBack(line);
      case 'd': {
        const to = nextBoundary(text, cursor);
        return { text: text.slice(0, cursor) + text.slice(to), cursor };
      }
      default:
        return null;
    }
  }
  if (key.meta) return null;
  if (input === '') return null;
  return insertText(line, input);
}

function wordStart(text: string, from: number): number {
  let i = from;
  while (i > 0 && /\s/.test(text[i - 1] ?? '')) i--;
  while (i > 0 && !/\s/.test(text[i - 1] ?? '')) i--;
  return i;
}

function wordEnd(text: string, from: number): number {
  let i = from;
  while (i < text.length && /\s/.test(text[i] ?? '')) i++;
  while (i < text.length && !/\s/.test(text[i] ?? '')) i++;
  return i;
}

function killWordBack(line: Line): Line {
  const from = wordStart(line.text, line.cursor);
  return { text: line.text.slice(0, from) + line.text.slice(line.cursor), cursor: from };
}

export interface LineWindow {
  /** Text left of the cursor that fits (with a leading '…' when cut). */
  before: string;
  /** The character under the cursor (a space at the end of the line). */
  at: string;
  /** Text right of the cursor that fits (with a trailing '…' when cut). */
  after: string;
}

/** The part of the line to show in `width` cells, keeping the cursor visible. */
export function lineWindow(line: Line, width: number): LineWindow {
  const { text, cursor } = line;
  const end = nextBoundary(text, cursor);
  const at = cursor < text.length ? text.slice(cursor, end) : ' ';
  const atWidth = Math.max(1, inkWidth(at));
  if (width <= atWidth) return { before: '', at, after: '' };
  // Cut whole clusters from the left: their widths add up to the width of what is left.
  const clusters = inkClusters(text.slice(0, cursor));
  let beforeWidth = inkWidth(text.slice(0, cursor));
  let cut = 0;
  while (cut < clusters.length && beforeWidth + atWidth + (cut > 0 ? 1 : 0) > width) beforeWidth -= inkWidth(clusters[cut++]!);
  const before = (cut > 0 ? '…' : '') + clusters.slice(cut).join('');
  const room = width - inkWidth(before) - atWidth;
  return { before, at, after: truncateToInkWidth(text.slice(end), room) };
}
