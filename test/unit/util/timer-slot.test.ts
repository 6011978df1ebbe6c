import { describe, expect, it } from 'vitest';
import { TimerSlot } from '../../../src/util/timer-slot.js';
import { DisposableMap } from '../../../src/util/disposable-map.js';
import { toDisposable } from '../../../src/util/lifecycle.js';
import { FakeClock } from '../../helpers/fake-clock.js';

describe('TimerSlot', () => {
  it('runs once after its time and is no longer pending', () => {
    const clock = new FakeClock();
    const slot = new TimerSlot(clock);
    const runs: number[] = [];
    slot.set(() => runs.push(clock.now()), 50);
    expect(slot.pending).toBe(true);
    clock.advance(49);
    expect(runs).toEqual([]);
    clock.advance(1);
    expect(runs).toHaveLength(1);
    expect(slot.pending).toBe(false);
  });

  it('setting it again replaces the timer before, so only the last one runs', () => {
    const clock = new FakeClock();
    const slot = new TimerSlot(clock);
    const runs: string[] = [];
    slot.set(() => runs.push('first'), 50);
    clock.advance(30);
    slot.set(() => runs.push('second'), 50);
    clock.advance(30);
    expect(runs).toEqual([]);
    clock.advance(20);
    expect(runs).toEqual(['second']);
  });

  it('setIfIdle keeps the pending timer, so the first request sets the time', () => {
    const clock = new FakeClock();
    const slot = new TimerSlot(clock);
    const runs: string[] = [];
    slot.setIfIdle(() => runs.push('first'), 50);
    clock.advance(30);
    slot.setIfIdle(() => runs.push('second'), 50);
    clock.advance(20);
    expect(runs).toEqual(['first']);
    slot.setIfIdle(() => runs.push('third'), 10);
    clock.advance(10);
    expect(runs).toEqual(['first', 'third']);
  });

  it('clear and dispose cancel; a disposed slot arms nothing more', () => {
    const clock = new FakeClock();
    const slot = new TimerSlot(clock);
    const runs: string[] = [];
    slot.set(() => runs.push('cleared'), 10);
    slot.clear();
    expect(slot.pending).toBe(false);
    slot.set(() => runs.push('disposed'), 10);
    slot.dispose();
    slot.set(() => runs.push('after dispose'), 10);
    clock.advance(100);
    expect(runs).toEqual([]);
    expect(slot.pending).toBe(false);
  });
});

describe('DisposableMap', () => {
  function tracked(log: string[], name: string) {
    return toDisposable(() => log.push(name));
  }

  it('disposes the value a set replaces and the value a delete removes', () => {
    const log: string[] = [];
    const map = new DisposableMap<string, ReturnType<typeof tracked>>();
    map.set('a', tracked(log, 'a1'));
    map.set('a', tracked(log, 'a2'));
    expect(log).toEqual(['a1']);
    expect(map.delete('a')).toBe(true);
    expect(map.delete('a')).toBe(false);
    expect(log).toEqual(['a1', 'a2']);
    expect(map.size).toBe(0);
  });

  it('dispose releases every value even when one throws, and a later set is released at once', () => {
    const log: string[] = [];
    const map = new DisposableMap<string, { dispose(): void }>();
    map.set('bad', { dispose: () => { throw new Error('boom'); } });
    map.set('good', tracked(log, 'good'));
    expect(() => map.dispose()).toThrow('boom');
    expect(log).toEqual(['good']);
    map.set('late', tracked(log, 'late'));
    expect(log).toEqual(['good', 'late']);
    expect(map.has('late')).toBe(false);
  });
});
