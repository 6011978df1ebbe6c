import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatAge, nextAgeChange } from '../../../src/app/app-state.js';

describe('formatAge', () => {
  const t0 = Date.UTC(2026, 11, 1, 12, 0, 0);
  it('is coarse: now, <1m, then whole minutes, hours and days', () => {
    expect(formatAge(0, t0)).toBe('-');
    expect(formatAge(t0, t0 + 9_000)).toBe('now');
    expect(formatAge(t0, t0 + 10_000)).toBe('<1m');
    expect(formatAge(t0, t0 + 59_000)).toBe('<1m');
    expect(formatAge(t0, t0 + 60_000)).toBe('1m');
    expect(formatAge(t0, t0 + 59 * 60_000)).toBe('59m');
    expect(formatAge(t0, t0 + 3 * 3_600_000)).toBe('3h');
    expect(formatAge(t0, t0 + 2 * 86_400_000)).toBe('2d');
  });

  it('past the first minute, rows idle since different seconds change label at the same instant', () => {
    // 100 rows whose last output was spread over one minute: their labels differ only at minute marks.
    const rows = Array.from({ length: 100 }, (_, i) => t0 + i * 600);
    const labelsAt = (now: number) => rows.map((r) => formatAge(r, now)).join('|');
    let changes = 0;
    let last = labelsAt(t0 + 5 * 60_000);
    for (let now = t0 + 5 * 60_000 + 1000; now <= t0 + 15 * 60_000; now += 1000) {
      const labels = labelsAt(now);
      if (labels !== last) changes++;
      last = labels;
    }
    // Ten minutes of seconds: ten changes, one per minute (the old 10 s steps changed ~100 times).
    expect(changes).toBe(10);
  });
});

describe('nextAgeChange', () => {
  const t0 = Date.UTC(2026, 11, 1, 12, 0, 0);
  it('is when the label first reads differently: the same label up to it, another at it', () => {
    fc.assert(
      fc.property(fc.integer({ min: t0, max: t0 + 86_400_000 }), fc.integer({ min: 0, max: 3 * 86_400_000 }), fc.double({ min: 0, max: 1, noNaN: true }), (last, age, where) => {
        const now = last + age;
        const due = nextAgeChange(last, now);
        const label = formatAge(last, now);
        expect(due).toBeGreaterThan(now);
        const between = now + Math.floor((due - 1 - now) * where);
        expect(formatAge(last, between)).toBe(label);
        expect(formatAge(last, due - 1)).toBe(label);
        expect(formatAge(last, due)).not.toBe(label);
      }),
      { numRuns: 2000 },
    );
  });

  it('never, for a row that never printed', () => {
    expect(nextAgeChange(0, t0)).toBe(Infinity);
  });
});
