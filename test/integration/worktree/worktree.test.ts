// The worktree layer of issue #12 on real repositories: real `git`, real commits, temp dirs, no swb
// server. Planning (defaults and every refusal), `.worktreeinclude` copying, ahead/behind/dirty,
// the review against the start commit, every merge mode with its refusals (leaving both trees as
// they were), and removal that refuses to lose work, by real ancestry.
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import type { IncludedCopy } from '../../../src/worktree/copy-included.js';
import { checkGitVersion } from '../../../src/worktree/git.js';
import {
  commitsOnlyOn,
  createWorktree,
  mergeWorktree,
  planWorktree,
  removeWorktree,
  reviewWorktree,
  worktreeStatus,
  type Outcome,
  type WorktreeInfo,
  type WorktreePlan,
  type WorktreeRequest,
} from '../../../src/worktree/worktree.js';
import { deferCleanup, runCleanups } from '../../helpers/cleanup.js';
import { commitFile, git, initRepo, writeIn as write } from '../../helpers/git-repo.js';

afterEach(runCleanups);

/** Exit status of a git command that may fail. */
function gitStatus(cwd: string, ...args: string[]): number {
  try {
    git(cwd, ...args);
    return 0;
  } catch (err) {
    return (err as { status?: number }).status ?? -1;
  }
}

const head = (dir: string, ref = 'HEAD'): string => git(dir, 'rev-parse', ref);
const porcelain = (dir: string): string => git(dir, 'status', '--porcelain', '--untracked-files=all');

interface Repo {
  /** The temp dir holding the repository and its `<repo>.swb` worktrees. */
  base: string;
  /** The main checkout (on main, with one commit). */
  repo: string;
}

/** A fresh repository with one commit on main, removed after the test. */
function makeRepo(): Repo {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'swb-worktree-')));
  deferCleanup(`repository ${base}`, () => rmSync(base, { recursive: true, force: true }));
  const repo = join(base, 'repo');
  initRepo(repo, { 'README.md': 'line one\nline two\nline three\n', 'second.txt': 'a\nb\nc\n', 'gone.txt': 'to be deleted\n' });
  return { base, repo };
}

function ok<T>(o: Outcome<T>): T {
  if ('error' in o) throw new Error(`expected success, got ${o.error.code}: ${o.error.message}`);
  return o.ok;
}

function refusal<T>(o: Outcome<T>): { code: string; message: string } {
  if (!('error' in o)) throw new Error(`expected a refusal, got ${JSON.stringify(o.ok)}`);
  return o.error;
}

/** Plans and makes the worktree of row `name` (defaults unless `req` says otherwise). */
async function makeWorktree(repo: string, name = 'agent', req: Partial<WorktreeRequest> = {}): Promise<WorktreePlan & IncludedCopy> {
  const plan = ok(await planWorktree({ cwd: repo, name, ...req }));
  const made = ok(await createWorktree(plan));
  return { ...plan, ...made };
}

/** The info the row keeps (a plan without `reuse`). */
function infoOf(p: WorktreePlan): WorktreeInfo {
  return { repo: p.repo, path: p.path, branch: p.branch, base: p.base };
}

/** What must not move when a merge is refused: both HEADs, both statuses, no operation left half done. */
function snapshot(r: Repo, wt: WorktreeInfo) {
  const rowGitDir = git(wt.path, 'rev-parse', '--absolute-git-dir');
  const mainGitDir = join(r.repo, '.git');
  return {
    mainHead: head(r.repo),
    mainBranch: git(r.repo, 'symbolic-ref', '--short', 'HEAD'),
    mainStatus: porcelain(r.repo),
    rowHead: head(wt.path),
    rowBranch: git(wt.path, 'symbolic-ref', '--short', 'HEAD'),
    rowStatus: porcelain(wt.path),
    branchTip: head(r.repo, `refs/heads/${wt.branch}`),
    leftovers: ['MERGE_HEAD', 'MERGE_MSG', 'SQUASH_MSG', 'CHERRY_PICK_HEAD', 'rebase-merge', 'rebase-apply', 'AUTO_MERGE']
      .flatMap((f) => [join(mainGitDir, f), join(rowGitDir, f)])
      .filter((p) => existsSync(p)),
  };
}

describe('git version', () => {
  test('the installed git is found and new enough', async () => {
    const v = await checkGitVersion();
    expect(v).toMatch(/^\d+\.\d+/);
  });
});

