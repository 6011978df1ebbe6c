// Every action (the dashboard's, and the mail view's in a scope of their own), its default keys, the
// key-string grammar ("ctrl+a", "alt+x", "shift+tab", "f5", "?", "enter"), validation, and two matchers:
// one for Ink's useInput (input, key) pair, one for raw stdin bytes (needed while a row is attached and
// every other byte goes to the row's program).
//
// The detach key — default Ctrl-\ (0x1C, FS):
//   While attached, every key goes to the agent except this one, so it must be something no agent, editor
//   or shell the operator runs in a row needs. Taken elsewhere: Ctrl-a (readline/emacs line start, screen's
//   prefix), Ctrl-b (tmux prefix, readline back, Claude Code background task), Ctrl-c/d/z (interrupt, EOF,
//   suspend), Ctrl-e/f/k/u/w/y/h/n/p (readline editing, also in Gemini/Codex composers), Ctrl-g (Claude Code
//   and Codex external editor), Ctrl-j (newline in Claude Code/Codex/Gemini), Ctrl-l (clear), Ctrl-o
//   (Claude Code transcript, Gemini show more), Ctrl-q/s (flow control, Gemini copy mode), Ctrl-r (history
//   search everywhere), Ctrl-t (Claude Code todos, Codex transcript, Gemini todos), Ctrl-v (paste image,
//   readline quoted insert), Ctrl-x (readline prefix, Gemini editor), Ctrl-[ (is ESC), Ctrl-] (vim tag
//   jump, bash character-search, telnet escape), Ctrl-^ (vim alternate file), Ctrl-_ (undo in readline
//   and Claude Code), Ctrl-@ (set mark).
//   Ctrl-\ is unbound in Claude Code, Codex and Gemini CLI, unbound in readline (in cooked mode the tty
//   turns it into SIGQUIT, which an operator has no reason to send to an agent), and in vim only starts the
//   rarely typed Ctrl-\ Ctrl-N / Ctrl-G escapes. dtach and abduco use it as their detach key for the same
//   reasons. It is remappable (`detachKey` or `keys.detach`); it must be a ctrl/alt chord or a function key.

import { SchemaError } from '../util/schema.js';

const DASHBOARD_ACTIONS = [
  'focusNext',
  'focusPrev',
  'focusUp',
  'focusDown',
  'focusLeft',
  'focusRight',
  'zoom',
  'attach',
  'detach',
  'restart',
  'close',
  'layout',
  'theme',
  'help',
  'compose',
  'paste',
  'mailView',
  'rowInbox',
  'notifications',
  'explain',
  'wakePolicy',
  'resources',
  'auditLog',
  'grantBudget',
  'reopen',
  'nextWaiting',
  'nextUnread',
  'newRow',
  'reviewParked',
  'reviewRow',
  'history',
  'interrupt',
  'detachClient',
  'quit',
] as const;

/** The mail view's own keys: a scope of their own, so they may reuse dashboard keys (c, i, q, g ...). */
const MAIL_VIEW_ACTIONS = [
  'mailUp',
  'mailDown',
  'mailPageUp',
  'mailPageDown',
  'mailFirst',
  'mailLast',
  'mailOpen',
  'mailReply',
  'mailMarkRead',
  'mailMarkAllRead',
  'mailFilterNext',
  'mailFilterPrev',
  'mailCompose',
  'mailBack',
  'mailClose',
] as const;

export const ACTIONS = [...DASHBOARD_ACTIONS, ...MAIL_VIEW_ACTIONS] as const;

export type ActionName = (typeof ACTIONS)[number];

/** Where an action's keys apply. Keys must be unique within a scope, not across scopes. */
export type KeyScope = 'dashboard' | 'mailView';
export const KEY_SCOPES: readonly KeyScope[] = ['dashboard', 'mailView'];
export const SCOPE_TITLES: Readonly<Record<KeyScope, string>> = { dashboard: 'Dashboard', mailView: 'Mail view' };

const MAIL_VIEW_SET: ReadonlySet<ActionName> = new Set(MAIL_VIEW_ACTIONS);

export function scopeOf(action: ActionName): KeyScope {
  return MAIL_VIEW_SET.has(action) ? 'mailView' : 'dashboard';
}

export function isActionName(value: string): value is ActionName {
  return (ACTIONS as readonly string[]).includes(value);
}

