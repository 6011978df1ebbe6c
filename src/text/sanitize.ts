// Makes untrusted text (mail, peer names, OSC titles, notification bodies) safe to write to a terminal
// (DESIGN §7). The output contains no ESC, no C0 control except "\n", no DEL, no C1 control, no bidi
// control, no lone surrogate, and is bounded in length and line count.
//
// What happens to each kind of input (placeholder: 'visible' is the default, 'strip' removes instead):
//   escape sequence (CSI/OSC/DCS/SOS/PM/APC/SS2/SS3/ESC x, 7- or 8-bit), whole ..... '␛' | removed
//   C0 control (NUL, BEL, BS, lone CR, VT, FF, ...) .................. control picture ('␀', '␈', '␍') | removed
//   DEL ....................................................................................... '␡' | removed
//   C1 control U+0080–U+009F not starting a sequence .......................................... '�' | removed
//   bidi control, invisible character, Unicode tag, stray variation selector,
//     a run of them shown once ................................................................ '�' | removed
//   ZWJ, ZWNJ, soft hyphen (rendering differs between terminals) ........................ removed in both modes
//   variation selector directly after a character (e.g. "❤️") ............................. kept in both modes
//   invalid UTF-8 (Uint8Array input), lone surrogate, noncharacter .......................... U+FFFD in both modes
//   CRLF, LINE SEPARATOR, PARAGRAPH SEPARATOR .............................................. "\n"
//   "\n" with singleLine ................................................................ '⏎' | ' '
//   "\t" ............................ spaces to the next multiple of tabWidth cells (column counted from the
//                                      start of the line, so a tab never reaches past the text it follows)
// Limits: at most maxLines lines and maxChars UTF-16 code units of content (newlines count); when anything is
// cut, a marker '…' is appended, followed by ' (+N lines)' when whole lines were hidden. The marker is at most
// TRUNCATION_MARKER_MAX code units, so the result never exceeds maxChars + TRUNCATION_MARKER_MAX.

import { cellWidth } from './cell-width.js';
import { classifyCodePoint, NEEDS_ATTENTION } from './char-classes.js';
import { scanEscapeSequence } from './escape-sequences.js';

export interface SanitizeOptions {
  /** Content cap in UTF-16 code units (default 4000). */
  maxChars?: number;
  /** Line cap (default 20; 1 with singleLine). */
  maxLines?: number;
  /** Newlines become '⏎' (visible) or a space (strip). */
  singleLine?: boolean;
  /** Show removed things as visible placeholders (default) or strip them silently. */
  placeholder?: 'visible' | 'strip';
  /** Tab stops every N cells (default 4). */
  tabWidth?: number;
}

export const PLACEHOLDERS = {
  sequence: '\u241b', // ␛
  del: '\u2421', // ␡
  hidden: '\ufffd', // � for C1, bidi, invisible, tag, stray variation selector
  newline: '\u23ce', // ⏎
} as const;

export const REPLACEMENT_CHARACTER = '\ufffd';
export const TRUNCATION_MARKER_MAX = 24;

const decoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });
const scanRe = new RegExp(NEEDS_ATTENTION.source, 'gu');

export function sanitize(input: string | Uint8Array, opts: SanitizeOptions = {}): string {
  const text = typeof input === 'string' ? input : decoder.decode(input);
  const maxChars = Math.max(0, Math.floor(opts.maxChars ?? 4000));
  if (text.length <= maxChars && !NEEDS_ATTENTION.test(text)) return text;
  return new SanitizeRun(text, opts, maxChars).run();
}

class SanitizeRun {
  private readonly visible: boolean;
  private readonly singleLine: boolean;
  private readonly maxLines: number;
  private readonly tabWidth: number;
  private readonly parts: string[] = [];
  private chars = 0;
  private lines = 1;
  /** Cells of the current line already accounted for, and the pieces written since (for tab stops). */
  private column = 0;
  private lineTail: string[] = [];
  /** The last thing written was an ordinary character (a variation selector may follow it). */
  private afterBase = false;
  /** The last thing written was the placeholder for a hidden format character (collapse runs). */
  private afterHidden = false;
  /** Once a limit is hit we only count what is left. */
  private cut = false;
  private hiddenContent = false;
  private hiddenNewlines = 0;
  private hiddenLines = 0;

  constructor(
    private readonly text: string,
    opts: SanitizeOptions,
    private readonly maxChars: number,
  ) {
    this.visible = opts.placeholder !== 'strip';
    this.singleLine = opts.singleLine === true;
    this.maxLines = this.singleLine ? 1 : Math.max(1, Math.floor(opts.maxLines ?? 20));
    this.tabWidth = Math.max(1, Math.floor(opts.tabWidth ?? 4));
  }

