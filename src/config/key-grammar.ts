// The key-string grammar a config writes and the help overlay shows: "ctrl+a", "alt+x", "shift+tab", "f5", "?",
// "enter", "R" (a capital is shift+r). One place parses a string into a chord, checks that a terminal can send
// that chord as bytes of its own (without the kitty keyboard protocol, many cannot: ctrl+i is tab, ctrl+shift+a
// is ctrl+a), and writes a chord back as text, so the config's errors, the keymap's collision checks and the
// help overlay read keys the same way. What bytes a chord arrives as is src/terminal/key-encodings.ts's job.

/** A normalised key chord. `key` is a lowercase letter, another single printable character, or a name. */
export interface KeyCombo {
  key: string;
  ctrl: boolean;
  alt: boolean;
  shift: boolean;
}

const NAMED_KEYS = [
  'enter', 'escape', 'tab', 'backspace', 'delete', 'insert', 'space', 'up', 'down', 'left', 'right',
  'home', 'end', 'pageup', 'pagedown', 'f1', 'f2', 'f3', 'f4', 'f5', 'f6', 'f7', 'f8', 'f9', 'f10', 'f11', 'f12',
] as const;
export type NamedKey = (typeof NAMED_KEYS)[number];

const KEY_ALIASES: Readonly<Record<string, NamedKey>> = {
  return: 'enter', esc: 'escape', del: 'delete', ins: 'insert', bs: 'backspace', pgup: 'pageup', pgdn: 'pagedown',
  pagedn: 'pagedown', 'page-up': 'pageup', 'page-down': 'pagedown', arrowup: 'up', arrowdown: 'down',
  arrowleft: 'left', arrowright: 'right',
};

const MODIFIERS: Readonly<Record<string, 'ctrl' | 'alt' | 'shift'>> = {
  ctrl: 'ctrl', control: 'ctrl', alt: 'alt', meta: 'alt', option: 'alt', opt: 'alt', shift: 'shift',
};

/** Ctrl + these punctuation keys are single C0 bytes every terminal can send. */
export const CTRL_PUNCTUATION: Readonly<Record<string, number>> = { '@': 0x00, '\\': 0x1c, ']': 0x1d, '^': 0x1e, _: 0x1f };

export const isNamedKey = (key: string): key is NamedKey => (NAMED_KEYS as readonly string[]).includes(key);
export const isLetter = (key: string): boolean => key.length === 1 && key >= 'a' && key <= 'z';
export const isFunctionKey = (key: string): boolean => /^f([1-9]|1[0-2])$/.test(key);

export type KeyParse = { ok: true; combo: KeyCombo } | { ok: false; problem: string };