/** One line per action for the help overlay. */
export const ACTION_DESCRIPTIONS: Readonly<Record<ActionName, string>> = {
  focusNext: 'Focus the next row',
  focusPrev: 'Focus the previous row',
  focusUp: 'Focus the row above',
  focusDown: 'Focus the row below',
  focusLeft: 'Focus the row to the left (grid)',
  focusRight: 'Focus the row to the right (grid)',
  zoom: 'Zoom the focused row / back to all rows',
  attach: 'Attach: type straight into the focused row',
  detach: 'Detach from the attached row (the only key not sent to it)',
  restart: 'Restart the focused row',
  close: 'Close the focused row',
  layout: 'Switch layout (stack / grid)',
  theme: 'Next theme',
  help: 'Show these key bindings',
  compose: 'Write a message (@ opens it with the peers offered)',
  paste: 'Paste the paste buffer (y in a history view) into the focused row',
  mailView: 'Open the mail view',
  rowInbox: 'Open the focused row’s inbox',
  notifications: 'Show notifications',
  explain: 'Explain the focused row’s state',
  wakePolicy: 'Pick the focused row’s wake policy (auto / notify / off)',
  resources: 'Reservations: holders, queues; grant, release, set a controller',
  auditLog: 'Show what Switchboard typed into rows',
  grantBudget: 'Grant the newest held pair of rows another reply budget',
  reopen: 'Reopen a row closed while this server runs',
  nextWaiting: 'Focus the next row waiting for you (a question or dialog)',
  nextUnread: 'Focus the next row with unread mail',
  newRow: 'Start a new row (name, profile or command, working directory)',
  reviewParked: 'Review mail parked when a row came back as a new conversation',
  reviewRow: "Review a worktree row's changes since its base (diff, stats)",
  interrupt: "Interrupt the focused agent's turn (its profile's interrupt key)",
  history: "The focused row's history: scroll, search (/), copy (y), save (s)",
  detachClient: 'Leave the dashboard; every row runs on (swb attach comes back)',
  quit: 'Quit Switchboard: end every row and the server',
  mailUp: 'Select the message above',
  mailDown: 'Select the message below',
  mailPageUp: 'A page up',
  mailPageDown: 'A page down',
  mailFirst: 'The newest thread',
  mailLast: 'The oldest loaded message',
  mailOpen: 'Open / close the selected message',
  mailReply: 'Reply to the selected message',
  mailMarkRead: 'Mark the selected message read',
  mailMarkAllRead: 'Mark all read (yours, or the filtered row’s)',
  mailFilterNext: 'Next filter (all mail, then each row)',
  mailFilterPrev: 'Previous filter',
  mailCompose: 'Write a new message',
  mailBack: 'Close the open message, else the mail view',
  mailClose: 'Close the mail view',
};

export const DEFAULT_BINDINGS: Readonly<Record<ActionName, readonly string[]>> = {
  focusNext: ['tab'],
  focusPrev: ['shift+tab'],
  focusUp: ['up', 'k'],
  focusDown: ['down', 'j'],
  focusLeft: ['left', 'h'],
  focusRight: ['right', 'l'],
  zoom: ['z'],
  attach: ['enter'],
  detach: ['ctrl+\\'],
  restart: ['R'],
  close: ['X'],
  layout: ['g'],
  theme: ['t'],
  help: ['?'],
  compose: ['c', '@'],
  paste: ['p'],
  mailView: ['i'],
  rowInbox: ['I'],
  notifications: ['n'],
  explain: ['e'],
  wakePolicy: ['w'],
  resources: ['r'],
  auditLog: ['a'],
  grantBudget: ['G'],
  reopen: ['O'],
  nextWaiting: ['W'],
  nextUnread: ['u'],
  newRow: ['N'],
  reviewParked: ['V'],
  reviewRow: ['D'],
  interrupt: ['K'],
  history: ['[', 'pageup'],
  detachClient: ['d'],
  quit: ['q'],
  mailUp: ['up', 'k'],
  mailDown: ['down', 'j'],
  mailPageUp: ['pageup'],
  mailPageDown: ['pagedown', 'space'],
  mailFirst: ['home', 'g'],
  mailLast: ['end', 'G'],
  mailOpen: ['enter', 'o'],
  mailReply: ['r'],
  mailMarkRead: ['m'],
  mailMarkAllRead: ['M'],
  mailFilterNext: ['f'],
  mailFilterPrev: ['F'],
  mailCompose: ['c', '@'],
  mailBack: ['escape'],
  mailClose: ['q', 'i'],
};

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
type NamedKey = (typeof NAMED_KEYS)[number];

