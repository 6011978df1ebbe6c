// Which action a key read through Ink's useInput stands for. Ink hands a component an (input, key) pair: the
// characters, and a flag for each named key it recognised (upArrow, return, tab ...). This turns the pair back
// into the chords of key-grammar.ts and looks them up in the keymap's scope, so a component reacts to
// "help", not to "?". Ink's flags are read through a structural type, so src/ does not import Ink.

import { comboId, type KeyCombo, type NamedKey } from './key-grammar.js';
import type { ActionName, KeyScope } from './key-actions.js';
import type { Keymap } from './keymap.js';

/** The structural subset of Ink's `Key` the matcher reads (src/ does not import Ink). */
export interface InkKeyLike {
  upArrow: boolean;
  downArrow: boolean;
  leftArrow: boolean;
  rightArrow: boolean;
  pageDown: boolean;
  pageUp: boolean;
  home?: boolean;
  end?: boolean;
  return: boolean;
  escape: boolean;
  ctrl: boolean;
  shift: boolean;
  tab: boolean;
  backspace: boolean;
  delete: boolean;
  meta: boolean;
}

type InkNamedFlag = Exclude<keyof InkKeyLike, 'ctrl' | 'shift' | 'meta'>;

/** Ink's named-key flags and the key each one names, in the order they are read: the first flag set wins. */
const INK_NAMED_KEYS: readonly (readonly [InkNamedFlag, NamedKey])[] = [
  ['upArrow', 'up'],
  ['downArrow', 'down'],
  ['leftArrow', 'left'],
  ['rightArrow', 'right'],
  ['pageUp', 'pageup'],
  ['pageDown', 'pagedown'],
  ['home', 'home'],
  ['end', 'end'],
  ['return', 'enter'],
  ['escape', 'escape'],
  ['tab', 'tab'],
  ['backspace', 'backspace'],
  ['delete', 'delete'],
];

function namedKeyOf(key: InkKeyLike): NamedKey | undefined {
  for (const [flag, name] of INK_NAMED_KEYS) if (key[flag]) return name;
  return undefined;
}

/**
 * The chords an Ink (input, key) pair may stand for. Ink reports the Backspace key (DEL, 0x7f) as
 * `delete`, so a `delete` event also matches bindings for `backspace`. Function keys and Insert are not
 * visible through useInput; raw input is matched in src/terminal/key-encodings.ts.
 */
export function combosFromInk(input: string, key: InkKeyLike): KeyCombo[] {
  const named = namedKeyOf(key);
  if (named) {
    const base = { ctrl: key.ctrl, alt: named === 'escape' ? false : key.meta, shift: key.shift };
    const out: KeyCombo[] = [{ key: named, ...base }];
    if (named === 'delete') out.push({ key: 'backspace', ...base });
    return out;
  }
  const chars = [...input];
  if (chars.length !== 1) return []; // nothing, or a paste
  const ch = chars[0] ?? '';
  const cp = ch.codePointAt(0) ?? 0;
  if (cp < 0x20) {
    const k = cp === 0 ? 'space' : String.fromCharCode(cp + 0x40).toLowerCase();
    return [{ key: k, ctrl: true, alt: key.meta, shift: false }];
  }
  if (ch === ' ') return [{ key: 'space', ctrl: key.ctrl, alt: key.meta, shift: false }];
  if (ch >= 'A' && ch <= 'Z') return [{ key: ch.toLowerCase(), ctrl: key.ctrl, alt: key.meta, shift: true }];
  if (ch >= 'a' && ch <= 'z') return [{ key: ch, ctrl: key.ctrl, alt: key.meta, shift: key.shift && !key.ctrl }];
  return [{ key: ch, ctrl: key.ctrl, alt: key.meta, shift: false }];
}

/** The action for an Ink useInput (input, key) pair in `scope` (default: the dashboard), if any. */
export function matchInkInput(keymap: Keymap, input: string, key: InkKeyLike, scope: KeyScope = 'dashboard'): ActionName | undefined {
  const table = keymap.byScope[scope];
  for (const combo of combosFromInk(input, key)) {
    const action = table.get(comboId(combo));
    if (action) return action;
  }
  return undefined;
}