describe('planWorktree', () => {
  test('defaults: branch swb/<name>, a directory beside the checkout (not inside it), base = the current branch and its HEAD', async () => {
    const r = makeRepo();
    mkdirSync(join(r.repo, 'deep', 'sub'), { recursive: true });
    const plan = ok(await planWorktree({ cwd: join(r.repo, 'deep', 'sub'), name: 'agent' }));
    expect(plan).toEqual({
      repo: r.repo,
      path: join(r.base, 'repo.swb', 'agent'),
      branch: 'swb/agent',
      base: { ref: 'main', commit: head(r.repo) },
      reuse: false,
    });
    expect(relative(r.repo, plan.path).startsWith('..')).toBe(true);
    // Planning makes nothing.
    expect(existsSync(plan.path)).toBe(false);
    expect(gitStatus(r.repo, 'rev-parse', '--verify', '--quiet', 'refs/heads/swb/agent')).not.toBe(0);
  });

  test('from inside a linked worktree the main checkout is the repo; a base branch, a commit and a root are taken as given', async () => {
    const r = makeRepo();
    const first = head(r.repo);
    git(r.repo, 'branch', 'dev');
    const second = commitFile(r.repo, 'more.txt', 'more\n');
    const wt = await makeWorktree(r.repo, 'one');
    const fromInside = ok(await planWorktree({ cwd: wt.path, name: 'two' }));
    expect(fromInside.repo).toBe(r.repo);
    expect(fromInside.path).toBe(join(r.base, 'repo.swb', 'two'));

    const onDev = ok(await planWorktree({ cwd: r.repo, name: 'x', base: 'dev' }));
    expect(onDev.base).toEqual({ ref: 'dev', commit: first });
    const onCommit = ok(await planWorktree({ cwd: r.repo, name: 'x', base: first }));
    expect(onCommit.base).toEqual({ ref: null, commit: first });
    const onRelative = ok(await planWorktree({ cwd: r.repo, name: 'x', base: 'HEAD~1' }));
    expect(onRelative.base).toEqual({ ref: null, commit: first });
    expect(ok(await planWorktree({ cwd: r.repo, name: 'x' })).base.commit).toBe(second);

    const rooted = ok(await planWorktree({ cwd: r.repo, name: 'x', root: '../trees' }));
    expect(rooted.path).toBe(join(r.base, 'trees', 'x'));
    const branched = ok(await planWorktree({ cwd: r.repo, name: 'x', branch: 'feature/thing' }));
    expect(branched.branch).toBe('feature/thing');
  });

  test('not a git repository: NOT_A_REPO', async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'swb-not-a-repo-')));
    deferCleanup(`dir ${dir}`, () => rmSync(dir, { recursive: true, force: true }));
    // Make sure no repository above the temp dir answers for it.
    expect(gitStatus(dir, 'rev-parse', '--show-toplevel')).not.toBe(0);
    const e = refusal(await planWorktree({ cwd: dir, name: 'agent' }));
    expect(e.code).toBe('NOT_A_REPO');
    expect(e.message).toContain(dir);
  });

  test('a branch that exists: BRANCH_EXISTS, offering --reuse-branch; reusing it checks it out as it is', async () => {
    const r = makeRepo();
    const start = head(r.repo);
    git(r.repo, 'checkout', '-q', '-b', 'swb/agent');
    const tip = commitFile(r.repo, 'earlier.txt', 'earlier work\n');
    git(r.repo, 'checkout', '-q', 'main');
    const e = refusal(await planWorktree({ cwd: r.repo, name: 'agent' }));
    expect(e.code).toBe('BRANCH_EXISTS');
    expect(e.message).toMatch(/swb\/agent/);
    expect(e.message).toMatch(/--reuse-branch/);

    const wt = await makeWorktree(r.repo, 'agent', { reuseBranch: true });
    expect(wt.reuse).toBe(true);
    // The review base of a reused branch is where it meets the base branch.
    expect(wt.base).toEqual({ ref: 'main', commit: start });
    expect(head(wt.path)).toBe(tip);
    expect(git(wt.path, 'symbolic-ref', '--short', 'HEAD')).toBe('swb/agent');
    expect(readFileSync(join(wt.path, 'earlier.txt'), 'utf8')).toBe('earlier work\n');
    expect(head(r.repo, 'refs/heads/swb/agent')).toBe(tip); // not moved
  });

  test('a full ref refs/heads/x is the branch x (never a branch named "refs/heads/x"); any other refs/... or a name git would expand is refused', async () => {
    const r = makeRepo();
    const wt = await makeWorktree(r.repo, 'agent', { branch: 'refs/heads/feature/x' });
    expect(wt.branch).toBe('feature/x');
    expect(git(wt.path, 'symbolic-ref', '--short', 'HEAD')).toBe('feature/x');
    expect(gitStatus(r.repo, 'rev-parse', '--verify', '--quiet', 'refs/heads/feature/x')).toBe(0);
    expect(git(r.repo, 'for-each-ref', '--format=%(refname)', 'refs/heads/refs')).toBe('');
    // Reusing it by its full ref finds the same branch.
    git(r.repo, 'worktree', 'remove', wt.path);
    const again = ok(await planWorktree({ cwd: r.repo, name: 'agent', branch: 'refs/heads/feature/x', reuseBranch: true }));
    expect(again).toMatchObject({ branch: 'feature/x', reuse: true });

    for (const branch of ['refs/tags/v1', 'refs/remotes/origin/main', 'refs/heads/refs/heads/x', 'refs/heads/', '@{-1}']) {
      const bad = refusal(await planWorktree({ cwd: r.repo, name: 'other', branch }));
      expect(bad, branch).toMatchObject({ code: 'BAD_REQUEST' });
    }
    expect(git(r.repo, 'for-each-ref', '--format=%(refname)', 'refs/heads/')).toBe('refs/heads/feature/x\nrefs/heads/main');
  });

  test('a base that does not resolve, an invalid branch name, an existing directory, a root inside the checkout, no commit yet: BAD_REQUEST', async () => {
    const r = makeRepo();
    const noBase = refusal(await planWorktree({ cwd: r.repo, name: 'agent', base: 'no-such-ref' }));
    expect(noBase).toMatchObject({ code: 'BAD_REQUEST' });
    expect(noBase.message).toContain('no-such-ref');

    for (const branch of ['bad..name', 'has space', 'ends.lock', '-leading-dash', 'x~1']) {
      const bad = refusal(await planWorktree({ cwd: r.repo, name: 'agent', branch }));
      expect(bad, branch).toMatchObject({ code: 'BAD_REQUEST' });
      expect(bad.message).toContain('not a valid branch name');
    }

    const target = join(r.base, 'repo.swb', 'agent');
    mkdirSync(target, { recursive: true });
    writeFileSync(join(target, 'precious.txt'), 'keep me\n');
    const taken = refusal(await planWorktree({ cwd: r.repo, name: 'agent' }));
    expect(taken.code).toBe('BAD_REQUEST');
    expect(taken.message).toContain(target);
    expect(readFileSync(join(target, 'precious.txt'), 'utf8')).toBe('keep me\n');
    expect(gitStatus(r.repo, 'rev-parse', '--verify', '--quiet', 'refs/heads/swb/agent')).not.toBe(0);

    const inside = refusal(await planWorktree({ cwd: r.repo, name: 'x', root: 'trees' }));
    expect(inside.code).toBe('BAD_REQUEST');
    expect(inside.message).toMatch(/inside the checkout/);

    const empty = join(r.base, 'empty');
    mkdirSync(empty);
    git(empty, 'init', '-q', '-b', 'main');
    const none = refusal(await planWorktree({ cwd: empty, name: 'agent' }));
    expect(none.code).toBe('BAD_REQUEST');
    expect(none.message).toMatch(/no commit yet/);
  });
});

