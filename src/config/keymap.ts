// The keymap: the operator's bindings, built once from the action table (key-actions.ts) and the config's
// `keys` and `detachKey`, checked as a whole, and read back as the help overlay's lines and the footer's hints.
// Each action's default keys give way to the keys the config names for it; every key must parse
// (key-grammar.ts), no key may belong to two actions of one scope, and the detach key must be one an attached
// row can spare (key-actions.ts says why Ctrl-\ by default). The errors carry the config path the operator
// wrote, so `swb` can point at the line to fix. Matching a key read through Ink is match-ink-input.ts; the
// bytes a key arrives as are src/terminal/key-encodings.ts.

import { SchemaError } from '../util/schema.js';
import { ACTIONS, isActionName, KEY_ACTIONS, scopeOf, type ActionName, type KeyScope } from './key-actions.js';
import { comboId, formatKeyCombo, isFunctionKey, parseKeySpec, type KeyCombo } from './key-grammar.js';

// Code that asks for a keymap usually names its actions too; they are part of what this module hands out.
export type { ActionName } from './key-actions.js';

export interface Keymap {
  /** The chords bound to each action, in the order given. */
  bindings: Readonly<Record<ActionName, readonly KeyCombo[]>>;
  /** The detach chord (first binding of `detach`). */
  detach: KeyCombo;
  /** Every scope's chords by comboId. */
  byScope: Readonly<Record<KeyScope, ReadonlyMap<string, ActionName>>>;
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
    specs[action] = KEY_ACTIONS[action].keys.map((spec, i) => ({ spec, path: `keys.${action}[${i}]`, fromDefault: true }));
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
  return { ok: true, keymap: { bindings, detach, byScope } };
}

/** The default keymap (cannot fail). */
export function defaultKeymap(): Keymap {
  const result = buildKeymap();
  if (!result.ok) throw new Error(`default keymap invalid: ${result.problems.map((p) => p.message).join('; ')}`);
  return result.keymap;
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
    description: KEY_ACTIONS[action].description,
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