const KEY_ALIASES: Readonly<Record<string, NamedKey>> = {
  return: 'enter', esc: 'escape', del: 'delete', ins: 'insert', bs: 'backspace', pgup: 'pageup', pgdn: 'pagedown',
  pagedn: 'pagedown', 'page-up': 'pageup', 'page-down': 'pagedown', arrowup: 'up', arrowdown: 'down',
  arrowleft: 'left', arrowright: 'right',
};

const MODIFIERS: Readonly<Record<string, 'ctrl' | 'alt' | 'shift'>> = {
  ctrl: 'ctrl', control: 'ctrl', alt: 'alt', meta: 'alt', option: 'alt', opt: 'alt', shift: 'shift',
};

/** Ctrl + these punctuation keys are single C0 bytes every terminal can send. */
const CTRL_PUNCTUATION: Readonly<Record<string, number>> = { '@': 0x00, '\\': 0x1c, ']': 0x1d, '^': 0x1e, _: 0x1f };

const isNamed = (key: string): key is NamedKey => (NAMED_KEYS as readonly string[]).includes(key);
const isLetter = (key: string): boolean => key.length === 1 && key >= 'a' && key <= 'z';
const isFunctionKey = (key: string): boolean => /^f([1-9]|1[0-2])$/.test(key);

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
    if (!isNamed(named)) {
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
  const printable = !isNamed(key);
  if (printable && !isLetter(key) && c.shift) return `write the shifted character itself (e.g. "?" rather than "shift+/")`;
  if (c.ctrl && c.alt && !isNamed(key)) return 'ctrl+alt with a character is not reported reliably by terminals';
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
  if (isNamed(key)) {
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

export interface Keymap {
  /** The chords bound to each action, in the order given. */
  bindings: Readonly<Record<ActionName, readonly KeyCombo[]>>;
  /** The detach chord (first binding of `detach`). */
  detach: KeyCombo;
  /** Raw byte sequences that mean "detach" on stdin while attached. */
  detachSequences: readonly string[];
  /** Every scope's chords by comboId. */
  byScope: Readonly<Record<KeyScope, ReadonlyMap<string, ActionName>>>;
  /** Dashboard raw byte sequences. */
  byRaw: ReadonlyMap<string, ActionName>;
}

export type KeyOverrides = Partial<Record<string, string | readonly string[]>>;

export type KeymapResult = { ok: true; keymap: Keymap } | { ok: false; problems: SchemaError[] };

/**
 * Defaults, then each overridden action's keys replace its defaults (`[]` unbinds it). `detachKey` is the
 * config's shorthand for `keys.detach`. Problems carry config paths (`keys.compose[1]`).
 */
export function buildKeymap(overrides: KeyOverrides = {}, detachKey?: string): KeymapResult {
  const problems: SchemaError[] = [];
  const specs = {} as Record<ActionName, { spec: string; path: string; fromDefault: boolean }[]>;
  for (const action of ACTIONS) {
    specs[action] = DEFAULT_BINDINGS[action].map((spec, i) => ({ spec, path: `keys.${action}[${i}]`, fromDefault: true }));
  }
  for (const [name, value] of Object.entries(overrides)) {
    if (value === undefined) continue;
    if (!isActionName(name)) {
      problems.push(new SchemaError(`keys.${name}`, `unknown action (expected one of: ${ACTIONS.join(', ')})`));
      continue;
    }
    const list = typeof value === 'string' ? [value] : value;
    specs[name] = list.map((spec, i) => ({
      spec,
      path: typeof value === 'string' ? `keys.${name}` : `keys.${name}[${i}]`,
      fromDefault: false,
    }));
  }
  if (detachKey !== undefined) {
    if (overrides.detach !== undefined) problems.push(new SchemaError('detachKey', 'set either detachKey or keys.detach, not both'));
    else specs.detach = [{ spec: detachKey, path: 'detachKey', fromDefault: false }];
  }

  // User bindings claim their keys first, so a clash with another action's default is reported where the
  // operator wrote the key, with a hint to rebind that action.
  const bindings = {} as Record<ActionName, KeyCombo[]>;
  const byScope: Record<KeyScope, Map<string, ActionName>> = { dashboard: new Map(), mailView: new Map() };
  const owner = new Map<string, { action: ActionName; path: string }>();
  for (const action of ACTIONS) bindings[action] = [];
  for (const pass of [false, true]) {
    for (const action of ACTIONS) {
      for (const { spec, path, fromDefault } of specs[action]) {
        if (fromDefault !== pass) continue;
        const parsed = parseKeySpec(spec);
        if (!parsed.ok) {
          problems.push(new SchemaError(path, `${JSON.stringify(spec)}: ${parsed.problem}`));
          continue;
        }
        const id = comboId(parsed.combo);
        const scope = scopeOf(action);
        const prior = owner.get(`${scope} ${id}`);
        if (prior && prior.action === action) continue; // the same key listed twice for one action
        if (prior) {
          problems.push(
            fromDefault
              ? new SchemaError(prior.path, `${JSON.stringify(spec)} is also the default key of ${action}; rebind ${action} too (keys.${action})`)
              : new SchemaError(path, `${JSON.stringify(spec)} is already bound to ${prior.action}`),
          );
          continue;
        }
        owner.set(`${scope} ${id}`, { action, path });
        byScope[scope].set(id, action);
        bindings[action].push(parsed.combo);
      }
    }
  }
  const detach = bindings.detach[0];
  if (!detach) problems.push(new SchemaError('keys.detach', 'the detach key cannot be unbound'));
  else if (!detach.ctrl && !detach.alt && !isFunctionKey(detach.key)) {
    problems.push(
      new SchemaError(specs.detach[0]?.path ?? 'keys.detach', 'the detach key must be a ctrl or alt chord or a function key (every other key goes to the attached row)'),
    );
  }
  if (problems.length > 0 || !detach) return { ok: false, problems };

  const byRaw = new Map<string, ActionName>();
  for (const action of ACTIONS) {
    if (scopeOf(action) !== 'dashboard') continue;
    for (const combo of bindings[action]) for (const seq of rawKeySequences(combo)) if (!byRaw.has(seq)) byRaw.set(seq, action);
  }
  return { ok: true, keymap: { bindings, detach, detachSequences: rawKeySequences(detach), byScope, byRaw } };
}

/** The default keymap (cannot fail). */
export function defaultKeymap(): Keymap {
  const result = buildKeymap();
  if (!result.ok) throw new Error(`default keymap invalid: ${result.problems.map((p) => p.message).join('; ')}`);
  return result.keymap;
}

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

/**
 * The chords an Ink (input, key) pair may stand for. Ink reports the Backspace key (DEL, 0x7f) as
 * `delete`, so a `delete` event also matches bindings for `backspace`. Function keys and Insert are not
 * visible through useInput; use matchRawInput for those.
 */
export function combosFromInk(input: string, key: InkKeyLike): KeyCombo[] {
  const named: NamedKey | undefined = key.upArrow
    ? 'up'
    : key.downArrow
      ? 'down'
      : key.leftArrow
        ? 'left'
        : key.rightArrow
          ? 'right'
          : key.pageUp
            ? 'pageup'
            : key.pageDown
              ? 'pagedown'
              : key.home
                ? 'home'
                : key.end
                  ? 'end'
                  : key.return
                    ? 'enter'
                    : key.escape
                      ? 'escape'
                      : key.tab
                        ? 'tab'
                        : key.backspace
                          ? 'backspace'
                          : key.delete
                            ? 'delete'
                            : undefined;
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

/** The action for one raw stdin chunk that is exactly one key's bytes, if any. */
export function matchRawInput(keymap: Keymap, data: string): ActionName | undefined {
  return keymap.byRaw.get(data);
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
  if (isNamed(key)) {
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

export interface BindingHelp {
  action: ActionName;
  scope: KeyScope;
  description: string;
  keys: string[];
}

/** The current bindings, in action order (dashboard first), for the help overlay. */
export function describeBindings(keymap: Keymap): BindingHelp[] {
  return ACTIONS.map((action) => ({
    action,
    scope: scopeOf(action),
    description: ACTION_DESCRIPTIONS[action],
    keys: keymap.bindings[action].map(formatKeyCombo),
  }));
}

const HINT_NAMES: Partial<Record<string, string>> = {
  up: '↑', down: '↓', left: '←', right: '→', enter: 'Enter', escape: 'Esc', space: 'Space', tab: 'Tab',
  pageup: 'PgUp', pagedown: 'PgDn', home: 'Home', end: 'End', backspace: 'Backspace', delete: 'Del',
};

/** How an action's first `max` keys read in a footer hint: "r", "↑", "Esc"; "" when it is unbound. */
export function keysLabel(keymap: Keymap, action: ActionName, max = 2): string {
  return keymap.bindings[action]
    .slice(0, max)
    .map((c) => (!c.ctrl && !c.alt && !c.shift && HINT_NAMES[c.key]) || formatKeyCombo(c))
    .join('/');
}
