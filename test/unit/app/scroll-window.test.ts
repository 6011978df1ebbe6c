import { describe, expect, it } from 'vitest';
import { clampOffset, followSelection } from '../../../src/app/scroll-window.js';

describe('scroll window', () => {
  it('clamps an offset to the list', () => {
    expect(clampOffset(-3, 10, 4)).toBe(0);
    expect(clampOffset(50, 10, 4)).toBe(6);
    expect(clampOffset(5, 3, 4)).toBe(0);
  });

  it('moves just enough to keep the selection visible', () => {
    expect(followSelection(0, 2, 10, 4)).toBe(0);
    expect(followSelection(0, 5, 10, 4)).toBe(2);
    expect(followSelection(5, 3, 10, 4)).toBe(3);
    expect(followSelection(2, 9, 10, 4)).toBe(6);
  });
});
