// The bytes a key chord arrives as on a terminal's input. The server reads the operator's terminal raw: while a
// row is attached every byte goes to the row's program except the detach key, which has to be found in the
// stream as bytes (the input router, src/terminal/input-router.ts), and a terminal may send one chord in up to
// three forms (legacy, xterm's modifyOtherKeys, kitty's CSI u). The chords themselves and what a config may bind
// are src/config/key-grammar.ts's; this file only knows how they are encoded.

import { ACTIONS, scopeOf, type ActionName } from '../config/key-actions.js';
import { CTRL_PUNCTUATION, isLetter, isNamedKey, type KeyCombo, type NamedKey } from '../config/key-grammar.js';
import type { Keymap } from '../config/keymap.js';

const ESC = '\x1b';
const CSI = '\x1b[';
const TILDE_CODES: Partial<Record<NamedKey, number>> = {
  insert: 2, delete: 3, pageup: 5, pagedown: 6, f5: 15, f6: 17, f7: 18, f8: 19, f9: 20, f10: 21, f11: 23, f12: 24,
};
const LETTER_CODES: Partial<Record<NamedKey, string>> = {
  up: 'A', down: 'B', right: 'C', left: 'D', home: 'H', end: 'F', f1: 'P', f2: 'Q', f3: 'R', f4: 'S',
};
const KITTY_CODES: Partial<Record<NamedKey, number>> = { enter: 13, tab: 9, escape: 27, backspace: 127, space: 32 };

/**
 * Every byte sequence (as a latin1/ASCII string) a terminal may send for the chord: the legacy form, and
 * where modifiers are involved the xterm modifyOtherKeys (CSI 27;m;cp~) and kitty (CSI cp;m u) forms.
 */
export function rawKeySequences(c: KeyCombo): string[] {
  const m = 1 + (c.shift ? 1 : 0) + (c.alt ? 2 : 0) + (c.ctrl ? 4 : 0);
  const modded = m > 1;
  const out: string[] = [];
  const add = (s: string): void => {
    if (!out.includes(s)) out.push(s);
  };
  const key = c.key;
  if (isNamedKey(key)) {
    const letter = LETTER_CODES[key];
    const tilde = TILDE_CODES[key];
    if (letter) {
      if (!modded) {
        if (!/^f[1-4]$/.test(key)) add(`${CSI}${letter}`); // CSI P..S unmodified are editing commands, not F1-F4
        add(`${ESC}O${letter}`);
        if (key === 'home') add(`${CSI}1~`);
        if (key === 'end') add(`${CSI}4~`);
        if (/^f[1-4]$/.test(key)) add(`${CSI}${10 + Number(key.slice(1))}~`);
      } else add(`${CSI}1;${m}${letter}`);
    } else if (tilde !== undefined) {
      add(modded ? `${CSI}${tilde};${m}~` : `${CSI}${tilde}~`);
    } else {
      const legacy: Record<string, string> = { enter: '\r', tab: '\t', escape: ESC, backspace: '\x7f', space: ' ' };
      let base = legacy[key] ?? '';
      if (key === 'tab' && c.shift) base = `${CSI}Z`;
      else if (key === 'space' && c.ctrl) base = '\x00';
      add(c.alt ? `${ESC}${base}` : base);
      if (key === 'backspace' && !modded) add('\b');
      const kitty = KITTY_CODES[key];
      if (modded && kitty !== undefined) add(`${CSI}${kitty};${m}u`);
    }
    return out;
  }
  const cp = key.codePointAt(0) ?? 0;
  if (c.ctrl) {
    const byte = isLetter(key) ? cp & 0x1f : CTRL_PUNCTUATION[key];
    if (byte !== undefined) add(`${c.alt ? ESC : ''}${String.fromCharCode(byte)}`);
  } else {
    const ch = c.shift && isLetter(key) ? key.toUpperCase() : key;
    add(c.alt ? `${ESC}${ch}` : ch);
  }
  if (modded) {
    add(`${CSI}27;${m};${cp}~`);
    add(`${CSI}${cp};${m}u`);
  }
  return out;
}

/** The first occurrence of any of `sequences` in a raw stdin chunk (e.g. the detach key in a burst). */
export function findRawKey(data: string, sequences: readonly string[]): { index: number; length: number } | null {
  let best: { index: number; length: number } | null = null;
  for (const seq of sequences) {
    const index = data.indexOf(seq);
    if (index >= 0 && (!best || index < best.index || (index === best.index && seq.length > best.length))) {
      best = { index, length: seq.length };
    }
  }
  return best;
}

/** Each keymap's dashboard actions by the raw bytes of their keys, built on first use (a keymap never changes). */
const rawTables = new WeakMap<Keymap, ReadonlyMap<string, ActionName>>();

function rawTable(keymap: Keymap): ReadonlyMap<string, ActionName> {
  let table = rawTables.get(keymap);
  if (table) return table;
  const built = new Map<string, ActionName>();
  for (const action of ACTIONS) {
    if (scopeOf(action) !== 'dashboard') continue;
    for (const combo of keymap.bindings[action]) for (const seq of rawKeySequences(combo)) if (!built.has(seq)) built.set(seq, action);
  }
  table = built;
  rawTables.set(keymap, table);
  return table;
}

/** The dashboard action for one raw stdin chunk that is exactly one key's bytes, if any. */
export function matchRawInput(keymap: Keymap, data: string): ActionName | undefined {
  return rawTable(keymap).get(data);
}
