// A header whose text changed sends only the cells that changed (issue #33: an idle dashboard's
// age turns cost 2.6 KB a minute when every header line went again).
import { describe, expect, it } from 'vitest';
import { segmentCells, segmentChange } from '../../../src/terminal/segment-diff.js';

const FG = '\x1b[0;38;2;196;203;232;48;2;42;47;69m';
const DIM = '\x1b[0;38;2;92;100;145;48;2;42;47;69m';
const header = (age: string) => `${FG} ○ i2 · ${DIM}unknown${FG}${age.padStart(30)} \x1b[0m`;

/** What a terminal shows after `before`, then `change` drawn from its offset: the cells, as text and style. */
function applied(before: string, change: { offset: number; text: string }) {
  const cells = segmentCells(before)!;
  const patch = segmentCells(change.text)!;
  cells.splice(change.offset, patch.length, ...patch);
  return cells;
}

describe('segmentChange', () => {
  it('an age turning "<1m" into " 1m" is one cell, in its colours', () => {
    const change = segmentChange(header('<1m'), header('1m'))!;
    expect(change.offset).toBe(segmentCells(header('<1m'))!.findIndex((c) => c.text === '<'));
    expect(change.text).toBe(`${FG} \x1b[0m`);
    expect(applied(header('<1m'), change)).toEqual(segmentCells(header('1m')));
  });

  it('nothing when the texts draw the same cells, the whole text when they cannot be compared', () => {
    expect(segmentChange(header('1m'), header('1m'))).toBeNull();
    // The same cells written with other (equivalent) escapes: nothing to send.
    expect(segmentChange(`${FG}ab\x1b[0m`, `${FG}a${FG}b\x1b[0m`)).toBeNull();
    // An escape that is not SGR, or another width: the whole new text.
    expect(segmentChange('ab', '\x1b]0;t\x07ab')).toEqual({ offset: 0, text: '\x1b]0;t\x07ab' });
    expect(segmentChange('abc', 'ab')).toEqual({ offset: 0, text: 'ab' });
  });

  it('never sends half a wide character, and keeps combining marks with their cell', () => {
    // "日" is two cells; "x" after it changed: only x's cell.
    expect(segmentChange('a日x', 'a日y')).toEqual({ offset: 3, text: '\x1b[0my\x1b[0m' });
    // A wide character replaced by two narrow ones: both of its cells.
    expect(segmentChange('a日x', 'abcx')).toEqual({ offset: 1, text: '\x1b[0mbc\x1b[0m' });
    expect(segmentChange('ae\u0301x', 'ae\u0301y')).toEqual({ offset: 2, text: '\x1b[0my\x1b[0m' });
    expect(segmentChange('ae\u0301x', 'aex')).toEqual({ offset: 1, text: '\x1b[0me\x1b[0m' });
  });

  it('a style added on top of another is kept with it, and a reset ends both', () => {
    const bold = '\x1b[1m';
    const change = segmentChange(`${FG}${bold}ab\x1b[0mc`, `${FG}${bold}aX\x1b[0mc`)!;
    expect(change).toEqual({ offset: 1, text: `${FG}${bold}X\x1b[0m` });
    expect(segmentCells(`${FG}${bold}a\x1b[0mc`)![1]!.style).toBe('');
  });
});
