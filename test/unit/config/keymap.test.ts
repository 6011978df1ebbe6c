import { createElement } from 'react';
import { Text, useInput, type Key } from 'ink';
import { render } from 'ink-testing-library';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ACTIONS, KEY_ACTIONS, KEY_SCOPES, scopeOf } from '../../../src/config/key-actions.js';
import { comboId, formatKeyCombo, parseKeySpec } from '../../../src/config/key-grammar.js';
import { buildKeymap, defaultKeymap, describeBindings } from '../../../src/config/keymap.js';
import { combosFromInk, matchInkInput, type InkKeyLike } from '../../../src/config/match-ink-input.js';
import { matchRawInput, rawKeySequences } from '../../../src/terminal/key-encodings.js';
import { combo } from './key-combo.js';

const NO_KEY: InkKeyLike = {
  upArrow: false, downArrow: false, leftArrow: false, rightArrow: false, pageDown: false, pageUp: false,
  return: false, escape: false, ctrl: false, shift: false, tab: false, backspace: false, delete: false, meta: false,
};

describe('parseKeySpec', () => {
  it.each([
    ['a', 'a'],
    ['ctrl+a', 'ctrl+a'],
    ['Ctrl+A', 'ctrl+a'], // the usual way to write ctrl+a
    ['control+x', 'ctrl+x'],
    ['alt+x', 'alt+x'],
    ['meta+x', 'alt+x'],
    ['option+x', 'alt+x'],
    ['shift+tab', 'shift+tab'],
    ['f5', 'f5'],
    ['F12', 'f12'],
    ['?', '?'],
    ['@', '@'],
    ['enter', 'enter'],
    ['return', 'enter'],
    ['esc', 'escape'],
    ['R', 'shift+r'],
    ['shift+r', 'shift+r'],
    ['ctrl+\\', 'ctrl+\\'],
    ['ctrl+]', 'ctrl+]'],
    ['ctrl+space', 'ctrl+space'],
    ['ctrl+up', 'ctrl+up'],
    ['alt+enter', 'alt+enter'],
    ['+', '+'],
    ['alt++', 'alt++'],
    ['pgdn', 'pagedown'],
    [' ', 'space'],
  ])('%j → %s', (spec, id) => {
    const c = combo(spec);
    expect(comboId(c)).toBe(id);
  });

  it.each([
    ['', /empty/],
    ['ctrl+', /missing key/],
    ['hyper+a', /unknown modifier "hyper"/],
    ['ctrl+ctrl+a', /twice/],
    ['ctrl-a', /join modifiers with "\+"/],
    ['foo', /unknown key "foo"/],
    ['shift+/', /shifted character itself/],
    ['ctrl+i', /same byte as tab/],
    ['ctrl+m', /same byte as enter/],
    ['ctrl+h', /same byte as backspace/],
    ['ctrl+[', /same byte as escape/],
    ['ctrl+1', /cannot send ctrl\+1/],
    ['ctrl+shift+a', /same as ctrl\+a/],
    ['ctrl+alt+a', /ctrl\+alt/],
    ['shift+enter', /same as enter/],
    ['ctrl+tab', /same as tab/],
    ['\x01', /control keys/],
  ])('rejects %j', (spec, problem) => {
    const r = parseKeySpec(spec);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.problem).toMatch(problem);
  });

  it('formats chords the way the help overlay shows them', () => {
    expect(formatKeyCombo(combo('R'))).toBe('R');
    expect(formatKeyCombo(combo('ctrl+\\'))).toBe('ctrl+\\');
    expect(formatKeyCombo(combo('shift+tab'))).toBe('shift+tab');
    expect(formatKeyCombo(combo('alt+X'))).toBe('alt+X');
  });
});

