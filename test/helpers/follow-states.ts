// A row's state changes as `swb events --kinds state` streams them (with the server's time of each
// change, its source and reason): the real-agent hook tests read a turn's start and end from here.
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
