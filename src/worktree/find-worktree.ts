// A worktree row's worktree found again from git alone, for when swb no longer holds the row (closed
// with `swb kill`, the server stopped or gone): by the row's name, where swb puts it — the
// directory `<root>/<name>` (default root `<repo>/../<repo>.swb`) or the branch `swb/<name>` in a
// directory named after the row — and only if `git worktree list --porcelain` lists it as a linked
// worktree of that repository. Nothing is guessed from the file system alone: a directory git does
// not know is not a worktree swb may remove.
import { realpathSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { git } from './git.js';
import type { Outcome, WorktreeInfo } from './worktree.js';

interface ListedWorktree {
  path: string;
  /** `refs/heads/...`, or null (detached). */
  branch: string | null;
  head: string | null;
}

/** `git worktree list --porcelain`, parsed (the first entry is the main checkout). */
export function parseWorktreeList(porcelain: string): ListedWorktree[] {
  const out: ListedWorktree[] = [];
  for (const block of porcelain.split(/\n\n+/)) {
    let path: string | null = null;
    let branch: string | null = null;
    let head: string | null = null;
    for (const line of block.split('\n')) {
      if (line.startsWith('worktree ')) path = line.slice('worktree '.length);
      else if (line.startsWith('branch ')) branch = line.slice('branch '.length);
      else if (line.startsWith('HEAD ')) head = line.slice('HEAD '.length);
    }
    if (path !== null) out.push({ path, branch, head });
  }
  return out;
}

/**
 * The worktree of the row `name` in the repository around `cwd`, or NOT_FOUND saying where it was
 * looked for. `root` is the config's `worktrees.root` (relative to the repository's top).
 */
export async function findRowWorktree(cwd: string, name: string, root?: string): Promise<Outcome<WorktreeInfo>> {
  const top = await git(cwd, ['rev-parse', '--show-toplevel'], { allowFail: true });
  if (top.status !== 0) return { error: { code: 'NOT_FOUND', message: `No row named ${name} runs, and ${cwd} is not inside a git repository where its worktree could be found` } };
  let repo = top.stdout.trim();
  const common = (await git(repo, ['rev-parse', '--path-format=absolute', '--git-common-dir'], { allowFail: true })).stdout.trim();
  if (common && basename(common) === '.git') repo = dirname(common);
  const where = join(root !== undefined ? resolve(repo, root) : join(dirname(repo), `${basename(repo)}.swb`), name);
  const branch = `refs/heads/swb/${name}`;
  const listed = parseWorktreeList((await git(repo, ['worktree', 'list', '--porcelain'])).stdout).slice(1);
  const found = listed.find((w) => samePath(w.path, where)) ?? listed.find((w) => w.branch === branch && basename(w.path) === name);
  if (!found) return { error: { code: 'NOT_FOUND', message: `No row named ${name} runs, and git lists no worktree of it (${where}, branch swb/${name}) in ${repo}` } };
  if (found.branch === null) return { error: { code: 'BAD_REQUEST', message: `The worktree ${found.path} has no branch checked out (detached HEAD); remove it with git worktree remove` } };
  return { ok: { repo, path: found.path, branch: found.branch.slice('refs/heads/'.length), base: { ref: null, commit: found.head ?? '' } } };
}

/** The same directory, even when one of the two is spelled through a symlink. */
function samePath(a: string, b: string): boolean {
  if (a === b) return true;
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return false;
  }
}
