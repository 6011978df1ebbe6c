// --workspace takes a name or a directory. A directory (a value with a slash, or . or ..) means
// that directory's workspace — the hub and server that `swb` run there would use — never a new
// workspace named after the spelling of the path.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { resolveRuntimePaths, workspaceFlagProblem } from '../../../src/hub/runtime-paths.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A git repository (a .git dir is all the lookup needs) with a subdirectory, and a dir outside it. */
function layout() {
  const base = mkdtempSync(join(tmpdir(), 'swb-paths-'));
  dirs.push(base);
  const repo = join(base, 'repo');
  mkdirSync(join(repo, '.git'), { recursive: true });
  mkdirSync(join(repo, 'src', 'deep'), { recursive: true });
  const outside = join(base, 'outside');
  mkdirSync(outside);
  return { repo, deep: join(repo, 'src', 'deep'), outside, env: { SWB_HOME: join(base, 'home') } };
}

describe('resolveRuntimePaths with --workspace', () => {
  test('a directory, absolute or relative, is the workspace swb would find there (the git root)', () => {
    const { repo, deep, outside, env } = layout();
    const there = resolveRuntimePaths({ cwd: deep, env });
    expect(there.workspace).toBe(repo);
    for (const value of [deep, repo, relative(outside, deep), '../repo/src']) {
      const p = resolveRuntimePaths({ cwd: outside, env, workspace: value });
      expect(p, value).toEqual(there);
    }
    expect(resolveRuntimePaths({ cwd: deep, env, workspace: '.' })).toEqual(there);
    expect(there.explicitWorkspace).toBe(false);
  });

  test('a name without a slash is a workspace by that name, apart from every directory', () => {
    const { outside, env } = layout();
    const named = resolveRuntimePaths({ cwd: outside, env, workspace: 'repo' });
    expect(named).toMatchObject({ workspace: 'repo', workspaceId: 'repo', explicitWorkspace: true });
    expect(named.socketPath).not.toBe(resolveRuntimePaths({ cwd: outside, env }).socketPath);
  });
});

describe('workspaceFlagProblem', () => {
  test('a directory that is not there is refused with a sentence; names and real directories pass', () => {
    const { repo, outside } = layout();
    expect(workspaceFlagProblem('repo', outside)).toBeNull();
    expect(workspaceFlagProblem('../repo', outside)).toBeNull();
    expect(workspaceFlagProblem(repo, '/')).toBeNull();
    expect(workspaceFlagProblem('./nope', outside)).toBe(`--workspace ./nope: ${join(outside, 'nope')} is not a directory (a name without a slash names a workspace instead)`);
    expect(workspaceFlagProblem(join(repo, '.git', 'HEAD'), outside)).toMatch(/is not a directory/);
  });
});
