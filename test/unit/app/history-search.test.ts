import { describe, expect, it } from 'vitest';
import { findHits, nextHit } from '../../../src/app/history-search.js';

describe('history search', () => {
  const lines = ['Error: one', 'ok', 'error two, error three', 'done'];

  it('is case-insensitive unless the query has a capital (smartcase), every occurrence counted', () => {
    expect(findHits(lines, 'error').map((h) => [h.line, h.start])).toEqual([
      [0, 0],
      [2, 0],
      [2, 11],
    ]);
    expect(findHits(lines, 'Error').map((h) => h.line)).toEqual([0]);
    expect(findHits(lines, '')).toEqual([]);
  });

  it('goes to the next older or newer hit, wrapping at either end', () => {
    const hits = findHits(lines, 'error');
    expect(nextHit(hits, 4, true)).toBe(2); // from below the end: the newest
    expect(nextHit(hits, 2, true)).toBe(0);
    expect(nextHit(hits, 0, true)).toBe(2); // wraps to the newest
    expect(nextHit(hits, 0, false)).toBe(1);
    expect(nextHit(hits, 3, false)).toBe(0); // wraps to the oldest
    expect(nextHit([], 0, true)).toBe(-1);
  });
});
