// An agent's own git worktree (issue #12): made from a base commit on a branch of its own, next to
// the repository (never inside the checkout, where tools would index it), with the untracked files
// `.worktreeinclude` names copied in; reviewed against the base as of its start; merged back into
// the base branch in the main checkout only when nothing would be lost; removed only when its work
// is reachable from another branch and its tree is clean. Every refusal says what is in the way.
import { existsSync, mkdirSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import type { ErrorCode } from '../protocol/error-codes.js';
import { normalizeBranch } from './branch-name.js';
import { copyIncluded, type IncludedCopy } from './copy-included.js';
import { git, GitError } from './git.js';

export interface WorktreeInfo {
  /** The main checkout's top directory. */
  repo: string;
  /** The worktree's directory. */
  path: string;
  branch: string;
  /** What it started from: the branch it was cut from (null: a detached commit) and that commit. */
  base: { ref: string | null; commit: string };
}

export type Outcome<T> = { ok: T } | { error: { code: ErrorCode; message: string } };

const fail = (code: ErrorCode, message: string): { error: { code: ErrorCode; message: string } } => ({ error: { code, message } });

/** A GitError as a typed refusal (any other error is thrown on: it is a bug, not a refusal). */
function gitFailure(err: unknown): { error: { code: ErrorCode; message: string } } {
  if (err instanceof GitError) return fail('GIT_FAILED', err.message);
  throw err;
}

export interface WorktreeRequest {
  /** Where the operator asked from (any directory inside the repository). */
  cwd: string;
  /** The row's name (the default branch is swb/<name>, the default directory <repo>.swb/<name>). */
  name: string;
  branch?: string;
  base?: string;
  /** Use the branch when it exists already (instead of refusing BRANCH_EXISTS). */
  reuseBranch?: boolean;
  /** Directory that holds the worktrees (default: `<repo>/../<repo>.swb`). */
  root?: string;
}

export interface WorktreePlan extends WorktreeInfo {
  /** The branch exists and is checked out as it is (no -b). */
  reuse: boolean;
}

/** Resolves where the worktree goes and from what, refusing what would fail or clobber something. */
export async function planWorktree(r: WorktreeRequest): Promise<Outcome<WorktreePlan>> {
  try {
    const top = await git(r.cwd, ['rev-parse', '--show-toplevel'], { allowFail: true });
    if (top.status !== 0) return fail('NOT_A_REPO', `${r.cwd} is not inside a git repository; a worktree row needs one (git init, or run it from a checkout)`);
    let repo = top.stdout.trim();
    // From inside a linked worktree, the main checkout is the common dir's parent.
    const common = (await git(repo, ['rev-parse', '--path-format=absolute', '--git-common-dir'], { allowFail: true })).stdout.trim();
    if (common && basename(common) === '.git') repo = dirname(common);
    const asked = normalizeBranch(r.branch ?? `swb/${r.name}`);
    if ('problem' in asked) return fail('BAD_REQUEST', asked.problem);
    const branch = asked.ok;
    // git refuses a name starting with "-" itself; one it would expand (@{-1}) is refused too: the
    // branch is the name given, never one git looks up.
    const valid = await git(repo, ['check-ref-format', '--branch', branch], { allowFail: true });
    if (valid.status !== 0 || valid.stdout.trim() !== branch) return fail('BAD_REQUEST', `${JSON.stringify(branch)} is not a valid branch name`);
    const exists = (await git(repo, ['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`], { allowFail: true })).status === 0;
    if (exists && !r.reuseBranch) return fail('BRANCH_EXISTS', `the branch ${branch} exists already: reuse it (--reuse-branch) or name another (--worktree BRANCH)`);
    let baseRef: string | null;
    let baseCommit: string;
    if (r.base !== undefined) {
      const c = await git(repo, ['rev-parse', '--verify', '--quiet', `${r.base}^{commit}`], { allowFail: true });
      if (c.status !== 0) return fail('BAD_REQUEST', `the base ${JSON.stringify(r.base)} does not name a commit in ${repo}`);
      baseCommit = c.stdout.trim();
      const isBranch = (await git(repo, ['rev-parse', '--verify', '--quiet', `refs/heads/${r.base}`], { allowFail: true })).status === 0;
      baseRef = isBranch ? r.base : null;
    } else {
      const head = await git(repo, ['rev-parse', '--verify', '--quiet', 'HEAD^{commit}'], { allowFail: true });
      if (head.status !== 0) return fail('BAD_REQUEST', `${repo} has no commit yet: commit something first, or give --base`);
      baseCommit = head.stdout.trim();
      const sym = await git(repo, ['symbolic-ref', '--quiet', '--short', 'HEAD'], { allowFail: true });
      baseRef = sym.status === 0 ? sym.stdout.trim() : null;
    }
    if (exists) {
      // A reused branch keeps what it has; its base for review is where it meets the base.
      const mb = await git(repo, ['merge-base', baseCommit, `refs/heads/${branch}`], { allowFail: true });
      if (mb.status === 0) baseCommit = mb.stdout.trim();
    }
    const root = r.root !== undefined ? resolve(repo, r.root) : join(dirname(repo), `${basename(repo)}.swb`);
    const path = join(root, r.name);
    if (isInside(path, repo)) return fail('BAD_REQUEST', `the worktree would be inside the checkout (${path}); put worktrees outside it`);
    if (existsSync(path)) return fail('BAD_REQUEST', `${path} exists already; remove it or name the row differently`);
    return { ok: { repo, path, branch, base: { ref: baseRef, commit: baseCommit }, reuse: exists } };
  } catch (err) {
    return gitFailure(err);
  }
}

/** Makes the worktree and copies the untracked files `.worktreeinclude` lists into it (saying what it skipped). */
export async function createWorktree(plan: WorktreePlan): Promise<Outcome<IncludedCopy>> {
  try {
    mkdirSync(dirname(plan.path), { recursive: true });
    const args = plan.reuse ? ['worktree', 'add', plan.path, plan.branch] : ['worktree', 'add', '-b', plan.branch, plan.path, plan.base.commit];
    await git(plan.repo, args);
    return { ok: await copyIncluded(plan.repo, plan.path) };
  } catch (err) {
    return gitFailure(err);
  }
}

export interface WorktreeStatus {
  branch: string;
  /** Commits on the branch the base branch does not have, and the other way round. */
  ahead: number;
  behind: number;
  /** Uncommitted changes or untracked files. */
  dirty: boolean;
  /** The directory is gone (deleted by hand). */
  missing: boolean;
}

export async function worktreeStatus(info: WorktreeInfo): Promise<WorktreeStatus> {
  if (!existsSync(info.path)) return { branch: info.branch, ahead: 0, behind: 0, dirty: false, missing: true };
  const against = await baseTip(info);
  const [counts, status, head] = await Promise.all([
    git(info.path, ['rev-list', '--left-right', '--count', `${against}...HEAD`], { allowFail: true }),
    git(info.path, ['status', '--porcelain', '-z', '--untracked-files=normal'], { allowFail: true }),
    git(info.path, ['symbolic-ref', '--quiet', '--short', 'HEAD'], { allowFail: true }),
  ]);
  const [behind, ahead] = counts.status === 0 ? counts.stdout.trim().split(/\s+/).map(Number) : [0, 0];
  return { branch: head.status === 0 ? head.stdout.trim() : info.branch, ahead: ahead ?? 0, behind: behind ?? 0, dirty: status.stdout.length > 0, missing: false };
}

/** The base branch's tip now (ahead/behind are against it), or the base commit when it was detached or is gone. */
async function baseTip(info: WorktreeInfo): Promise<string> {
  if (info.base.ref === null) return info.base.commit;
  const r = await git(info.repo, ['rev-parse', '--verify', '--quiet', `refs/heads/${info.base.ref}`], { allowFail: true });
  return r.status === 0 ? r.stdout.trim() : info.base.commit;
}

export interface ReviewFile {
  path: string;
  /** A added, M modified, D deleted, R renamed, ? untracked. */
  status: string;
  added: number;
  deleted: number;
  binary: boolean;
}

/** A commit on the row's branch since its base (the subject is the agent's text: sanitize it to show it). */
export interface ReviewCommit {
  hash: string;
  subject: string;
}

export interface Review {
  base: string;
  /** The commits since the base, newest first (at most MAX_COMMITS; `commitCount` is all of them). */
  commits: ReviewCommit[];
  commitCount: number;
  files: ReviewFile[];
  /** The unified diff, coloured when asked. */
  patch: string;
  truncated: boolean;
}

const MAX_PATCH_BYTES = 4 * 1024 * 1024;
const MAX_UNTRACKED = 200;
const MAX_COMMITS = 200;

/** Everything the row changed since its base commit: commits, uncommitted and untracked files. */
export async function reviewWorktree(info: WorktreeInfo, opts: { color?: boolean } = {}): Promise<Outcome<Review>> {
  if (!existsSync(info.path)) return fail('NOT_FOUND', `the worktree ${info.path} is gone (deleted by hand?); swb rm prunes it`);
  try {
    const color = opts.color ? '--color=always' : '--no-color';
    const base = info.base.commit;
    const [numstat, names, patch, untracked, log, count] = await Promise.all([
      git(info.path, ['diff', '--numstat', '-z', '-M', base]),
      git(info.path, ['diff', '--name-status', '-z', '-M', base]),
      git(info.path, ['diff', color, '-M', base]),
      git(info.path, ['ls-files', '-z', '--others', '--exclude-standard']),
      // %x00 between fields and -z between records: a subject is the agent's text, any bytes.
      git(info.path, ['log', '-z', `--max-count=${MAX_COMMITS}`, '--format=%h%x00%s', `${base}..HEAD`]),
      git(info.path, ['rev-list', '--count', `${base}..HEAD`]),
    ]);
    const commits = parseLog(log.stdout);
    const status = parseNameStatus(names.stdout);
    const files: ReviewFile[] = parseNumstat(numstat.stdout).map((f) => ({ ...f, status: status.get(f.path) ?? 'M' }));
    let text = patch.stdout;
    const extra = untracked.stdout.split('\0').filter(Boolean);
    for (const file of extra.slice(0, MAX_UNTRACKED)) {
      // git diff --no-index exits 1 when the files differ (always, against /dev/null).
      const d = await git(info.path, ['diff', color, '--no-index', '--numstat', '--', '/dev/null', file], { allowFail: true });
      const [a, del] = d.stdout.split('\t');
      const binary = a === '-';
      files.push({ path: file, status: '?', added: binary ? 0 : Number(a) || 0, deleted: binary ? 0 : Number(del) || 0, binary });
      if (text.length < MAX_PATCH_BYTES) text += (await git(info.path, ['diff', color, '--no-index', '--', '/dev/null', file], { allowFail: true })).stdout;
    }
    const truncated = text.length > MAX_PATCH_BYTES || extra.length > MAX_UNTRACKED;
    return { ok: { base, commits, commitCount: Math.max(commits.length, Number(count.stdout.trim()) || 0), files, patch: text.slice(0, MAX_PATCH_BYTES), truncated } };
  } catch (err) {
    return gitFailure(err);
  }
}

/** `git log -z --format=%h%x00%s`: hash, NUL, subject, NUL between records. */
export function parseLog(out: string): ReviewCommit[] {
  const parts = out.split('\0');
  const commits: ReviewCommit[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const hash = parts[i]!.replace(/^\n/, '');
    if (hash !== '') commits.push({ hash, subject: parts[i + 1]! });
  }
  return commits;
}

function parseNumstat(out: string): Array<Omit<ReviewFile, 'status'>> {
  // -z: "added\tdeleted\tpath\0", or for a rename "added\tdeleted\t\0old\0new\0".
  const parts = out.split('\0');
  const files: Array<Omit<ReviewFile, 'status'>> = [];
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i]!;
    if (p === '') continue;
    const [a, d, path] = p.split('\t');
    let name = path ?? '';
    if (name === '') {
      i += 2;
      name = parts[i] ?? '';
    }
    const binary = a === '-';
    files.push({ path: name, added: binary ? 0 : Number(a) || 0, deleted: binary ? 0 : Number(d) || 0, binary });
  }
  return files;
}

function parseNameStatus(out: string): Map<string, string> {
  const parts = out.split('\0');
  const map = new Map<string, string>();
  for (let i = 0; i < parts.length; i++) {
    const code = parts[i];
    if (!code) continue;
    if (code.startsWith('R') || code.startsWith('C')) {
      map.set(parts[i + 2] ?? '', code[0]!);
      i += 2;
    } else {
      map.set(parts[i + 1] ?? '', code[0]!);
      i += 1;
    }
  }
  return map;
}

export interface MergeRequest {
  mode: 'merge' | 'rebase' | 'squash';
  /** The branch to merge into (default: the base branch). */
  into?: string;
  /** Commit the worktree's uncommitted changes first (otherwise they refuse the merge). */
  commitAll?: boolean;
  message?: string;
}

/**
 * Lands the row's branch in `into` in the main checkout: fast-forward when it can, a merge commit
 * otherwise (or rebased onto it first, or squashed). Refuses — changing nothing — when the main
 * checkout is dirty or on another branch, the worktree has uncommitted work, or the merge conflicts.
 */
export async function mergeWorktree(info: WorktreeInfo, r: MergeRequest): Promise<Outcome<{ into: string; commit: string; fastForward: boolean; committedFirst: boolean }>> {
  try {
    const into = r.into ?? info.base.ref;
    if (!into) return fail('BAD_REQUEST', `the row started from a detached commit; say which branch to merge into (--into BRANCH)`);
    if ((await git(info.repo, ['rev-parse', '--verify', '--quiet', `refs/heads/${into}`], { allowFail: true })).status !== 0) {
      return fail('BAD_REQUEST', `there is no branch ${into} in ${info.repo}`);
    }
    const current = await git(info.repo, ['symbolic-ref', '--quiet', '--short', 'HEAD'], { allowFail: true });
    if (current.status !== 0 || current.stdout.trim() !== into) {
      return fail('BAD_REQUEST', `the main checkout ${info.repo} is on ${current.status === 0 ? current.stdout.trim() : 'a detached HEAD'}, not ${into}; check out ${into} there first`);
    }
    // Untracked files in the main checkout do not block a merge (git itself refuses one that would overwrite them).
    const mainDirty = await dirtyFiles(info.repo, false);
    if (mainDirty.length > 0) return fail('DIRTY', `the main checkout has uncommitted changes (${summary(mainDirty)}); commit or stash them first`);
    let committedFirst = false;
    if (existsSync(info.path)) {
      const rowDirty = await dirtyFiles(info.path);
      if (rowDirty.length > 0) {
        if (!r.commitAll) return fail('DIRTY', `the row's worktree has uncommitted changes (${summary(rowDirty)}); commit them there, or give --commit-all`);
        await git(info.path, ['add', '-A']);
        await git(info.path, ['commit', '-q', '-m', r.message ?? `swb: uncommitted work of ${info.branch}`]);
        committedFirst = true;
      }
    }
    // A refusal after --commit-all takes that commit back: the row's changes are uncommitted again.
    const undoCommit = async () => {
      if (committedFirst) await git(info.path, ['reset', '-q', '--mixed', 'HEAD~1'], { allowFail: true });
    };
    if (r.mode === 'rebase') {
      if (!existsSync(info.path)) return fail('BAD_REQUEST', `the worktree ${info.path} is gone; --rebase needs it`);
      const rb = await git(info.path, ['rebase', '-q', into], { allowFail: true });
      if (rb.status !== 0) {
        await git(info.path, ['rebase', '--abort'], { allowFail: true });
        await undoCommit();
        return fail('MERGE_CONFLICT', `rebasing ${info.branch} onto ${into} conflicts; nothing was changed (${firstLine(rb.stderr || rb.stdout)})`);
      }
    }
    const before = (await git(info.repo, ['rev-parse', 'HEAD'])).stdout.trim();
    if (r.mode === 'squash') {
      const sq = await git(info.repo, ['merge', '--squash', info.branch], { allowFail: true });
      if (sq.status !== 0) {
        await git(info.repo, ['reset', '--hard', '-q', before]);
        await undoCommit();
        return fail('MERGE_CONFLICT', `squashing ${info.branch} into ${into} conflicts; nothing was changed (${firstLine(sq.stdout || sq.stderr)})`);
      }
      if ((await dirtyFiles(info.repo)).length === 0) return fail('BAD_REQUEST', `${info.branch} has nothing ${into} does not have already`);
      await git(info.repo, ['commit', '-q', '-m', r.message ?? `Squashed ${info.branch}`]);
    } else {
      const m = await git(info.repo, ['merge', '--no-edit', '-q', info.branch], { allowFail: true });
      if (m.status !== 0) {
        await git(info.repo, ['merge', '--abort'], { allowFail: true });
        await undoCommit();
        return fail('MERGE_CONFLICT', `merging ${info.branch} into ${into} conflicts; nothing was changed (${firstLine(m.stdout || m.stderr)})`);
      }
    }
    const after = (await git(info.repo, ['rev-parse', 'HEAD'])).stdout.trim();
    const ff = (await git(info.repo, ['rev-parse', 'HEAD^@'], { allowFail: true })).stdout.trim().split('\n').length <= 1 && r.mode !== 'squash';
    return { ok: { into, commit: after, fastForward: ff && after !== before && (await isAncestor(info.repo, before, after)), committedFirst } };
  } catch (err) {
    return gitFailure(err);
  }
}

export interface RemoveRequest {
  force?: boolean;
  deleteBranch?: boolean;
}

/**
 * Removes the worktree (and the branch when asked). Refuses, saying what would be lost, when its tree
 * is dirty or its branch has commits no other branch reaches — unless `force`. A worktree whose
 * directory is gone is pruned.
 */
export async function removeWorktree(info: WorktreeInfo, r: RemoveRequest): Promise<Outcome<{ removed: boolean; pruned: boolean; branchDeleted: boolean }>> {
  try {
    const gone = !existsSync(info.path);
    if (!r.force) {
      const lost: string[] = [];
      if (!gone) {
        const dirty = await dirtyFiles(info.path);
        if (dirty.length > 0) lost.push(`uncommitted changes (${summary(dirty)})`);
      }
      const only = await commitsOnlyOn(info.repo, info.branch);
      if (only.length > 0) lost.push(`${only.length} commit${only.length === 1 ? '' : 's'} no other branch has (${only.slice(0, 3).map((c) => c.slice(0, 8)).join(', ')}${only.length > 3 ? ', ...' : ''})`);
      if (lost.length > 0 && (!gone || r.deleteBranch)) {
        return fail('UNMERGED', `removing the worktree of ${info.branch} would lose ${lost.join(' and ')}; merge it (swb merge) or give --force`);
      }
    }
    if (gone) await git(info.repo, ['worktree', 'prune']);
    else await git(info.repo, ['worktree', 'remove', ...(r.force ? ['--force', '--force'] : []), info.path]);
    let branchDeleted = false;
    if (r.deleteBranch) {
      await git(info.repo, ['branch', r.force ? '-D' : '-d', info.branch]);
      branchDeleted = true;
    }
    return { ok: { removed: !gone, pruned: gone, branchDeleted } };
  } catch (err) {
    return gitFailure(err);
  }
}

/** Commits reachable from `branch` and from no other branch or tag (real ancestry, not counts). */
export async function commitsOnlyOn(repo: string, branch: string): Promise<string[]> {
  // --exclude applies to the next --branches, whose patterns are relative to refs/heads/.
  const r = await git(repo, ['rev-list', `refs/heads/${branch}`, '--not', `--exclude=${branch}`, '--branches', '--tags'], { allowFail: true });
  return r.status === 0 ? r.stdout.split('\n').filter(Boolean) : [];
}

async function isAncestor(repo: string, a: string, b: string): Promise<boolean> {
  return (await git(repo, ['merge-base', '--is-ancestor', a, b], { allowFail: true })).status === 0;
}

async function dirtyFiles(dir: string, untracked = true): Promise<string[]> {
  const r = await git(dir, ['status', '--porcelain', '-z', `--untracked-files=${untracked ? 'normal' : 'no'}`]);
  return r.stdout.split('\0').filter(Boolean).map((l) => l.slice(3));
}

function summary(files: readonly string[]): string {
  return `${files.slice(0, 3).join(', ')}${files.length > 3 ? ` and ${files.length - 3} more` : ''}`;
}

function firstLine(text: string): string {
  return text.trim().split('\n').find((l) => /conflict|error|fatal/i.test(l))?.trim().slice(0, 200) ?? text.trim().split('\n')[0]?.slice(0, 200) ?? '';
}

function isInside(path: string, dir: string): boolean {
  const rel = relative(resolve(dir), resolve(path));
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}