describe('buildKeymap', () => {
  it('gives every action a description and a default key', () => {
    const km = defaultKeymap();
    for (const action of ACTIONS) {
      expect(KEY_ACTIONS[action].description).toBeTruthy();
      expect(km.bindings[action].length).toBeGreaterThan(0);
    }
    expect(describeBindings(km).find((b) => b.action === 'help')?.keys).toEqual(['?']);
  });

  it('opens the focused row’s inbox with a capital I, apart from i for all mail', () => {
    const km = defaultKeymap();
    expect(matchRawInput(km, 'I')).toBe('rowInbox');
    expect(matchRawInput(km, 'i')).toBe('mailView');
    expect(describeBindings(km).find((b) => b.action === 'rowInbox')).toEqual({ action: 'rowInbox', scope: 'dashboard', description: 'Open the focused row’s inbox', keys: ['I'] });
  });

  it('has no collisions among the defaults within a scope', () => {
    for (const scope of KEY_SCOPES) {
      const ids = ACTIONS.filter((a) => scopeOf(a) === scope).flatMap((a) => KEY_ACTIONS[a].keys.map((s) => comboId(combo(s))));
      expect(new Set(ids).size, scope).toBe(ids.length);
    }
  });

  it('keeps the mail view’s keys in a scope of their own: they may reuse dashboard keys, not each other’s', () => {
    const km = defaultKeymap();
    const ink = (input: string) => ({ ...NO_KEY, shift: input !== input.toLowerCase() });
    expect(matchInkInput(km, 'c', ink('c'))).toBe('compose');
    expect(matchInkInput(km, 'c', ink('c'), 'mailView')).toBe('mailCompose');
    expect(matchInkInput(km, 'r', ink('r'))).toBe('resources');
    expect(matchInkInput(km, 'r', ink('r'), 'mailView')).toBe('mailReply');
    expect(matchInkInput(km, 'm', ink('m'))).toBeUndefined();
    expect(matchRawInput(km, 'm')).toBeUndefined(); // raw matching is the dashboard's only
    const remapped = buildKeymap({ mailReply: 'R', mailMarkRead: 'x' });
    expect(remapped.ok).toBe(true);
    if (remapped.ok) {
      expect(matchInkInput(remapped.keymap, 'R', ink('R'), 'mailView')).toBe('mailReply');
      expect(matchInkInput(remapped.keymap, 'r', ink('r'), 'mailView')).toBeUndefined();
      expect(matchInkInput(remapped.keymap, 'R', ink('R'))).toBe('restart'); // the dashboard's R is untouched
    }
    const clash = buildKeymap({ mailReply: 'm' });
    expect(clash.ok).toBe(false);
    if (!clash.ok) expect(clash.problems[0]?.message).toBe('keys.mailReply: "m" is also the default key of mailMarkRead; rebind mailMarkRead too (keys.mailMarkRead)');
  });

  it('replaces an action’s defaults with the configured keys', () => {
    const r = buildKeymap({ compose: ['m'], quit: 'ctrl+q' });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.keymap.bindings.compose.map(formatKeyCombo)).toEqual(['m']);
    expect(r.keymap.bindings.quit.map(formatKeyCombo)).toEqual(['ctrl+q']);
  });

  it('unbinds an action with []', () => {
    const r = buildKeymap({ auditLog: [] });
    expect(r.ok && r.keymap.bindings.auditLog).toEqual([]);
  });

  it('rejects unknown actions and bad keys with config paths', () => {
    const r = buildKeymap({ fly: 'f', compose: ['c', 'ctrl+1'] });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.problems.map((p) => p.message)).toEqual([
      expect.stringMatching(/^keys\.fly: unknown action/),
      expect.stringMatching(/^keys\.compose\[1\]: "ctrl\+1": terminals cannot send/),
    ]);
  });

  it('rejects two actions on one key', () => {
    const r = buildKeymap({ compose: 'x', mailView: 'x' });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.problems[0]?.message).toMatch(/keys\.mailView: "x" is already bound to compose/);
  });

  it('reports a clash with another action’s default where the operator wrote the key', () => {
    const r = buildKeymap({ compose: 'q' });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.problems[0]?.message).toBe('keys.compose: "q" is also the default key of quit; rebind quit too (keys.quit)');
    expect(buildKeymap({ compose: 'q', quit: 'Q' }).ok).toBe(true);
  });

  it('accepts detachKey as shorthand, but not together with keys.detach', () => {
    const r = buildKeymap({}, 'ctrl+]');
    expect(r.ok && rawKeySequences(r.keymap.detach)).toContain('\x1d');
    const both = buildKeymap({ detach: 'f10' }, 'ctrl+]');
    expect(both.ok).toBe(false);
  });

  it('requires the detach key to be a ctrl/alt chord or a function key', () => {
    for (const bad of ['d', 'enter', 'shift+tab', '?']) {
      const r = buildKeymap({ attach: 'o', focusNext: 'N', focusPrev: 'P', help: 'H' }, bad);
      expect(r.ok, bad).toBe(false);
      if (!r.ok) expect(r.problems.map((p) => p.message).join()).toMatch(/detach key must be/);
    }
    expect(buildKeymap({ detach: [] }).ok).toBe(false);
    for (const good of ['ctrl+]', 'alt+d', 'f12', 'ctrl+space']) expect(buildKeymap({}, good).ok, good).toBe(true);
  });
});

