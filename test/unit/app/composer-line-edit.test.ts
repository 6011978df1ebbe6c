import { describe, expect, it } from 'vitest';
import { cleanInput, editLine, lineWindow } from '../../../src/app/composer-line-edit.js';
import { inkWidth } from '../../../src/text/ink-width.js';
import { key } from './key.js';

const at = (text: string, cursor = text.length) => ({ text, cursor });

describe('editLine', () => {
  it('inserts typed and pasted text at the cursor', () => {
    expect(editLine(at('helo', 3), 'l', key())).toEqual(at('hello', 4));
    expect(editLine(at('ab', 1), 'XYZ', key())).toEqual(at('aXYZb', 4));
  });

  it('erases backwards on Backspace, which Ink reports as delete', () => {
    expect(editLine(at('abc'), '', key({ delete: true }))).toEqual(at('ab'));
    expect(editLine(at('abc'), '', key({ backspace: true }))).toEqual(at('ab'));
    expect(editLine(at('abc', 0), '', key({ delete: true }))).toEqual(at('abc', 0));
  });

  it('never splits a surrogate pair', () => {
    const text = 'a😀b';
    expect(editLine(at(text, 3), '', key({ leftArrow: true }))).toEqual(at(text, 1));
    expect(editLine(at(text, 1), '', key({ rightArrow: true }))).toEqual(at(text, 3));
    expect(editLine(at(text, 3), '', key({ delete: true }))).toEqual(at('ab', 1));
  });

  it('moves with the arrows, Home/End and Ctrl-A/E, and clamps at both ends', () => {
    expect(editLine(at('abc', 0), '', key({ leftArrow: true }))).toEqual(at('abc', 0));
    expect(editLine(at('abc'), '', key({ rightArrow: true }))).toEqual(at('abc', 3));
    expect(editLine(at('abc'), '', key({ home: true }))).toEqual(at('abc', 0));
    expect(editLine(at('abc', 0), '', key({ end: true }))).toEqual(at('abc', 3));
    expect(editLine(at('abc'), 'a', key({ ctrl: true }))).toEqual(at('abc', 0));
    expect(editLine(at('abc', 1), 'e', key({ ctrl: true }))).toEqual(at('abc', 3));
  });

  it('kills with Ctrl-U, Ctrl-K and Ctrl-W like readline', () => {
    expect(editLine(at('hello world', 6), 'u', key({ ctrl: true }))).toEqual(at('world', 0));
    expect(editLine(at('hello world', 5), 'k', key({ ctrl: true }))).toEqual(at('hello', 5));
    expect(editLine(at('@a say hi  '), 'w', key({ ctrl: true }))).toEqual(at('@a say '));
  });

  it('leaves Enter, Esc, Tab and Up/Down to the caller', () => {
    for (const k of [{ return: true }, { escape: true }, { tab: true }, { upArrow: true }, { downArrow: true }]) {
      expect(editLine(at('x'), '', key(k))).toBeNull();
    }
    expect(editLine(at('x'), 'z', key({ ctrl: true }))).toBeNull();
  });

  it('keeps control characters and escape sequences out of the line', () => {
    expect(cleanInput('a\x1b[31mred\x07\r\nb')).toBe('ared b');
    expect(editLine(at(''), '\x1b]0;title\x07ok', key())).toEqual(at('ok'));
  });
});

describe('lineWindow', () => {
  it('shows the whole line when it fits, the cursor on a space at the end', () => {
    expect(lineWindow(at('hi'), 10)).toEqual({ before: 'hi', at: ' ', after: '' });
    expect(lineWindow(at('hi', 0), 10)).toEqual({ before: '', at: 'h', after: 'i' });
  });

  it('scrolls so the cursor stays visible, marking what is cut', () => {
    const text = 'abcdefghijklmnopqrstuvwxyz';
    const w = lineWindow(at(text), 10);
    expect(w.before.startsWith('…')).toBe(true);
    expect(w.before.endsWith('z')).toBe(true);
    expect(inkWidth(w.before) + 1).toBeLessThanOrEqual(10);
    const start = lineWindow(at(text, 0), 10);
    expect(start.before).toBe('');
    expect(start.at).toBe('a');
    expect(inkWidth(start.at + start.after)).toBeLessThanOrEqual(10);
    expect(start.after.endsWith('…')).toBe(true);
  });

  it('counts wide characters by their cells', () => {
    const w = lineWindow(at('日本語のテキスト'), 8);
    expect(inkWidth(w.before) + 1).toBeLessThanOrEqual(8);
  });

  it('counts as Ink does and cuts whole clusters: an emoji with VS16 or a skin tone is one 2-cell cluster', () => {
    // By code point these would be 1 (❤ + VS16) and 4 (👍 + 🏽) cells; Ink lays them out as 2 each.
    for (const text of ['❤️❤️❤️❤️❤️❤️', '👍🏽👍🏽👍🏽👍🏽👍🏽👍🏽']) {
      const w = lineWindow(at(text), 8);
      expect(w.before).toMatch(/^…/);
      expect(inkWidth(w.before) + 1).toBeLessThanOrEqual(8);
      expect(inkWidth(w.before) + 1).toBeGreaterThanOrEqual(7); // and uses the room it has
      expect(text.endsWith(w.before.slice(1))).toBe(true); // no cluster split at the cut
    }
  });
});