/** Parses and validates one key string; problems say what to write instead. */
export function parseKeySpec(spec: string): KeyParse {
  const fail = (problem: string): KeyParse => ({ ok: false, problem });
  if (spec === ' ') return { ok: true, combo: { key: 'space', ctrl: false, alt: false, shift: false } };
  if (typeof spec !== 'string' || spec.trim() === '') return fail('empty key');
  const text = spec.trim();
  if (text.length > 40) return fail('key string is too long');
  let keyPart: string;
  let modPart: string;
  if (text.length === 1) {
    keyPart = text;
    modPart = '';
  } else if (text.endsWith('++')) {
    keyPart = '+';
    modPart = text.slice(0, -2);
  } else {
    const at = text.lastIndexOf('+');
    keyPart = at < 0 ? text : text.slice(at + 1);
    modPart = at < 0 ? '' : text.slice(0, at);
  }
  const combo: KeyCombo = { key: '', ctrl: false, alt: false, shift: false };
  if (modPart !== '') {
    for (const raw of modPart.split('+')) {
      const mod = MODIFIERS[raw.toLowerCase()];
      if (!mod) return fail(`unknown modifier "${raw}" (use ctrl, alt or shift)`);
      if (combo[mod]) return fail(`modifier "${raw}" given twice`);
      combo[mod] = true;
    }
  }
  if (keyPart === '') return fail('missing key after the modifiers');
  if ([...keyPart].length === 1) {
    const ch = keyPart;
    const cp = ch.codePointAt(0) ?? 0;
    if (cp < 0x20 || cp === 0x7f || (cp >= 0x80 && cp < 0xa0)) return fail('write control keys as ctrl+<key>');
    if (ch === ' ') combo.key = 'space';
    else if (ch >= 'A' && ch <= 'Z') {
      combo.key = ch.toLowerCase();
      // "Ctrl+A" is the usual way to write ctrl+a; only a bare or alt+ capital means shift.
      if (!combo.ctrl) combo.shift = true;
    } else combo.key = ch;
  } else {
    const lower = keyPart.toLowerCase();
    const named = KEY_ALIASES[lower] ?? lower;
    if (!isNamedKey(named)) {
      if (/^(ctrl|control|alt|meta|shift|c|m|s)-./i.test(text))
        return fail(`join modifiers with "+", e.g. "ctrl+${text.slice(text.indexOf('-') + 1)}"`);
      return fail(`unknown key "${keyPart}" (a single character, or one of: ${NAMED_KEYS.join(', ')})`);
    }
    combo.key = named;
  }
  const problem = terminalCanSend(combo);
  return problem ? fail(problem) : { ok: true, combo };
}

/** Rejects chords a terminal cannot deliver distinctly (without the kitty keyboard protocol). */
function terminalCanSend(c: KeyCombo): string | null {
  const { key } = c;
  const printable = !isNamedKey(key);
  if (printable && !isLetter(key) && c.shift) return `write the shifted character itself (e.g. "?" rather than "shift+/")`;
  if (c.ctrl && c.alt && !isNamedKey(key)) return 'ctrl+alt with a character is not reported reliably by terminals';
  if (c.ctrl && printable) {
    if (isLetter(key)) {
      if (c.shift) return `terminals send ctrl+shift+${key} the same as ctrl+${key}`;
      const same: Record<string, string> = { i: 'tab', m: 'enter', h: 'backspace' };
      if (same[key]) return `ctrl+${key} is the same byte as ${same[key]}; bind "${same[key]}" instead`;
      return null;
    }
    if (key === '[') return 'ctrl+[ is the same byte as escape; bind "escape" instead';
    if (key === '?') return 'ctrl+? is the same byte as backspace; bind "backspace" instead';
    if (!(key in CTRL_PUNCTUATION)) return `terminals cannot send ctrl+${key} (ctrl works with letters, @ \\ ] ^ _ and space)`;
    return null;
  }
  if (isNamedKey(key)) {
    const plainOnly = ['enter', 'escape', 'backspace', 'space', 'tab'];
    if (key === 'tab' && c.shift && !c.ctrl && !c.alt) return null;
    if (key === 'space' && c.ctrl && !c.alt && !c.shift) return null; // NUL
    if (key === 'enter' && c.alt && !c.ctrl && !c.shift) return null; // ESC CR
    if (key === 'backspace' && c.alt && !c.ctrl && !c.shift) return null; // ESC DEL
    if (plainOnly.includes(key) && (c.ctrl || c.alt || c.shift)) return `terminals send ${formatKeyCombo(c)} the same as ${key}`;
  }
  return null;
}

/** Canonical identity of a chord (used for collision checks and lookups). */
export function comboId(c: KeyCombo): string {
  return `${c.ctrl ? 'ctrl+' : ''}${c.alt ? 'alt+' : ''}${c.shift ? 'shift+' : ''}${c.key}`;
}

/** How a chord is shown to the operator: "ctrl+\", "shift+tab", "R", "?", "alt+x". */
export function formatKeyCombo(c: KeyCombo): string {
  if (isLetter(c.key) && c.shift && !c.ctrl) return `${c.alt ? 'alt+' : ''}${c.key.toUpperCase()}`;
  return comboId(c);
}