describe('createWorktree', () => {
  test('makes the branch at the base commit and copies the untracked files .worktreeinclude matches, and only those', async () => {
    const r = makeRepo();
    write(r.repo, '.gitignore', '.env\nconfig/local.json\n*.log\n');
    write(r.repo, '.worktreeinclude', '# files an agent needs\n.env\nconfig/local.json\nsecrets.txt\ntracked.cfg\n');
    write(r.repo, 'tracked.cfg', 'committed\n');
    git(r.repo, 'add', '-A');
    git(r.repo, 'commit', '-q', '-m', 'ignore rules and includes');
    const start = head(r.repo);
    write(r.repo, '.env', 'API_KEY=from-main\n'); // ignored, included
    write(r.repo, 'config/local.json', '{"local":true}\n'); // ignored, nested, included
    write(r.repo, 'secrets.txt', 'untracked but included\n'); // untracked (not ignored), included
    write(r.repo, 'debug.log', 'ignored, not included\n');
    write(r.repo, 'notes.txt', 'untracked, not included\n');
    write(r.repo, 'config/other.json', '{"other":true}\n'); // untracked, not included
    write(r.repo, 'tracked.cfg', 'local edit in main\n'); // tracked: comes with the checkout, as committed

    const wt = await makeWorktree(r.repo);
    expect([...wt.copied].sort()).toEqual(['.env', 'config/local.json', 'secrets.txt']);
    expect(readFileSync(join(wt.path, '.env'), 'utf8')).toBe('API_KEY=from-main\n');
    expect(readFileSync(join(wt.path, 'config/local.json'), 'utf8')).toBe('{"local":true}\n');
    expect(readFileSync(join(wt.path, 'secrets.txt'), 'utf8')).toBe('untracked but included\n');
    for (const f of ['debug.log', 'notes.txt', 'config/other.json']) expect(existsSync(join(wt.path, f)), f).toBe(false);
    expect(readFileSync(join(wt.path, 'tracked.cfg'), 'utf8')).toBe('committed\n');

    expect(head(wt.path)).toBe(start);
    expect(git(wt.path, 'symbolic-ref', '--short', 'HEAD')).toBe('swb/agent');
    expect(git(r.repo, 'worktree', 'list', '--porcelain')).toContain(`worktree ${wt.path}\n`);
    // The main checkout is left alone.
    expect(readFileSync(join(r.repo, 'tracked.cfg'), 'utf8')).toBe('local edit in main\n');
    expect(head(r.repo)).toBe(start);
    expect(git(r.repo, 'symbolic-ref', '--short', 'HEAD')).toBe('main');
    // Ignored copies stay ignored in the worktree; the included-but-untracked one shows as untracked.
    expect(porcelain(wt.path)).toBe('?? secrets.txt');
  });

  test('without a .worktreeinclude nothing is copied', async () => {
    const r = makeRepo();
    write(r.repo, '.env', 'x\n');
    const wt = await makeWorktree(r.repo);
    expect(wt.copied).toEqual([]);
    expect(existsSync(join(wt.path, '.env'))).toBe(false);
  });

  test('a directory the base branch made a symlink is not written through: the file is skipped and said, nothing lands outside', async () => {
    const r = makeRepo();
    const outside = join(r.base, 'outside');
    mkdirSync(outside);
    // The base branch (say, from a pull request) commits `config` as a link to a directory of its choosing.
    git(r.repo, 'checkout', '-q', '-b', 'pr');
    symlinkSync(outside, join(r.repo, 'config'));
    write(r.repo, '.worktreeinclude', 'config/local.json\n.env\n');
    git(r.repo, 'add', 'config', '.worktreeinclude');
    git(r.repo, 'commit', '-q', '-m', 'config is a link');
    git(r.repo, 'checkout', '-q', 'main');
    // The operator's main checkout has the real, untracked directory and file.
    rmSync(join(r.repo, 'config'), { force: true });
    write(r.repo, 'config/local.json', 'SECRET=operator\n');
    write(r.repo, '.worktreeinclude', 'config/local.json\n.env\n');
    write(r.repo, '.env', 'API_KEY=x\n');

    const wt = await makeWorktree(r.repo, 'agent', { base: 'pr' });
    expect(lstatSync(join(wt.path, 'config')).isSymbolicLink()).toBe(true);
    expect(readdirSync(outside)).toEqual([]);
    expect(wt.copied).toEqual(['.env']);
    expect(wt.skipped).toEqual([{ file: 'config/local.json', reason: 'config is a symlink in the worktree' }]);
  });

  test('a file the base branch made a symlink is not written through either', async () => {
    const r = makeRepo();
    const target = join(r.base, 'victim.txt');
    writeFileSync(target, 'untouched\n');
    git(r.repo, 'checkout', '-q', '-b', 'pr');
    symlinkSync(target, join(r.repo, '.env'));
    git(r.repo, 'add', '.env');
    git(r.repo, 'commit', '-q', '-m', '.env is a link');
    git(r.repo, 'checkout', '-q', 'main');
    write(r.repo, '.worktreeinclude', '.env\n');
    write(r.repo, '.env', 'API_KEY=operator\n');

    const wt = await makeWorktree(r.repo, 'agent', { base: 'pr' });
    expect(readFileSync(target, 'utf8')).toBe('untouched\n');
    expect(wt.copied).toEqual([]);
    expect(wt.skipped).toEqual([{ file: '.env', reason: 'the branch has a symlink there' }]);
  });

  test('an untracked symlink in the main checkout is not followed: no copy of its target appears in the worktree', async () => {
    const r = makeRepo();
    const secret = join(r.base, 'shadow');
    writeFileSync(secret, 'root:hash\n');
    mkdirSync(join(r.base, 'secret-dir'));
    writeFileSync(join(r.base, 'secret-dir', 'key'), 'k\n');
    write(r.repo, '.worktreeinclude', 'link\nlinked-dir/\n.env\n');
    symlinkSync(secret, join(r.repo, 'link'));
    symlinkSync(join(r.base, 'secret-dir'), join(r.repo, 'linked-dir'));
    write(r.repo, '.env', 'ok\n');

    const wt = await makeWorktree(r.repo);
    expect(existsSync(join(wt.path, 'link'))).toBe(false);
    expect(existsSync(join(wt.path, 'linked-dir'))).toBe(false);
    expect(wt.copied).toEqual(['.env']);
    expect(wt.skipped).toContainEqual({ file: 'link', reason: 'a symlink in the main checkout' });
  });

  test('copies keep their modes: a 0600 file stays 0600, an executable stays executable, a 0700 directory stays 0700', async () => {
    const r = makeRepo();
    write(r.repo, '.worktreeinclude', '.env\nbin/\nprivate/\n');
    write(r.repo, '.env', 'API_KEY=x\n');
    chmodSync(join(r.repo, '.env'), 0o600);
    write(r.repo, 'bin/tool', '#!/bin/sh\n');
    chmodSync(join(r.repo, 'bin/tool'), 0o755);
    write(r.repo, 'private/key', 'k\n');
    chmodSync(join(r.repo, 'private/key'), 0o640);
    chmodSync(join(r.repo, 'private'), 0o700);

    const wt = await makeWorktree(r.repo);
    expect([...wt.copied].sort()).toEqual(['.env', 'bin/tool', 'private/key']);
    expect(wt.skipped).toEqual([]);
    const mode = (f: string) => statSync(join(wt.path, f)).mode & 0o777;
    expect(mode('.env')).toBe(0o600);
    expect(mode('bin/tool')).toBe(0o755);
    expect(mode('private/key')).toBe(0o640);
    expect(mode('private')).toBe(0o700);
    expect(readFileSync(join(wt.path, 'bin/tool'), 'utf8')).toBe('#!/bin/sh\n');
  });
});

