// Recognises terminal escape sequences (ECMA-48 / xterm) so `sanitize` can drop each one whole: introducer,
// parameters, payload and terminator. Table-driven: one row per introducer, reachable both as ESC + a
// 7-bit byte and as the 8-bit C1 code point. The rules err on the side of swallowing: a string sequence
// (OSC, DCS, SOS, PM, APC) runs to BEL, ST (ESC \ or U+009C), CAN/SUB, or the end of the input; a new
// ESC inside it ends it and starts the next sequence. Whatever a sequence swallows never reaches the
// screen, and whatever it does not swallow is still sanitized character by character, so a misjudged
// boundary can only change which harmless text is shown, never let a control through.

export type SequenceClass =
  | 'CSI' // ESC [ / U+009B — cursor moves, erases, colours, modes, device reports
  | 'OSC' // ESC ] / U+009D — titles (0/2), hyperlinks (8), clipboard (52), colours
  | 'DCS' // ESC P / U+0090 — device control strings (sixel, DECRQSS, tmux passthrough)
  | 'SOS' // ESC X / U+0098
  | 'PM' // ESC ^ / U+009E
  | 'APC' // ESC _ / U+009F — kitty graphics and others
  | 'SS2' // ESC N / U+008E — single shift: the next character comes from G2
  | 'SS3' // ESC O / U+008F — single shift: the next character comes from G3
  | 'nF' // ESC, intermediates 0x20–0x2F, final 0x30–0x7E — charset designation (ESC ( 0), DECALN (ESC # 8)
  | 'ESC' // ESC + one final 0x30–0x7E — RIS (ESC c), save/restore cursor (ESC 7/8), index, keypad modes
  | 'loneESC'; // ESC followed by nothing usable

type Body = 'control' | 'string' | 'single';

export interface IntroducerRow {
  cls: SequenceClass;
  /** The byte after ESC in the 7-bit form. */
  escFinal: string;
  /** The 8-bit C1 code point. */
  c1: number;
  body: Body;
}

export const INTRODUCERS: readonly IntroducerRow[] = [
  { cls: 'CSI', escFinal: '[', c1: 0x9b, body: 'control' },
  { cls: 'OSC', escFinal: ']', c1: 0x9d, body: 'string' },
  { cls: 'DCS', escFinal: 'P', c1: 0x90, body: 'string' },
  { cls: 'SOS', escFinal: 'X', c1: 0x98, body: 'string' },
  { cls: 'PM', escFinal: '^', c1: 0x9e, body: 'string' },
  { cls: 'APC', escFinal: '_', c1: 0x9f, body: 'string' },
  { cls: 'SS2', escFinal: 'N', c1: 0x8e, body: 'single' },
  { cls: 'SS3', escFinal: 'O', c1: 0x8f, body: 'single' },
];

const ESC = 0x1b;
const BEL = 0x07;
const CAN = 0x18;
const SUB = 0x1a;
const ST8 = 0x9c;
const BACKSLASH = 0x5c;

const BY_ESC_FINAL = new Map<number, IntroducerRow>(INTRODUCERS.map((r) => [r.escFinal.charCodeAt(0), r]));
const BY_C1 = new Map<number, IntroducerRow>(INTRODUCERS.map((r) => [r.c1, r]));

export interface ScannedSequence {
  cls: SequenceClass;
  /** Index just past the sequence. */
  end: number;
  /** False when the input ended, or another control cut the sequence short. */
  terminated: boolean;
}

/**
 * If `text[start]` begins an escape sequence (ESC, or an 8-bit C1 introducer listed in INTRODUCERS), returns
 * its class and extent; otherwise null. Other C1 controls are single characters, classified by char-classes.
 */
export function scanEscapeSequence(text: string, start: number): ScannedSequence | null {
  const first = text.charCodeAt(start);
  if (first === ESC) {
    if (start + 1 >= text.length) return { cls: 'loneESC', end: start + 1, terminated: false };
    const next = text.charCodeAt(start + 1);
    const row = BY_ESC_FINAL.get(next);
    if (row) return scanBody(text, start + 2, row);
    if (next >= 0x20 && next <= 0x2f) {
      let i = start + 2;
      while (i < text.length && text.charCodeAt(i) >= 0x20 && text.charCodeAt(i) <= 0x2f) i++;
      const final = text.charCodeAt(i);
      if (final >= 0x30 && final <= 0x7e) return { cls: 'nF', end: i + 1, terminated: true };
      return { cls: 'nF', end: i, terminated: false };
    }
    if (next >= 0x30 && next <= 0x7e) return { cls: 'ESC', end: start + 2, terminated: true };
    return { cls: 'loneESC', end: start + 1, terminated: false };
  }
  const row = BY_C1.get(first);
  return row ? scanBody(text, start + 1, row) : null;
}

function scanBody(text: string, from: number, row: IntroducerRow): ScannedSequence {
  const cls = row.cls;
  const n = text.length;
  if (row.body === 'single') {
    const c = text.charCodeAt(from);
    return c >= 0x20 && c <= 0x7e ? { cls, end: from + 1, terminated: true } : { cls, end: from, terminated: false };
  }
  if (row.body === 'control') {
    // Parameter bytes 0x30–0x3F and intermediates 0x20–0x2F, then one final byte 0x40–0x7E.
    for (let i = from; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c >= 0x20 && c <= 0x3f) continue;
      if (c >= 0x40 && c <= 0x7e) return { cls, end: i + 1, terminated: true };
      if (c === CAN || c === SUB) return { cls, end: i + 1, terminated: false };
      return { cls, end: i, terminated: false }; // anything else cuts it short and is looked at on its own
    }
    return { cls, end: n, terminated: false };
  }
  for (let i = from; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === BEL || c === ST8) return { cls, end: i + 1, terminated: true };
    if (c === ESC) {
      if (text.charCodeAt(i + 1) === BACKSLASH) return { cls, end: i + 2, terminated: true };
      return { cls, end: i, terminated: false };
    }
    if (c === CAN || c === SUB) return { cls, end: i + 1, terminated: false };
  }
  return { cls, end: n, terminated: false };
}
