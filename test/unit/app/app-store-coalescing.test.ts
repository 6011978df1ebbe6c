// The store tells its subscribers (the Ink tree) at most once per minIntervalMs, so a burst of row
// events costs one chrome render; timed on the store's clock.
import { describe, expect, it } from 'vitest';
import { initialState } from '../../../src/app/app-state.js';
import { AppStore } from '../../../src/app/app-store.js';
import { FakeClock } from '../../helpers/fake-clock.js';

describe('AppStore: telling subscribers', () => {
  it('a burst of changes is told once, minIntervalMs after the last tell, with the newest state', () => {
    const clock = new FakeClock();
    const store = new AppStore(initialState({ cols: 80, rows: 24 }, 'stack', 'dark'), 40, clock);
    const told: number[] = [];
    store.onChange((s) => told.push(s.size.cols));
    store.flush(); // the first frame
    told.length = 0;
    store.resize(81, 24);
    store.resize(82, 24);
    clock.advance(10);
    store.resize(83, 24);
    clock.advance(29);
    expect(told).toEqual([]);
    clock.advance(1);
    expect(told).toEqual([83]);
    expect(clock.pendingTimers).toBe(0);
    store.dispose();
  });

  it('flush tells at once and drops the pending tell', () => {
    const clock = new FakeClock();
    const store = new AppStore(initialState({ cols: 80, rows: 24 }, 'stack', 'dark'), 40, clock);
    const told: number[] = [];
    store.onChange((s) => told.push(s.size.cols));
    store.resize(90, 24);
    store.flush();
    clock.advance(100);
    expect(told).toEqual([90]);
    store.dispose();
  });
});
