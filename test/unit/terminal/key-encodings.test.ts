import { describe, expect, it } from 'vitest';
import { defaultKeymap } from '../../../src/config/keymap.js';
import { findRawKey, matchRawInput, rawKeySequences } from '../../../src/terminal/key-encodings.js';
import { combo } from '../config/key-combo.js';

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
    const detachSequences = rawKeySequences(km.detach);
    expect(findRawKey('abc\x1cdef', detachSequences)).toEqual({ index: 3, length: 1 });
    expect(findRawKey('ab\x1b[92;5u', detachSequences)).toEqual({ index: 2, length: 7 });
    expect(findRawKey('plain typing', detachSequences)).toBeNull();
  });
});
