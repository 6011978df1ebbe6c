// A read from the terminal may hold several keys: a fast typist, `tmux send-keys`, a paste. Ink splits
// a read only at escape sequences, so "@cl⇥" reaches a line editor as one input with no key flag set,
// and the Tab would be taken as text (a space the eye cannot tell from nothing, and no completion).
// This turns such a burst back into the keys a slow typist would have sent, one (input, key) per key:
// runs of text, then each control key (Tab, Backspace, Ctrl-letter, a final Enter) on its own.
// A burst with line breaks inside it is a paste (the dashboard does not ask for bracketed paste): it
// stays one text whose line breaks and tabs become spaces, and nothing in it acts as a key.
import type { InkKeyLike } from '../config/match-ink-input.js';

export type KeyStep = readonly [input: string, key: InkKeyLike];

/** A key record with no flag set: plain text as Ink reports it. */
export const NO_KEY: InkKeyLike = {
  upArrow: false,
  downArrow: false,
  leftArrow: false,
  rightArrow: false,
  pageDown: false,
  pageUp: false,
  home: false,
  end: false,
  return: false,
  escape: false,
  ctrl: false,
  shift: false,
  tab: false,
  backspace: false,
  delete: false,
  meta: false,
};

/** One control byte as the key Ink reports when it arrives alone (null: no key a line editor reads). */
function controlKey(code: number): KeyStep | null {
  if (code === 0x09) return ['\t', { ...NO_KEY, tab: true }];
  if (code === 0x0d) return ['\r', { ...NO_KEY, return: true }];
  // Ink reports DEL (what the Backspace key sends) as `delete`, and BS as `backspace`.
  if (code === 0x7f) return ['', { ...NO_KEY, delete: true }];
  if (code === 0x08) return ['', { ...NO_KEY, backspace: true }];
  if (code >= 0x01 && code <= 0x1a) return [String.fromCharCode(code + 0x60), { ...NO_KEY, ctrl: true }];
  return null;
}

const isControl = (code: number): boolean => code < 0x20 || code === 0x7f;

/** The keys one Ink input stands for, in order. A single key (or an escape sequence) is returned as it came. */
export function splitKeyBurst(input: string, key: InkKeyLike): KeyStep[] {
  if (input.length <= 1 || input.includes('\x1b')) return [[input, key]];
  const paste = /[\r\n]/.test(input.slice(0, -1)) || input.endsWith('\n');
  if (paste) return [[input.replace(/\r\n|[\r\n\t]/g, ' '), NO_KEY]];
  const steps: KeyStep[] = [];
  let text = '';
  for (const ch of input) {
    const code = ch.codePointAt(0)!;
    if (!isControl(code)) {
      text += ch;
      continue;
    }
    if (text !== '') steps.push([text, NO_KEY]);
    text = '';
    const step = controlKey(code);
    if (step) steps.push(step);
  }
  if (text !== '') steps.push([text, NO_KEY]);
  return steps;
}