  run(): string {
    const text = this.text;
    const n = text.length;
    let i = 0;
    while (i < n) {
      scanRe.lastIndex = i;
      const found = scanRe.exec(text);
      const next = found ? found.index : n;
      if (next > i) {
        this.write(text.slice(i, next), 'base');
        i = next;
        if (i >= n) break;
      }
      i = this.special(i);
    }
    let out = this.parts.join('');
    if (this.hiddenContent) {
      const h = this.hiddenLines;
      out += h > 0 ? `… (+${h} line${h === 1 ? '' : 's'})` : '…';
    }
    return out;
  }

  /** Handles the special character at `i` (known to need attention); returns the next index. */
  private special(i: number): number {
    const text = this.text;
    const c = text.charCodeAt(i);
    if (c === 0x0a) {
      this.newline();
      return i + 1;
    }
    if (c === 0x09) {
      this.tab();
      return i + 1;
    }
    if (c === 0x0d && text.charCodeAt(i + 1) === 0x0a) {
      this.newline();
      return i + 2;
    }
    const seq = scanEscapeSequence(text, i);
    if (seq) {
      this.placeholder(PLACEHOLDERS.sequence);
      return Math.max(seq.end, i + 1);
    }
    let cp = c;
    let width = 1;
    if (c >= 0xd800 && c <= 0xdfff) {
      const d = text.charCodeAt(i + 1);
      if (c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff) {
        cp = ((c - 0xd800) << 10) + (d - 0xdc00) + 0x10000;
        width = 2;
      } else {
        this.write(REPLACEMENT_CHARACTER, 'other'); // lone surrogate
        return i + 1;
      }
    }
    const cls = classifyCodePoint(cp);
    switch (cls) {
      case 'c0':
        this.placeholder(String.fromCharCode(0x2400 + cp));
        break;
      case 'del':
        this.placeholder(PLACEHOLDERS.del);
        break;
      case 'c1':
        this.placeholder(PLACEHOLDERS.hidden);
        break;
      case 'bidi':
      case 'invisible':
      case 'tag':
        this.hidden();
        break;
      case 'joiner':
        break;
      case 'variationSelector':
        if (this.afterBase) this.write(text.slice(i, i + width), 'selector');
        else this.hidden();
        break;
      case 'lineBreak':
        this.newline();
        break;
      case 'noncharacter':
        this.write(REPLACEMENT_CHARACTER, 'other');
        break;
      case null:
        this.write(text.slice(i, i + width), 'base'); // a valid astral pair outside the table
        break;
    }
    return i + width;
  }

  private placeholder(glyph: string): void {
    if (this.visible) this.write(glyph, 'other');
  }

  private hidden(): void {
    if (!this.visible || this.afterHidden) return;
    this.write(PLACEHOLDERS.hidden, 'other');
    this.afterHidden = true;
  }

  private write(piece: string, kind: 'base' | 'selector' | 'other'): void {
    if (this.cut) {
      this.noteHidden();
      return;
    }
    let text = piece;
    const room = this.maxChars - this.chars;
    if (text.length > room) {
      let take = room;
      const last = text.charCodeAt(take - 1);
      if (take > 0 && last >= 0xd800 && last <= 0xdbff) take--; // never split a surrogate pair
      text = text.slice(0, take);
      this.startCut(0);
      this.noteHidden();
    }
    if (text.length > 0) {
      this.parts.push(text);
      this.lineTail.push(text);
      this.chars += text.length;
    }
    this.afterBase = kind === 'base' && text.length > 0;
    this.afterHidden = false;
  }

  private newline(): void {
    if (this.cut) {
      this.hiddenNewlines++;
      return;
    }
    if (this.singleLine) {
      this.write(this.visible ? PLACEHOLDERS.newline : ' ', 'other');
      return;
    }
    if (this.lines >= this.maxLines || this.chars >= this.maxChars) {
      this.startCut(1);
      return;
    }
    this.parts.push('\n');
    this.chars++;
    this.lines++;
    this.column = 0;
    this.lineTail = [];
    this.afterBase = false;
    this.afterHidden = false;
  }

  private tab(): void {
    if (this.cut) {
      this.noteHidden();
      return;
    }
    if (this.lineTail.length > 0) {
      this.column += cellWidth(this.lineTail.join(''));
      this.lineTail = [];
    }
    const spaces = this.tabWidth - (this.column % this.tabWidth);
    this.write(' '.repeat(spaces), 'other');
  }

  private startCut(newlines: number): void {
    this.cut = true;
    this.hiddenNewlines = newlines;
  }

  private noteHidden(): void {
    this.hiddenContent = true;
    if (this.hiddenNewlines > this.hiddenLines) this.hiddenLines = this.hiddenNewlines;
  }
}