/** Real Ink: feed raw bytes through useInput and match what it reports. */
describe('matchInkInput against Ink’s own key parsing', () => {
  let cleanup: (() => void) | undefined;
  afterEach(() => cleanup?.());

  function probe(): { write: (s: string) => Promise<[string, Key]> } {
    const events: Array<[string, Key]> = [];
    const Probe = () => {
      useInput((input, key) => {
        events.push([input, key]);
      });
      return createElement(Text, null, 'probe');
    };
    const app = render(createElement(Probe));
    cleanup = () => app.unmount();
    return {
      async write(s: string) {
        const before = events.length;
        app.stdin.write(s);
        await vi.waitFor(() => expect(events.length).toBeGreaterThan(before));
        return events[events.length - 1] as [string, Key];
      },
    };
  }

  const km = defaultKeymap();
  const cases: Array<[string, string, string | undefined]> = [
    ['Ctrl-\\ (raw 0x1c)', '\x1c', 'detach'],
    ['Tab', '\t', 'focusNext'],
    ['Shift-Tab', '\x1b[Z', 'focusPrev'],
    ['Up arrow', '\x1b[A', 'focusUp'],
    ['k', 'k', 'focusUp'],
    ['Enter', '\r', 'attach'],
    ['R (shift+r)', 'R', 'restart'],
    ['b (no binding)', 'b', undefined],
    ['r', 'r', 'resources'],
    ['?', '?', 'help'],
    ['@', '@', 'compose'],
    ['q', 'q', 'quit'],
    ['kitty Ctrl-\\', '\x1b[92;5u', 'detach'],
  ];
  for (const [name, bytes, action] of cases) {
    it(`${name} → ${action ?? 'nothing'}`, async () => {
      const p = probe();
      const [input, key] = await p.write(bytes);
      expect(matchInkInput(km, input, key)).toBe(action);
    });
  }

  it('matches remapped ctrl, alt and escape chords', async () => {
    const r = buildKeymap({ compose: 'ctrl+o', mailView: 'alt+m', help: ['?', 'escape'], zoom: 'ctrl+j' });
    if (!r.ok) throw new Error(r.problems.join());
    const p = probe();
    let [input, key] = await p.write('\x0f');
    expect(matchInkInput(r.keymap, input, key)).toBe('compose');
    [input, key] = await p.write('\x1bm');
    expect(matchInkInput(r.keymap, input, key)).toBe('mailView');
    [input, key] = await p.write('\n');
    expect(matchInkInput(r.keymap, input, key)).toBe('zoom');
    [input, key] = await p.write('\x1b');
    expect(matchInkInput(r.keymap, input, key)).toBe('help');
  });

  it('does not match a paste', () => {
    const none = combosFromInk('hello', { upArrow: false, downArrow: false, leftArrow: false, rightArrow: false, pageDown: false, pageUp: false, return: false, escape: false, ctrl: false, shift: false, tab: false, backspace: false, delete: false, meta: false });
    expect(none).toEqual([]);
  });
});