describe('worktreeStatus', () => {
  test('ahead, behind and dirty follow commits in the worktree and in main; a deleted directory is missing', async () => {
    const r = makeRepo();
    const wt = await makeWorktree(r.repo);
    const info = infoOf(wt);
    expect(await worktreeStatus(info)).toEqual({ branch: 'swb/agent', ahead: 0, behind: 0, dirty: false, missing: false });

    commitFile(wt.path, 'row.txt', 'row work\n');
    expect(await worktreeStatus(info)).toMatchObject({ ahead: 1, behind: 0, dirty: false });
    commitFile(wt.path, 'row.txt', 'more row work\n');
    expect(await worktreeStatus(info)).toMatchObject({ ahead: 2, behind: 0, dirty: false });

    commitFile(r.repo, 'main.txt', 'main moved\n');
    expect(await worktreeStatus(info)).toMatchObject({ ahead: 2, behind: 1, dirty: false });

    write(wt.path, 'untracked.txt', 'new\n');
    expect(await worktreeStatus(info)).toMatchObject({ ahead: 2, behind: 1, dirty: true });
    rmSync(join(wt.path, 'untracked.txt'));
    expect(await worktreeStatus(info)).toMatchObject({ dirty: false });
    write(wt.path, 'README.md', 'changed, not committed\n');
    expect(await worktreeStatus(info)).toMatchObject({ dirty: true });
    git(wt.path, 'add', 'README.md'); // staged counts too
    expect(await worktreeStatus(info)).toMatchObject({ dirty: true });
    // Dirtiness in the main checkout is not the row's.
    git(wt.path, 'commit', '-q', '-m', 'readme');
    write(r.repo, 'scratch.txt', 'main scratch\n');
    expect(await worktreeStatus(info)).toMatchObject({ ahead: 3, behind: 1, dirty: false });

    rmSync(wt.path, { recursive: true, force: true });
    expect(await worktreeStatus(info)).toEqual({ branch: 'swb/agent', ahead: 0, behind: 0, dirty: false, missing: true });
  });
});

