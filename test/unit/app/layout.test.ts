import { describe, expect, it } from 'vitest';
import { computeLayout, neighbour, shareOut } from '../../../src/app/layout.js';

const base = { cols: 100, rows: 32, focused: 'a', mode: 'stack' as const, zoomed: false, chromeHeight: 2 };

describe('computeLayout', () => {
  it('stacks rows over the whole area above the chrome, the focused row larger', () => {
    const l = computeLayout({ ...base, names: ['a', 'b', 'c'] });
    expect(l.chrome).toEqual({ x: 0, y: 30, width: 100, height: 2 });
    const heights = l.rows.map((r) => r.viewport.height + 1);
    expect(heights.reduce((a, b) => a + b, 0)).toBe(30);
    expect(heights[0]).toBeGreaterThan(heights[1]!);
    // Rows tile the area without overlap.
    for (let i = 1; i < l.rows.length; i++) expect(l.rows[i]!.header.y).toBe(l.rows[i - 1]!.viewport.y + l.rows[i - 1]!.viewport.height);
  });

  it('zoom shows only the focused row, full size', () => {
    const l = computeLayout({ ...base, names: ['a', 'b', 'c'], focused: 'b', zoomed: true });
    expect(l.rows.map((r) => r.name)).toEqual(['b']);
    expect(l.rows[0]!.viewport).toEqual({ x: 0, y: 1, width: 100, height: 29 });
  });

  it('grid puts rows side by side with one-column separators inside the width', () => {
    const l = computeLayout({ ...base, mode: 'grid', names: ['a', 'b', 'c', 'd'] });
    const sameLine = l.rows.filter((r) => r.header.y === 0);
    expect(sameLine).toHaveLength(2);
    const [left, right] = sameLine;
    expect(right!.header.x).toBe(left!.header.x + left!.header.width + 1);
    for (const r of l.rows) expect(r.viewport.x + r.viewport.width).toBeLessThanOrEqual(100);
  });

  it('hides rows that cannot get even a header line, but never the focused one', () => {
    const names = Array.from({ length: 40 }, (_, i) => `r${i}`);
    const l = computeLayout({ ...base, rows: 12, names, focused: 'r39' });
    expect(l.rows).toHaveLength(10);
    expect(l.rows.some((r) => r.name === 'r39')).toBe(true);
    expect(l.hidden).toHaveLength(30);
  });

  it('finds the neighbour in a direction', () => {
    const l = computeLayout({ ...base, mode: 'grid', names: ['a', 'b', 'c', 'd'] });
    expect(neighbour(l, 'a', 'right')).toBe('b');
    expect(neighbour(l, 'a', 'down')).toBe('c');
    expect(neighbour(l, 'a', 'up')).toBeNull();
  });
});

describe('shareOut', () => {
  it('splits exactly, proportionally, with minimums', () => {
    expect(shareOut(10, [1, 1, 1], 1)).toEqual([4, 3, 3]);
    expect(shareOut(10, [2, 1], 1).reduce((a, b) => a + b, 0)).toBe(10);
    expect(shareOut(2, [1, 1, 1], 1).reduce((a, b) => a + b, 0)).toBe(2);
  });
});
