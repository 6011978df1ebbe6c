// The colour level the server draws in, derived from its terminal's environment the same way by
// the client that starts it and by a server bin/swb starts beside its client.
import { describe, expect, test } from 'vitest';
import { colourLevel, terminalColourLevel } from '../../../src/util/colour-level.js';

describe('colour level', () => {
  test('from a depth in bits', () => {
    expect([1, 4, 8, 24].map(colourLevel)).toEqual(['0', '1', '2', '3']);
  });

  test('from a terminal’s environment, as node reads its colour depth', () => {
    expect(terminalColourLevel({ TERM: 'xterm-256color', COLORTERM: 'truecolor' })).toBe('3');
    expect(terminalColourLevel({ TERM: 'xterm-256color' })).toBe('2');
    expect(terminalColourLevel({ TERM: 'dumb' })).toBe('0');
  });
});