describe('reviewWorktree', () => {
  test('lists committed, uncommitted and untracked changes with numstat, against the start commit even after main moved', async () => {
    const r = makeRepo();
    const wt = await makeWorktree(r.repo);
    const info = infoOf(wt);
    expect(ok(await reviewWorktree(info))).toMatchObject({ base: wt.base.commit, files: [], patch: '', truncated: false });

    // Committed: a new file and an edit.
    write(wt.path, 'added.txt', 'one\ntwo\nthree\n');
    write(wt.path, 'README.md', 'line one\nline 2\nline three\nline four\n');
    git(wt.path, 'add', '-A');
    git(wt.path, 'commit', '-q', '-m', 'row work');
    // Uncommitted: an edit and a deletion of tracked files; untracked: a text and a binary file.
    write(wt.path, 'second.txt', 'a\nc\n');
    rmSync(join(wt.path, 'gone.txt'));
    write(wt.path, 'fresh.txt', 'fresh 1\nfresh 2\n');
    writeFileSync(join(wt.path, 'blob.bin'), Buffer.from([0, 1, 2, 0, 255, 0]));
    // Main moves on after the row started: none of it is the row's change.
    commitFile(r.repo, 'main-only.txt', 'main\n');
    commitFile(r.repo, 'second.txt', 'changed in main\n');

    const review = ok(await reviewWorktree(info));
    expect(review.base).toBe(wt.base.commit);
    const byPath = Object.fromEntries(review.files.map((f) => [f.path, f]));
    expect(Object.keys(byPath).sort()).toEqual(['README.md', 'added.txt', 'blob.bin', 'fresh.txt', 'gone.txt', 'second.txt']);
    expect(byPath['added.txt']).toEqual({ path: 'added.txt', status: 'A', added: 3, deleted: 0, binary: false });
    expect(byPath['README.md']).toEqual({ path: 'README.md', status: 'M', added: 2, deleted: 1, binary: false });
    expect(byPath['second.txt']).toEqual({ path: 'second.txt', status: 'M', added: 0, deleted: 1, binary: false });
    expect(byPath['gone.txt']).toEqual({ path: 'gone.txt', status: 'D', added: 0, deleted: 1, binary: false });
    expect(byPath['fresh.txt']).toEqual({ path: 'fresh.txt', status: '?', added: 2, deleted: 0, binary: false });
    expect(byPath['blob.bin']).toMatchObject({ status: '?', binary: true });

    expect(review.patch).toContain('+++ b/added.txt');
    expect(review.patch).toMatch(/^-line two$/m);
    expect(review.patch).toMatch(/^\+line 2$/m);
    expect(review.patch).toMatch(/^\+fresh 2$/m);
    expect(review.patch).toMatch(/^-b$/m);
    expect(review.patch).not.toContain('main-only');
    expect(review.patch).not.toContain('changed in main');
    expect(review.patch).not.toMatch(/\x1b\[/); // no colour unless asked
    expect(review.truncated).toBe(false);
    expect(ok(await reviewWorktree(info, { color: true })).patch).toMatch(/\x1b\[3\dm/);

    // Reviewing changes nothing.
    expect(porcelain(wt.path).split('\n').sort()).toEqual([' D gone.txt', ' M second.txt', '?? blob.bin', '?? fresh.txt']);
  });

  test('a worktree deleted by hand: NOT_FOUND', async () => {
    const r = makeRepo();
    const wt = await makeWorktree(r.repo);
    rmSync(wt.path, { recursive: true, force: true });
    expect(refusal(await reviewWorktree(infoOf(wt))).code).toBe('NOT_FOUND');
  });
});

describe('mergeWorktree', () => {
  test('fast-forward: the row\u2019s commit lands in main, in the main checkout\u2019s files', async () => {
    const r = makeRepo();
    const wt = await makeWorktree(r.repo);
    const c = commitFile(wt.path, 'feature.txt', 'the feature\n');
    const m = ok(await mergeWorktree(infoOf(wt), { mode: 'merge' }));
    expect(m).toEqual({ into: 'main', commit: c, fastForward: true, committedFirst: false });
    expect(head(r.repo)).toBe(c);
    expect(readFileSync(join(r.repo, 'feature.txt'), 'utf8')).toBe('the feature\n');
    expect(porcelain(r.repo)).toBe('');
    expect(git(r.repo, 'symbolic-ref', '--short', 'HEAD')).toBe('main');
  });

  test('main moved on: a merge commit with both parents', async () => {
    const r = makeRepo();
    const wt = await makeWorktree(r.repo);
    const rowTip = commitFile(wt.path, 'feature.txt', 'the feature\n');
    const mainTip = commitFile(r.repo, 'other.txt', 'main work\n');
    const m = ok(await mergeWorktree(infoOf(wt), { mode: 'merge' }));
    expect(m).toMatchObject({ into: 'main', fastForward: false, committedFirst: false });
    expect(m.commit).toBe(head(r.repo));
    expect(git(r.repo, 'rev-parse', 'HEAD^1')).toBe(mainTip);
    expect(git(r.repo, 'rev-parse', 'HEAD^2')).toBe(rowTip);
    expect(existsSync(join(r.repo, 'feature.txt'))).toBe(true);
    expect(existsSync(join(r.repo, 'other.txt'))).toBe(true);
    expect(porcelain(r.repo)).toBe('');
    expect(head(wt.path)).toBe(rowTip); // the row's branch is not moved
  });

  test('squash: one new commit on main, with one parent, holding all of the row\u2019s commits', async () => {
    const r = makeRepo();
    const wt = await makeWorktree(r.repo);
    commitFile(wt.path, 'a.txt', 'a\n');
    commitFile(wt.path, 'b.txt', 'b\n');
    const mainTip = commitFile(r.repo, 'other.txt', 'main work\n');
    const m = ok(await mergeWorktree(infoOf(wt), { mode: 'squash' }));
    expect(m).toMatchObject({ into: 'main', fastForward: false, committedFirst: false, commit: head(r.repo) });
    expect(git(r.repo, 'rev-list', '--parents', '-n', '1', 'HEAD').split(' ')).toEqual([m.commit, mainTip]);
    expect(git(r.repo, 'rev-list', '--count', `${mainTip}..HEAD`)).toBe('1');
    expect(git(r.repo, 'log', '-1', '--format=%s')).toContain('swb/agent');
    expect(git(r.repo, 'show', '--name-only', '--format=', 'HEAD').split('\n').sort()).toEqual(['a.txt', 'b.txt']);
    expect(porcelain(r.repo)).toBe('');
    // Nothing left to squash the second time.
    const again = refusal(await mergeWorktree(infoOf(wt), { mode: 'squash' }));
    expect(again.code).toBe('BAD_REQUEST');
    expect(head(r.repo)).toBe(m.commit);
    expect(porcelain(r.repo)).toBe('');
  });

  test('rebase: the row\u2019s branch is rebased onto main, then main fast-forwards to it', async () => {
    const r = makeRepo();
    const wt = await makeWorktree(r.repo);
    const before = commitFile(wt.path, 'feature.txt', 'the feature\n');
    const mainTip = commitFile(r.repo, 'other.txt', 'main work\n');
    const m = ok(await mergeWorktree(infoOf(wt), { mode: 'rebase' }));
    expect(m).toMatchObject({ into: 'main', fastForward: true, committedFirst: false });
    expect(m.commit).not.toBe(before);
    expect(head(r.repo)).toBe(m.commit);
    expect(head(wt.path)).toBe(m.commit);
    expect(git(r.repo, 'rev-list', '--parents', '-n', '1', 'HEAD').split(' ')).toEqual([m.commit, mainTip]);
    expect(git(r.repo, 'log', '-1', '--format=%s')).toBe('edit feature.txt');
    expect(existsSync(join(r.repo, 'feature.txt'))).toBe(true);
    expect(porcelain(r.repo)).toBe('');
    expect(porcelain(wt.path)).toBe('');
  });

  for (const mode of ['merge', 'squash', 'rebase'] as const) {
    test(`a conflicting ${mode}: MERGE_CONFLICT, and both trees exactly as before`, async () => {
      const r = makeRepo();
      const wt = await makeWorktree(r.repo);
      const info = infoOf(wt);
      commitFile(wt.path, 'README.md', 'line one\nROW SAYS\nline three\n');
      commitFile(r.repo, 'README.md', 'line one\nMAIN SAYS\nline three\n');
      // Untracked files in the row (not dirty for this check, they were committed before) stay put too.
      const before = snapshot(r, info);
      expect(before.leftovers).toEqual([]);

      const e = refusal(await mergeWorktree(info, { mode }));
      expect(e.code).toBe('MERGE_CONFLICT');
      expect(e.message).toMatch(/nothing was changed/);
      expect(e.message).toContain('README.md');
      expect(snapshot(r, info)).toEqual(before);
      expect(readFileSync(join(r.repo, 'README.md'), 'utf8')).toBe('line one\nMAIN SAYS\nline three\n');
      expect(readFileSync(join(wt.path, 'README.md'), 'utf8')).toBe('line one\nROW SAYS\nline three\n');
    });
  }

  test('the main checkout dirty: DIRTY, and nothing changes', async () => {
    const r = makeRepo();
    const wt = await makeWorktree(r.repo);
    const info = infoOf(wt);
    commitFile(wt.path, 'feature.txt', 'the feature\n');
    write(r.repo, 'second.txt', 'uncommitted edit in main\n');
    const before = snapshot(r, info);
    for (const mode of ['merge', 'squash', 'rebase'] as const) {
      const e = refusal(await mergeWorktree(info, { mode }));
      expect(e.code, mode).toBe('DIRTY');
      expect(e.message).toMatch(/main checkout/);
      expect(e.message).toContain('second.txt');
      expect(snapshot(r, info)).toEqual(before);
    }
    expect(readFileSync(join(r.repo, 'second.txt'), 'utf8')).toBe('uncommitted edit in main\n');
    // A staged change is dirty as well.
    git(r.repo, 'add', 'second.txt');
    expect(refusal(await mergeWorktree(info, { mode: 'merge' })).code).toBe('DIRTY');
    expect(head(r.repo)).toBe(before.mainHead);
  });

  test('the main checkout on another branch, an --into that is not checked out or does not exist, a detached base: BAD_REQUEST, nothing changes', async () => {
    const r = makeRepo();
    const wt = await makeWorktree(r.repo);
    const info = infoOf(wt);
    commitFile(wt.path, 'feature.txt', 'the feature\n');
    git(r.repo, 'branch', 'release');

    git(r.repo, 'checkout', '-q', '-b', 'elsewhere');
    const before = snapshot(r, info);
    const other = refusal(await mergeWorktree(info, { mode: 'merge' }));
    expect(other.code).toBe('BAD_REQUEST');
    expect(other.message).toMatch(/is on elsewhere, not main/);
    expect(snapshot(r, info)).toEqual(before);
    expect(head(r.repo, 'refs/heads/main')).toBe(wt.base.commit);

    git(r.repo, 'checkout', '-q', 'main');
    const notOut = refusal(await mergeWorktree(info, { mode: 'merge', into: 'release' }));
    expect(notOut.code).toBe('BAD_REQUEST');
    expect(notOut.message).toMatch(/not release/);
    const missing = refusal(await mergeWorktree(info, { mode: 'merge', into: 'no-such-branch' }));
    expect(missing.code).toBe('BAD_REQUEST');
    expect(missing.message).toContain('no-such-branch');
    expect(head(r.repo, 'refs/heads/main')).toBe(wt.base.commit);
    expect(head(r.repo, 'refs/heads/release')).toBe(wt.base.commit);

    const detached = await makeWorktree(r.repo, 'detached', { base: head(r.repo) });
    expect(detached.base.ref).toBeNull();
    const c = commitFile(detached.path, 'd.txt', 'd\n');
    expect(refusal(await mergeWorktree(infoOf(detached), { mode: 'merge' })).message).toMatch(/--into/);
    expect(ok(await mergeWorktree(infoOf(detached), { mode: 'merge', into: 'main' }))).toMatchObject({ into: 'main', commit: c });
  });

  test('the row\u2019s worktree dirty: DIRTY unless commitAll, which commits everything first', async () => {
    const r = makeRepo();
    const wt = await makeWorktree(r.repo);
    const info = infoOf(wt);
    const committed = commitFile(wt.path, 'feature.txt', 'the feature\n');
    write(wt.path, 'README.md', 'rewritten by the row\n');
    write(wt.path, 'new-untracked.txt', 'never added\n');
    const before = snapshot(r, info);
    const e = refusal(await mergeWorktree(info, { mode: 'merge' }));
    expect(e.code).toBe('DIRTY');
    expect(e.message).toMatch(/row's worktree/);
    expect(e.message).toMatch(/--commit-all/);
    expect(snapshot(r, info)).toEqual(before);

    const m = ok(await mergeWorktree(info, { mode: 'merge', commitAll: true }));
    expect(m).toMatchObject({ into: 'main', fastForward: true, committedFirst: true });
    expect(porcelain(wt.path)).toBe('');
    expect(git(wt.path, 'rev-parse', 'HEAD~1')).toBe(committed);
    expect(head(r.repo)).toBe(head(wt.path));
    expect(m.commit).toBe(head(r.repo));
    expect(readFileSync(join(r.repo, 'README.md'), 'utf8')).toBe('rewritten by the row\n');
    expect(readFileSync(join(r.repo, 'new-untracked.txt'), 'utf8')).toBe('never added\n');
    expect(git(r.repo, 'log', '-1', '--format=%s')).toContain('swb/agent');
  });
});

describe('mergeWorktree with commitAll and a conflict', () => {
  // Found by this test (fixed): the refusal said "nothing was changed" while commitAll had already
  // committed the row's work; now that commit is taken back and the row is as it was.
  test('a refused merge after commitAll takes that commit back: the row is as it was', async () => {
    const r = makeRepo();
    const wt = await makeWorktree(r.repo);
    const info = infoOf(wt);
    commitFile(r.repo, 'README.md', 'line one\nMAIN SAYS\nline three\n');
    write(wt.path, 'README.md', 'line one\nROW SAYS\nline three\n'); // uncommitted
    const before = snapshot(r, info);
    const e = refusal(await mergeWorktree(info, { mode: 'merge', commitAll: true }));
    expect(e.code).toBe('MERGE_CONFLICT');
    const after = snapshot(r, info);
    expect(after.mainHead).toBe(before.mainHead);
    const rowChanged = after.rowHead !== before.rowHead || after.rowStatus !== before.rowStatus;
    expect({ rowChanged, saysNothingChanged: /nothing was changed/.test(e.message) }).not.toEqual({ rowChanged: true, saysNothingChanged: true });
  });
});

describe('removeWorktree', () => {
  test('after its branch is merged the worktree is removed and the branch kept; --delete-branch deletes it', async () => {
    const r = makeRepo();
    const wt = await makeWorktree(r.repo);
    const c = commitFile(wt.path, 'feature.txt', 'the feature\n');
    ok(await mergeWorktree(infoOf(wt), { mode: 'merge' }));
    expect(await commitsOnlyOn(r.repo, 'swb/agent')).toEqual([]);
    expect(ok(await removeWorktree(infoOf(wt), {}))).toEqual({ removed: true, pruned: false, branchDeleted: false });
    expect(existsSync(wt.path)).toBe(false);
    expect(head(r.repo, 'refs/heads/swb/agent')).toBe(c);
    expect(git(r.repo, 'worktree', 'list', '--porcelain')).not.toContain(wt.path);

    const two = await makeWorktree(r.repo, 'two');
    commitFile(two.path, 'two.txt', 'two\n');
    ok(await mergeWorktree(infoOf(two), { mode: 'merge' }));
    expect(ok(await removeWorktree(infoOf(two), { deleteBranch: true }))).toEqual({ removed: true, pruned: false, branchDeleted: true });
    expect(gitStatus(r.repo, 'rev-parse', '--verify', '--quiet', 'refs/heads/swb/two')).not.toBe(0);
  });

  test('a worktree with no commits of its own and a clean tree is removed', async () => {
    const r = makeRepo();
    const wt = await makeWorktree(r.repo);
    expect(ok(await removeWorktree(infoOf(wt), {}))).toMatchObject({ removed: true });
    expect(existsSync(wt.path)).toBe(false);
  });

  test('a branch whose commits another branch also has is removed: ancestry, not counts', async () => {
    const r = makeRepo();
    const wt = await makeWorktree(r.repo);
    commitFile(wt.path, 'feature.txt', 'the feature\n');
    commitFile(wt.path, 'feature.txt', 'more\n');
    git(r.repo, 'branch', 'keeper', 'swb/agent');
    expect(await commitsOnlyOn(r.repo, 'swb/agent')).toEqual([]);
    expect(ok(await removeWorktree(infoOf(wt), {}))).toMatchObject({ removed: true, branchDeleted: false });
    expect(existsSync(wt.path)).toBe(false);
  });

  test('a dirty tree is refused UNMERGED, saying what would be lost; the worktree stays', async () => {
    const r = makeRepo();
    const wt = await makeWorktree(r.repo);
    write(wt.path, 'work-in-progress.txt', 'not committed\n');
    const e = refusal(await removeWorktree(infoOf(wt), {}));
    expect(e.code).toBe('UNMERGED');
    expect(e.message).toMatch(/uncommitted changes/);
    expect(e.message).toContain('work-in-progress.txt');
    expect(readFileSync(join(wt.path, 'work-in-progress.txt'), 'utf8')).toBe('not committed\n');
    expect(git(r.repo, 'worktree', 'list', '--porcelain')).toContain(`worktree ${wt.path}\n`);

    // A modified tracked file is dirty too.
    rmSync(join(wt.path, 'work-in-progress.txt'));
    write(wt.path, 'README.md', 'edited\n');
    expect(refusal(await removeWorktree(infoOf(wt), { deleteBranch: true })).code).toBe('UNMERGED');
    expect(readFileSync(join(wt.path, 'README.md'), 'utf8')).toBe('edited\n');
    expect(head(r.repo, 'refs/heads/swb/agent')).toBe(wt.base.commit);
  });

  // Found by this test (fixed): commitsOnlyOn passed `--exclude=refs/heads/B --branches`, but git's
  // --exclude patterns for --branches are relative to refs/heads/, so it was always [] and removal
  // never refused for commits no other branch has.
  test('commits no other branch has: UNMERGED, naming them; the worktree stays', async () => {
    const r = makeRepo();
    const wt = await makeWorktree(r.repo);
    const c = commitFile(wt.path, 'feature.txt', 'the feature\n');
    expect(await commitsOnlyOn(r.repo, 'swb/agent')).toEqual([c]);
    const e = refusal(await removeWorktree(infoOf(wt), {}));
    expect(e.code).toBe('UNMERGED');
    expect(e.message).toMatch(/1 commit no other branch has/);
    expect(e.message).toContain(c.slice(0, 8));
    expect(existsSync(join(wt.path, 'feature.txt'))).toBe(true);
  });

  test('commits no other branch has, with deleteBranch: UNMERGED before anything is removed', async () => {
    const r = makeRepo();
    const wt = await makeWorktree(r.repo);
    commitFile(wt.path, 'feature.txt', 'the feature\n');
    const outcome = await removeWorktree(infoOf(wt), { deleteBranch: true });
    // Today: GIT_FAILED ("git branch: error: the branch 'swb/agent' is not fully merged") with the worktree already gone.
    expect(existsSync(wt.path)).toBe(true);
    expect(refusal(outcome).code).toBe('UNMERGED');
  });

  test('force removes a dirty worktree with unmerged commits; force with deleteBranch deletes the branch too', async () => {
    const r = makeRepo();
    const wt = await makeWorktree(r.repo);
    const c = commitFile(wt.path, 'feature.txt', 'the feature\n');
    write(wt.path, 'scratch.txt', 'dirty\n');
    write(wt.path, 'README.md', 'edited\n');
    expect(ok(await removeWorktree(infoOf(wt), { force: true }))).toEqual({ removed: true, pruned: false, branchDeleted: false });
    expect(existsSync(wt.path)).toBe(false);
    expect(head(r.repo, 'refs/heads/swb/agent')).toBe(c);

    const two = await makeWorktree(r.repo, 'two');
    commitFile(two.path, 'two.txt', 'two\n');
    write(two.path, 'scratch.txt', 'dirty\n');
    expect(ok(await removeWorktree(infoOf(two), { force: true, deleteBranch: true }))).toEqual({ removed: true, pruned: false, branchDeleted: true });
    expect(existsSync(two.path)).toBe(false);
    expect(gitStatus(r.repo, 'rev-parse', '--verify', '--quiet', 'refs/heads/swb/two')).not.toBe(0);
    // The main checkout is untouched throughout.
    expect(head(r.repo)).toBe(wt.base.commit);
    expect(porcelain(r.repo)).toBe('');
  });

  test('a worktree directory deleted by hand is pruned, not an error; its branch is kept', async () => {
    const r = makeRepo();
    const wt = await makeWorktree(r.repo);
    const c = commitFile(wt.path, 'feature.txt', 'the feature\n');
    rmSync(wt.path, { recursive: true, force: true });
    expect(git(r.repo, 'worktree', 'list', '--porcelain')).toContain(`worktree ${wt.path}\n`);
    expect(ok(await removeWorktree(infoOf(wt), {}))).toEqual({ removed: false, pruned: true, branchDeleted: false });
    expect(git(r.repo, 'worktree', 'list', '--porcelain')).not.toContain(wt.path);
    expect(head(r.repo, 'refs/heads/swb/agent')).toBe(c);
    // Its branch can be checked out again (git no longer thinks it is in use).
    const again = await makeWorktree(r.repo, 'agent', { reuseBranch: true });
    expect(head(again.path)).toBe(c);
  });
});
