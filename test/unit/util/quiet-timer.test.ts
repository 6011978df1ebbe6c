import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { QuietTimer } from '../../../src/util/quiet-timer.js';

describe('QuietTimer', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('runs once things have been quiet for quietMs', () => {
    const fn = vi.fn();
    const timer = new QuietTimer(50, 500, fn);
    timer.poke();
    vi.advanceTimersByTime(30);
    timer.poke();
    vi.advanceTimersByTime(30);
    expect(fn).not.toHaveBeenCalled();
    vi.advanceTimersByTime(20);
    expect(fn).toHaveBeenCalledTimes(1);
    expect(timer.pending).toBe(false);
  });

  it('runs at most maxMs after the first poke however often it is poked', () => {
    const fn = vi.fn();
    const timer = new QuietTimer(50, 500, fn);
    for (let t = 0; t < 490; t += 10) {
      timer.poke();
      vi.advanceTimersByTime(10);
    }
    expect(fn).not.toHaveBeenCalled();
    timer.poke();
    vi.advanceTimersByTime(10);
    expect(fn).toHaveBeenCalledTimes(1);
    // The next poke starts a new bound.
    timer.poke();
    vi.advanceTimersByTime(49);
    expect(fn).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(1);
    expect(fn).toHaveBeenCalledTimes(2);
  });

  it('keeps one timer through a burst of pokes, and keeps the bound when it is shorter than the quiet wait', () => {
    const fn = vi.fn();
    const timer = new QuietTimer(50, 500, fn);
    for (let i = 0; i < 20; i++) {
      timer.poke();
      vi.advanceTimersByTime(5);
    }
    // A keystroke's poke every 5 ms: the timer was armed once and re-armed as it came due.
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(45);
    expect(fn).toHaveBeenCalledTimes(1);
    const short = vi.fn();
    new QuietTimer(50, 20, short).poke();
    vi.advanceTimersByTime(20);
    expect(short).toHaveBeenCalledTimes(1);
  });

  it('cancel and dispose forget the pending run', () => {
    const fn = vi.fn();
    const timer = new QuietTimer(50, 500, fn);
    timer.poke();
    timer.cancel();
    timer.poke();
    timer.dispose();
    vi.advanceTimersByTime(1000);
    expect(fn).not.toHaveBeenCalled();
  });
});
