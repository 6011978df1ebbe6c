import { createElement } from 'react';
import { Text, useInput, type Key } from 'ink';
import { render } from 'ink-testing-library';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  ACTION_DESCRIPTIONS,
  ACTIONS,
  buildKeymap,
  combosFromInk,
  comboId,
  DEFAULT_BINDINGS,
  defaultKeymap,
  describeBindings,
  findRawKey,
  formatKeyCombo,
  KEY_SCOPES,
  matchInkInput,
  matchRawInput,
  parseKeySpec,
  rawKeySequences,
  scopeOf,
  type InkKeyLike,
  type KeyCombo,
} from '../../../src/config/keymap.js';

const NO_KEY: InkKeyLike = {
  upArrow: false, downArrow: false, leftArrow: false, rightArrow: false, pageDown: false, pageUp: false,
  return: false, escape: false, ctrl: false, shift: false, tab: false, backspace: false, delete: false, meta: false,
};

function combo(spec: string): KeyCombo {
  const r = parseKeySpec(spec);
  if (!r.ok) throw new Error(`${spec}: ${r.problem}`);
  return r.combo;
}

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
      expect(ACTION_DESCRIPTIONS[action]).toBeTruthy();
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
      const ids = ACTIONS.filter((a) => scopeOf(a) === scope).flatMap((a) => DEFAULT_BINDINGS[a].map((s) => comboId(combo(s))));
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
    expect(r.ok && r.keymap.detachSequences).toContain('\x1d');
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

describe('rawKeySequences', () => {
  it.each([
    ['ctrl+\\', ['\x1c', '\x1b[27;5;92~', '\x1b[92;5u']],
    ['ctrl+a', ['\x01', '\x1b[27;5;97~', '\x1b[97;5u']],
    ['ctrl+space', ['\x00', '\x1b[32;5u']],
    ['alt+x', ['\x1bx', '\x1b[27;3;120~', '\x1b[120;3u']],
    ['q', ['q']],
    ['R', ['R', '\x1b[27;2;114~', '\x1b[114;2u']],
    ['enter', ['\r']],
    ['shift+tab', ['\x1b[Z', '\x1b[9;2u']],
    ['escape', ['\x1b']],
    ['backspace', ['\x7f', '\b']],
    ['up', ['\x1b[A', '\x1bOA']],
    ['ctrl+up', ['\x1b[1;5A']],
    ['home', ['\x1b[H', '\x1bOH', '\x1b[1~']],
    ['f1', ['\x1bOP', '\x1b[11~']],
    ['f5', ['\x1b[15~']],
    ['shift+f5', ['\x1b[15;2~']],
    ['delete', ['\x1b[3~']],
    ['pagedown', ['\x1b[6~']],
  ])('%j', (spec, seqs) => {
    expect(rawKeySequences(combo(spec))).toEqual(seqs);
  });

  it('matches raw chunks to actions and finds the detach key inside a burst', () => {
    const km = defaultKeymap();
    expect(matchRawInput(km, '\x1c')).toBe('detach');
    expect(matchRawInput(km, '\x1b[92;5u')).toBe('detach');
    expect(matchRawInput(km, '?')).toBe('help');
    expect(matchRawInput(km, '\x1b[Z')).toBe('focusPrev');
    expect(matchRawInput(km, 'hello')).toBeUndefined();
    expect(findRawKey('abc\x1cdef', km.detachSequences)).toEqual({ index: 3, length: 1 });
    expect(findRawKey('ab\x1b[92;5u', km.detachSequences)).toEqual({ index: 2, length: 7 });
    expect(findRawKey('plain typing', km.detachSequences)).toBeNull();
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
