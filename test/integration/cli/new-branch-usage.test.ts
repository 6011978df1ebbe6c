// `swb new --worktree --branch` takes a branch name; a full ref other than refs/heads/... is not one,
// and is the command line's mistake (issue #34.3): exit 2 with the reason, before any server is asked.
import { afterEach, describe, expect, it } from 'vitest';
import { runCleanups } from '../../helpers/cleanup.js';
import { runSwb } from '../../helpers/run-swb.js';
import { createTempHome } from '../../helpers/temp-home.js';

afterEach(runCleanups);

describe('swb new --branch', () => {
  it('refuses refs/tags/... as a usage error (exit 2) without reaching a server', async () => {
    const home = createTempHome();
    const r = await runSwb(['new', '--worktree', '--branch', 'refs/tags/v1', '--', 'true'], { home });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^swb new: --branch: "refs\/tags\/v1" is a full ref, not a branch name/);
  });
});
