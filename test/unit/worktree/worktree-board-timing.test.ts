// The worktree board's debounce, exact on a fake clock: a row whose screen keeps changing is
// looked at once it has been still for SCREEN_QUIET_MS (1.5 s), not at every change.
import { describe, expect, it, vi } from 'vitest';
import type { Row } from '../../../src/rows/row.js';
import { Emitter } from '../../../src/util/event.js';
import { WorktreeBoard } from '../../../src/worktree/worktree-board.js';
import { FakeClock } from '../../helpers/fake-clock.js';

function fakeRow(name: string) {
  const screen = new Emitter<void>();
  const worktree = { repo: '/nonexistent/repo', path: '/nonexistent/repo-wt', branch: 'swb/x', base: { ref: 'main', commit: 'abc' } };
  const row = { name, spec: { worktree }, onScreenChange: screen.event } as unknown as Row;
  return { row, screen };
}

describe('WorktreeBoard timing', () => {
  it('looks at a row once its screen has been still for 1.5 s, however often it changed before', () => {
    const clock = new FakeClock();
    const board = new WorktreeBoard(() => undefined, clock);
    const { row, screen } = fakeRow('a');
    board.follow(row);
    const poke = vi.spyOn(board, 'poke');
    for (let i = 0; i < 10; i++) {
      screen.fire();
      clock.advance(200);
    }
    expect(poke).not.toHaveBeenCalled();
    // The last change was 200 ms ago: 1,300 ms more to go.
    clock.advance(1299);
    expect(poke).not.toHaveBeenCalled();
    clock.advance(1);
    expect(poke).toHaveBeenCalledTimes(1);
    expect(poke).toHaveBeenCalledWith('a', 0);
    board.dispose();
    screen.fire();
    clock.advance(10_000);
    expect(poke).toHaveBeenCalledTimes(1);
    expect(clock.pendingTimers).toBe(0);
  });
});
