// The shared end of hidden rows' read batches, exact on a fake clock: waits started at different
// times end together at the next multiple of the period; a cancelled wait never runs, and the
// clock's timer runs only while someone waits.
import { describe, expect, it } from 'vitest';
import { ReadBatchClock } from '../../../src/rows/read-batch-clock.js';
import { FakeClock } from '../../helpers/fake-clock.js';

describe('ReadBatchClock', () => {
  it('ends waits started at different times together, at the next boundary', () => {
    const clock = new FakeClock(1_000_030); // 30 ms past a boundary of 250
    const batches = new ReadBatchClock(250, clock);
    const ended: string[] = [];
    batches.wait(() => ended.push('a'));
    clock.advance(100);
    batches.wait(() => ended.push('b'));
    clock.advance(119);
    expect(ended).toEqual([]);
    clock.advance(1); // 1_000_250
    expect(ended).toEqual(['a', 'b']);
    // A wait started right after waits a whole period; one started late in it, only the rest.
    batches.wait(() => ended.push('c'));
    clock.advance(249);
    expect(ended).toEqual(['a', 'b']);
    clock.advance(1);
    expect(ended).toEqual(['a', 'b', 'c']);
  });

  it('never runs a cancelled wait, and keeps no timer once nobody waits', () => {
    const clock = new FakeClock(0);
    let timers = 0;
    const counting = { now: () => clock.now(), setTimer: (fn: () => void, ms: number) => (timers++, clock.setTimer(fn, ms)) };
    const batches = new ReadBatchClock(250, counting);
    const ended: string[] = [];
    const a = batches.wait(() => ended.push('a'));
    const b = batches.wait(() => ended.push('b'));
    expect(timers).toBe(1);
    a.dispose();
    clock.advance(250);
    expect(ended).toEqual(['b']);
    b.dispose(); // after it ran: nothing
    const c = batches.wait(() => ended.push('c'));
    c.dispose();
    clock.advance(1000);
    expect(ended).toEqual(['b']);
    expect(timers).toBe(2);
  });
});
