// A row's state changes as `swb events --kinds state` streams them (with the server's time of each
// change, its source and reason): the real-agent hook tests read a turn's start and end from here.
import { expect } from 'vitest';
import { spawnSwb } from './run-swb.js';
import type { TempHome } from './temp-home.js';

export interface StateEvent {
  kind: 'state';
  at: number;
  row: string;
  state: string;
  rule: string | null;
  reason?: string | null;
  source?: string;
  /** When the agent started the hook (or wrote the transcript line) behind this state; absent when the screen decided. */
  signalAt?: number;
}

/** Appends every state event of `row` to `states` as it comes (until the test's cleanup ends the stream). */
export function followStates(home: TempHome, row: string, states: StateEvent[]): void {
  const events = spawnSwb(['events', '--json', '--kinds', 'state', '--row', row], { home, timeoutMs: 300_000 });
  let seen = 0;
  const poll = setInterval(() => {
    const lines = events.stdout().split('\n');
    for (; seen < lines.length - 1; seen++) states.push(JSON.parse(lines[seen]!) as StateEvent);
  }, 10);
  void events.exited.then(() => clearInterval(poll));
}

/**
 * How soon swb read a hook-decided state after the agent started that hook (ms): the "a turn's
 * start and end seen within 100 ms", measured from the hook's start, since when the agent runs its hook is
 * the agent's. Within 100 ms, or the hook process's own start-to-exit (`floorMs`, measured in the same
 * run) plus 50 ms where a loaded machine makes that longer: the hook's run is part of the figure.
 */
export function expectAtTheHooksPace(e: StateEvent | undefined, floorMs: number, what: string): number {
  expect(e, `${what}: a state decided by a hook`).toBeDefined();
  expect(e!.signalAt, `${what}: the hook's start on the state (${JSON.stringify(e)})`).toBeTypeOf('number');
  const lag = e!.at - e!.signalAt!;
  expect(lag, `${what}: read ${lag} ms after the hook's start (hook floor ${floorMs.toFixed(0)} ms)`).toBeGreaterThanOrEqual(0);
  expect(lag, `${what}: read ${lag} ms after the hook's start (hook floor ${floorMs.toFixed(0)} ms)`).toBeLessThanOrEqual(Math.max(100, floorMs + 50));
  return lag;
}
