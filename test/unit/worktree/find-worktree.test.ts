import { describe, expect, test } from 'vitest';
import { parseWorktreeList } from '../../../src/worktree/find-worktree.js';

describe('parseWorktreeList', () => {
  test('reads each block of git worktree list --porcelain: path, HEAD, branch (or none when detached)', () => {
    const porcelain = [
      'worktree /repo',
      'HEAD 1111111111111111111111111111111111111111',
      'branch refs/heads/main',
      '',
      'worktree /repo.swb/exp',
      'HEAD 2222222222222222222222222222222222222222',
      'branch refs/heads/swb/exp',
      'prunable gitdir file points to non-existent location',
      '',
      'worktree /elsewhere/detached',
      'HEAD 3333333333333333333333333333333333333333',
      'detached',
      '',
    ].join('\n');
    expect(parseWorktreeList(porcelain)).toEqual([
      { path: '/repo', head: '1111111111111111111111111111111111111111', branch: 'refs/heads/main' },
      { path: '/repo.swb/exp', head: '2222222222222222222222222222222222222222', branch: 'refs/heads/swb/exp' },
      { path: '/elsewhere/detached', head: '3333333333333333333333333333333333333333', branch: null },
    ]);
  });
});
