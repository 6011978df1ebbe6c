// AgeClock wakes when a header age would change, not every second. A fake clock.
import { beforeEach, describe, expect, it } from 'vitest';
import { formatAge } from '../../../src/app/app-state.js';
import { AgeClock } from '../../../src/terminal/age-clock.js';
import { FakeClock } from '../../helpers/fake-clock.js';

const t0 = Date.UTC(2026, 11, 1, 12, 0, 30);

let time: FakeClock;
beforeEach(() => {
  time = new FakeClock(t0);
});

/** Rows' last output times, and every instant the clock ticked. */
function setup(lastOutputs: number[]) {
  const ticks: number[] = [];
  const clock = new AgeClock(() => lastOutputs, () => ticks.push(time.now()), time);
  return { clock, ticks, lastOutputs };
}

describe('AgeClock', () => {
  it('ticks when a label changes: now -> <1m at 10 s, <1m -> 1m at the minute, then each minute', () => {
    const { clock, ticks } = setup([t0]);
    time.advance(4 * 60_000);
    // 12:00:40 (<1m), 12:01:30 (a minute passed and a minute mark: 1m), then 12:02, 12:03, 12:04.
    expect(ticks.map((t) => new Date(t).toISOString().slice(11, 19))).toEqual(['12:00:40', '12:01:30', '12:02:00', '12:03:00', '12:04:00']);
    for (const t of ticks) expect(formatAge(t0, t)).not.toBe(formatAge(t0, t - 1));
    clock.dispose();
  });

  it('wakes once a minute for 100 rows quiet for minutes, and never for rows that never printed', () => {
    const quiet = Array.from({ length: 100 }, (_, i) => t0 - 10 * 60_000 + i * 500);
    const { clock, ticks } = setup(quiet);
    time.advance(10 * 60_000);
    expect(ticks).toHaveLength(10);
    clock.dispose();
    const never = setup([0, 0]);
    time.advance(10 * 60_000);
    expect(never.ticks).toEqual([]);
    never.clock.dispose();
  });

  it('moves its wake earlier when a row prints: the new "now" ends 10 s later', () => {
    const rows = [t0 - 10 * 60_000];
    const { clock, ticks } = setup(rows);
    time.advance(5_000); // 12:00:35; next wake planned for 12:01:00
    rows[0] = time.now();
    clock.output(rows[0]);
    time.advance(10_000);
    expect(ticks.map((t) => new Date(t).toISOString().slice(11, 19))).toEqual(['12:00:45']);
    clock.dispose();
  });

  it('reads every age again on replan: a row that exited counts from its exit', () => {
    const since = [t0 - 10 * 60_000];
    const { clock, ticks } = setup(since);
    time.advance(2_000); // 12:00:32; next wake planned for 12:01:00
    since[0] = time.now(); // the row exited now: its header says "now" until 12:00:42
    clock.replan();
    time.advance(10_000);
    expect(ticks.map((t) => new Date(t).toISOString().slice(11, 19))).toEqual(['12:00:42']);
    clock.dispose();
  });

  it('stops when disposed', () => {
    const { clock, ticks } = setup([t0]);
    clock.dispose();
    time.advance(10 * 60_000);
    expect(ticks).toEqual([]);
  });
});
