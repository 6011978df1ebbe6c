// Worktree rows through the real server and real ptys (issue #12): `swb new --worktree` starts a row
// in its own git worktree beside the repository; its header follows the branch's ahead/behind and
// dirty state as git's files change; `swb review`, `swb merge` and `swb rm` act on it from any shell;
// the config's `worktrees.setup` runs first in the row; D reviews it on the dashboard; X then w
// removes the worktree only when no work would be lost. The workspace is itself the repository, so
// worktrees go to <base>/workspace.swb/NAME, inside the temp dir the home removes.
import { existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import type { RowListing } from '../../src/protocol/methods.js';
import { runCleanups } from '../helpers/cleanup.js';
import { commitFile, git, initRepo, writeIn as write } from '../helpers/git-repo.js';
import { isProcessAlive } from '../helpers/processes.js';
import { runSwb, type SwbResult } from '../helpers/run-swb.js';
import { createTempHome, type TempHome } from '../helpers/temp-home.js';
import { startSwb, type TerminalHarness } from '../helpers/terminal-harness.js';
import { waitUntil } from '../helpers/wait-until.js';

afterEach(runCleanups);

const ATTACH = '\r';
const DETACH_ROW = '\x1c'; // Ctrl-\
const HINTS = /enter attach/;

/** Makes the home's workspace a repository on main with one commit; `exclude` lists files git should not see. */
function makeRepo(home: TempHome, exclude: string[] = []): string {
  const repo = home.workspace;
  initRepo(repo, { 'README.md': 'line one\nline two\n' });
  if (exclude.length > 0) writeFileSync(join(repo, '.git', 'info', 'exclude'), `${exclude.join('\n')}\n`);
  return repo;
}

/** Where `swb new --worktree --name NAME` puts the worktree of a repo that is the workspace. */
const worktreeDir = (home: TempHome, name: string): string => join(dirname(home.workspace), 'workspace.swb', name);

async function ls(home: TempHome): Promise<RowListing[]> {
  const r = await runSwb(['ls', '--json'], { home });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return (JSON.parse(r.stdout) as { rows: RowListing[] }).rows;
}

function expectOk(r: SwbResult, what: string): void {
  expect(r.stderr, `${what}: stderr`).toBe('');
  expect(r.status, `${what}: status (stdout ${r.stdout})`).toBe(0);
}

/** The dashboard line with NAME's header, or undefined. */
function header(t: TerminalHarness, name: string): string | undefined {
  const re = new RegExp(`^ [◐●?■○] ${name} · `);
  return t.screenText().find((l) => re.test(l));
}

/** Waits for NAME's header to match (the header's git part: ` · swb/NAME ↑1 ↓1 *`). */
function waitForHeader(t: TerminalHarness, name: string, want: RegExp, what: string): Promise<string> {
  return t.waitFor(() => {
    const h = header(t, name);
    return h !== undefined && want.test(h) ? h : undefined;
  }, `${what} (header now: ${JSON.stringify(header(t, name))})`);
}

/** Whether NAME's header is painted as the focused one (bold). */
function isFocused(t: TerminalHarness, name: string): boolean {
  const y = t.screenText().findIndex((l) => new RegExp(`^ [◐●?■○] ${name} · `).test(l));
  return y >= 0 && t.cellAt(3, y).bold;
}

/** Tabs until NAME's row has the focus. */
async function focus(t: TerminalHarness, name: string, rows: number): Promise<void> {
  for (let i = 0; i <= rows && !isFocused(t, name); i++) {
    const before = t.screenText().join('\n');
    t.write('\t');
    await t.waitFor(() => t.screenText().join('\n') !== before || isFocused(t, name), 'the focus to move');
  }
  await t.waitFor(() => isFocused(t, name), `@${name} to have the focus`);
}

/** `swb new --worktree --name NAME -- sh -c SCRIPT` (a shell stays on after the script). */
async function newWorktreeRow(home: TempHome, name: string, script: string, extra: string[] = []): Promise<SwbResult> {
  return runSwb(['new', '--worktree', '--name', name, ...extra, '--', 'sh', '-c', `${script}; exec sh`], { home });
}

describe('worktree rows', () => {
  test('swb new --worktree: the row runs in its worktree; its header follows commits and dirt; review, merge and rm', async () => {
    const home = createTempHome();
    const repo = makeRepo(home);
    const start = git(repo, 'rev-parse', 'HEAD');
    const t = startSwb({ home, args: ['base=echo BASE-UP; exec sleep 600'] });
    await t.waitForText('BASE-UP');
    await t.waitForText(HINTS);

    const made = await newWorktreeRow(home, 'agent', 'echo AGENT-UP in "$(pwd)"');
    expectOk(made, 'swb new --worktree');
    const dir = worktreeDir(home, 'agent');
    expect(made.stdout).toContain('started row agent');
    expect(made.stdout).toContain(`worktree ${dir} on branch swb/agent, from main`);
    await t.waitForText(`AGENT-UP in ${dir}`);
    await waitForHeader(t, 'agent', / · swb\/agent +\S+$/, 'the header to show the branch, nothing ahead, clean');
    expect(git(dir, 'symbolic-ref', '--short', 'HEAD')).toBe('swb/agent');
    expect(git(dir, 'rev-parse', 'HEAD')).toBe(start);
    expect((await ls(home)).map((r) => r.name).sort()).toEqual(['agent', 'base']);

    // A commit made from outside the row: git's files change, the header follows.
    commitFile(dir, 'outside.txt', 'from outside\n');
    await waitForHeader(t, 'agent', / · swb\/agent ↑1 +\S+$/, 'the header to show one commit ahead');

    // A commit typed into the row.
    await focus(t, 'agent', 2);
    t.write(ATTACH);
    await t.waitForNoText(HINTS);
    t.write('printf "typed 1\\ntyped 2\\n" > typed.txt && git add typed.txt && git commit -qm typed && echo COMMITTED-$((40+2))\r');
    await t.waitForText('COMMITTED-42');
    t.write(DETACH_ROW);
    await t.waitForText(HINTS);
    await waitForHeader(t, 'agent', / · swb\/agent ↑2 +\S+$/, 'the header to show two commits ahead');

    // Main moves on: one behind; a file in the worktree: dirty.
    commitFile(repo, 'main.txt', 'main moved\n');
    await waitForHeader(t, 'agent', / · swb\/agent ↑2 ↓1 +\S+$/, 'the header to show one behind');
    write(dir, 'scratch.txt', 'not committed\n');
    await waitForHeader(t, 'agent', / · swb\/agent ↑2 ↓1 \* +\S+$/, 'the header to show the tree dirty');

    const review = await runSwb(['review', 'agent', '--json'], { home });
    expectOk(review, 'swb review --json');
    const r = JSON.parse(review.stdout) as { base: string; commits: Array<{ hash: string; subject: string }>; commitCount: number; files: Array<{ path: string; status: string; added: number; deleted: number }>; patch: string; worktree: { path: string; branch: string } };
    expect(r.base).toBe(start);
    // The commits since the base, newest first (main's own commit is not one of them).
    expect(r.commits.map((c) => c.subject)).toEqual(['typed', 'edit outside.txt']);
    expect(r.commits[0]!.hash).toBe(git(dir, 'rev-parse', '--short', 'HEAD'));
    expect(r.commitCount).toBe(2);
    expect(r.worktree).toMatchObject({ path: dir, branch: 'swb/agent' });
    expect(r.files.sort((a, b) => a.path.localeCompare(b.path))).toEqual([
      { path: 'outside.txt', status: 'A', added: 1, deleted: 0, binary: false },
      { path: 'scratch.txt', status: '?', added: 1, deleted: 0, binary: false },
      { path: 'typed.txt', status: 'A', added: 2, deleted: 0, binary: false },
    ]);
    expect(r.patch).toMatch(/^\+typed 2$/m);
    expect(r.patch).not.toContain('main moved');
    const plain = await runSwb(['review', 'agent', '--stat'], { home });
    expectOk(plain, 'swb review --stat');
    expect(plain.stdout).toMatch(/^ {2}A \+2 -0 +typed\.txt$/m);
    expect(plain.stdout).toMatch(/^ {2}3 files, \+4 -0$/m);
    expect(plain.stdout).toMatch(/^ {2}2 commits since the base:\n {4}[0-9a-f]{7,} typed\n {4}[0-9a-f]{7,} edit outside\.txt$/m);

    // Dirty: neither rm nor merge goes ahead.
    const dirtyRm = await runSwb(['rm', 'agent'], { home });
    expect(dirtyRm.status).not.toBe(0);
    expect(dirtyRm.stderr).toMatch(/UNMERGED: .*uncommitted changes \(scratch\.txt\)/);
    expect(existsSync(join(dir, 'scratch.txt'))).toBe(true);
    const dirtyMerge = await runSwb(['merge', 'agent'], { home });
    expect(dirtyMerge.status).not.toBe(0);
    expect(dirtyMerge.stderr).toMatch(/DIRTY: .*--commit-all/);
    expect(git(repo, 'log', '-1', '--format=%s')).toBe('edit main.txt');
    expect((await ls(home)).map((r) => r.name).sort()).toEqual(['agent', 'base']);

    // --commit-all commits it in the row first; main gets a merge commit (it moved on).
    const merged = await runSwb(['merge', 'agent', '--commit-all'], { home });
    expectOk(merged, 'swb merge --commit-all');
    expect(merged.stdout).toMatch(/^committed the uncommitted work, then merged agent into main: [0-9a-f]{12}$/m);
    expect(readFileSync(join(repo, 'typed.txt'), 'utf8')).toBe('typed 1\ntyped 2\n');
    expect(readFileSync(join(repo, 'outside.txt'), 'utf8')).toBe('from outside\n');
    expect(readFileSync(join(repo, 'scratch.txt'), 'utf8')).toBe('not committed\n');
    expect(git(repo, 'status', '--porcelain')).toBe('');
    expect(git(repo, 'rev-list', '--count', 'HEAD^2..swb/agent')).toBe('0');
    // Merged: nothing ahead; main has the branch now, and two commits the branch lacks (main.txt, the merge).
    await waitForHeader(t, 'agent', / · swb\/agent ↓2 +\S+$/, 'the header after the merge');

    const removed = await runSwb(['rm', 'agent'], { home });
    expectOk(removed, 'swb rm');
    expect(removed.stdout).toContain('closed agent; worktree removed, branch kept');
    expect(existsSync(dir)).toBe(false);
    expect(git(repo, 'rev-parse', '--verify', 'refs/heads/swb/agent')).toMatch(/^[0-9a-f]{40}$/);
    await t.waitFor(() => header(t, 'agent') === undefined, 'the agent row to leave the dashboard');
    expect((await ls(home)).map((r) => r.name)).toEqual(['base']);
  });

  test('bad input from swb new --worktree: not a repo, an existing branch (then --reuse-branch), a base that does not resolve, an invalid branch, a taken row name', async () => {
    const home = createTempHome();
    const t = startSwb({ home, args: ['base=echo BASE-UP; exec sleep 600'] });
    await t.waitForText('BASE-UP');

    const notRepo = await newWorktreeRow(home, 'agent', 'echo NEVER');
    expect(notRepo.status).not.toBe(0);
    expect(notRepo.stderr).toMatch(/NOT_A_REPO: .*not inside a git repository/);

    const repo = makeRepo(home);
    git(repo, 'branch', 'swb/agent');
    const exists = await newWorktreeRow(home, 'agent', 'echo NEVER');
    expect(exists.status).not.toBe(0);
    expect(exists.stderr).toMatch(/BRANCH_EXISTS: .*--reuse-branch/);
    const noBase = await newWorktreeRow(home, 'other', 'echo NEVER', ['--base', 'no-such-ref']);
    expect(noBase.status).not.toBe(0);
    expect(noBase.stderr).toMatch(/BAD_REQUEST: .*no-such-ref/);
    const badBranch = await newWorktreeRow(home, 'other', 'echo NEVER', ['--branch', 'bad..branch']);
    expect(badBranch.status).not.toBe(0);
    expect(badBranch.stderr).toMatch(/BAD_REQUEST: .*not a valid branch name/);
    expect((await ls(home)).map((r) => r.name)).toEqual(['base']);
    expect(existsSync(worktreeDir(home, 'agent'))).toBe(false);
    expect(existsSync(worktreeDir(home, 'other'))).toBe(false);
    expect(t.screenText().join('\n')).not.toContain('NEVER');

    const reused = await newWorktreeRow(home, 'agent', 'echo REUSED-UP', ['--reuse-branch']);
    expectOk(reused, 'swb new --worktree --reuse-branch');
    await t.waitForText('REUSED-UP');
    await waitForHeader(t, 'agent', / · swb\/agent +\S+$/, 'the reused branch in the header');

    // The row's name is taken now.
    const taken = await newWorktreeRow(home, 'agent', 'echo NEVER', ['--branch', 'another']);
    expect(taken.status).not.toBe(0);
    expect(taken.stderr).toMatch(/ROW_EXISTS/);
    expect(git(repo, 'branch', '--list', 'another')).toBe('');
    expect(existsSync(join(worktreeDir(home, 'agent'), '.git'))).toBe(true);
  });

  test('the config\u2019s worktrees.setup runs first in the row, where .worktreeinclude files were copied; a setup that fails or times out is said, then the program runs', async () => {
    const home = createTempHome();
    const repo = makeRepo(home, ['switchboard.json', '.env']);
    write(repo, '.worktreeinclude', '.env\n');
    git(repo, 'add', '.worktreeinclude');
    git(repo, 'commit', '-q', '-m', 'worktree includes');
    write(repo, '.env', 'TOKEN=copied-in\n');
    const setup = 'case "$(basename "$PWD")" in slow) exec sleep 30;; broken) exit 3;; *) echo "SETUP-RAN in $(basename "$PWD") with $(cat .env)";; esac';
    writeFileSync(join(repo, 'switchboard.json'), JSON.stringify({ worktrees: { setup, setupTimeoutS: 1 } }));
    // The repository's config runs a setup command: the operator trusts it first (docs/SECURITY.md).
    expectOk(await runSwb(['trust'], { home, cwd: repo }), 'swb trust');
    const t = startSwb({ home, args: ['base=echo BASE-UP; exec sleep 600'] });
    await t.waitForText('BASE-UP');

    const made = await newWorktreeRow(home, 'agent', 'echo AGENT-UP');
    expectOk(made, 'swb new --worktree');
    expect(made.stdout).toMatch(/copied 1 untracked file \(\.worktreeinclude\)/);
    const screen = (await t.waitForText('AGENT-UP')).join('\n');
    expect(screen).toContain('SETUP-RAN in agent with TOKEN=copied-in');
    // The setup's output comes before the program's.
    expect(screen.indexOf('SETUP-RAN in agent')).toBeLessThan(screen.indexOf('AGENT-UP'));
    expect(readFileSync(join(worktreeDir(home, 'agent'), '.env'), 'utf8')).toBe('TOKEN=copied-in\n');

    expectOk(await newWorktreeRow(home, 'broken', 'echo BROKEN-UP'), 'swb new --worktree (failing setup)');
    await t.waitForText('BROKEN-UP');
    await t.waitForText('swb: the worktree setup failed (status 3)');

    expectOk(await newWorktreeRow(home, 'slow', 'echo SLOW-UP'), 'swb new --worktree (slow setup)');
    await t.waitForText('SLOW-UP', { timeoutMs: 8000 });
    await t.waitForText('swb: the worktree setup timed out (status 124)');
    expect((await ls(home)).filter((r) => r.running).map((r) => r.name).sort()).toEqual(['agent', 'base', 'broken', 'slow']);
  });

  test('a config row with worktree: true starts in its own worktree with the setup first', async () => {
    const home = createTempHome();
    const repo = makeRepo(home, ['switchboard.json']);
    writeFileSync(
      join(repo, 'switchboard.json'),
      JSON.stringify({ worktrees: { setup: 'echo SETUP-RAN in "$(basename "$PWD")"' }, rows: [{ name: 'cfg', command: 'echo CFG-UP in "$PWD"; exec sleep 600', worktree: true }] }),
    );
    expectOk(await runSwb(['trust'], { home, cwd: repo }), 'swb trust');
    const t = startSwb({ home, args: [] });
    await t.waitForText(`CFG-UP in ${worktreeDir(home, 'cfg')}`);
    await t.waitForText('SETUP-RAN in cfg');
    await waitForHeader(t, 'cfg', / · swb\/cfg +\S+$/, 'the config row\u2019s branch in its header');
  });

  test('D opens the review overlay with the file and its + lines; X then w on a row with uncommitted work keeps it: UNMERGED', async () => {
    const home = createTempHome();
    makeRepo(home);
    const t = startSwb({ home, args: ['base=echo BASE-UP; exec sleep 600'], cols: 120, rows: 32 });
    await t.waitForText('BASE-UP');
    expectOk(await newWorktreeRow(home, 'agent', 'echo AGENT-UP'), 'swb new --worktree');
    await t.waitForText('AGENT-UP');
    const dir = worktreeDir(home, 'agent');
    // The subject is the agent's text: an escape sequence in it must reach no terminal.
    commitFile(dir, 'feature.txt', 'FEATURE-LINE-1\nFEATURE-LINE-2\n', 'add feature\x1b]0;PWNED\x07 now');
    write(dir, 'wip.txt', 'WIP-LINE\n');
    await waitForHeader(t, 'agent', / · swb\/agent ↑1 \* +\S+$/, 'the header with the commit and the dirt');
    await focus(t, 'agent', 2);

    t.write('D');
    const overlay = (await t.waitForText('Review of @agent')).join('\n');
    expect(overlay).toMatch(/Review of @agent: swb\/agent against main at [0-9a-f]{12}/);
    await t.waitForText('1 commit since the base:');
    await t.waitForText(/[0-9a-f]{7,} add feature\S* now/);
    expect(t.titles.join('\n')).not.toContain('PWNED');
    expect(t.screenText().join('\n')).not.toContain('PWNED');
    await t.waitForText(/A \+2 -0 +feature\.txt/);
    await t.waitForText(/\? \+1 -0 +wip\.txt/);
    await t.waitForText(/^│ \+FEATURE-LINE-2 +│$/m);
    await t.waitForText(/^│ \+WIP-LINE +│$/m);
    // + lines are green (swb's colour, on sanitized text).
    const at = t.find('+FEATURE-LINE-1')!;
    expect(t.cellAt(at.x, at.y)).toMatchObject({ fgMode: 'palette', fg: 2 });
    t.write('\x1b');
    await t.waitForNoText('Review of @agent');
    await t.waitForText(HINTS);

    // From the review, c writes to the row: the composer, addressed to it; the mail reaches it.
    t.write('D');
    await t.waitForText('Review of @agent');
    t.write('c');
    await t.waitForNoText('Review of @agent');
    const prompt = await t.waitFor(() => t.screenText().find((l) => l.startsWith(' ✎')), 'the composer open');
    expect(prompt).toBe(' ✎ @agent');
    // One key at a time, each once the composer shows the one before.
    const note = 'fix-the-test';
    for (let i = 1; i <= note.length; i++) {
      t.write(note[i - 1]!);
      await t.waitFor(() => t.screenText().includes(` ✎ @agent ${note.slice(0, i)}`), `the composer to read ${note.slice(0, i)}`);
    }
    t.write('\r');
    await waitUntil(async () => (await ls(home)).find((r) => r.name === 'agent')?.unread === 1, { what: 'the note to reach @agent' });
    // The composer closes by itself once the note is accepted (no Esc: an Esc right before the next
    // key would reach the terminal with it as one Alt chord).
    await t.waitForText(/sent #\d+ → @agent/);
    await t.waitForText(HINTS);

    t.write('X');
    await t.waitForText('Close @agent?');
    await t.waitForText(`Its worktree: ${dir}`);
    await t.waitForText(/w: close and remove the worktree/);
    t.write('w');
    await t.waitForText(/@agent kept: UNMERGED: .*uncommitted changes \(wip\.txt\)/);
    expect(header(t, 'agent')).toBeDefined();
    expect(existsSync(join(dir, 'wip.txt'))).toBe(true);
    expect((await ls(home)).find((r) => r.name === 'agent')).toMatchObject({ running: true });

    // Once the work is merged, w closes the row and removes its worktree.
    expectOk(await runSwb(['merge', 'agent', '--commit-all'], { home }), 'swb merge --commit-all');
    t.write('X');
    await t.waitForText('Close @agent?');
    t.write('w');
    await t.waitForText('@agent closed and its worktree removed');
    await t.waitFor(() => header(t, 'agent') === undefined, 'the agent row to leave the dashboard');
    expect(existsSync(dir)).toBe(false);
    expect((await ls(home)).map((r) => r.name)).toEqual(['base']);
  });

  test('the N dialog\u2019s Git worktree field: + for swb/<name>, a branch name for that branch, a refusal stays in the dialog', async () => {
    const home = createTempHome();
    const repo = makeRepo(home);
    git(repo, 'branch', 'taken');
    const t = startSwb({ home, args: ['base=echo BASE-UP; exec sleep 600'], cols: 120, rows: 40 });
    await t.waitForText('BASE-UP');
    await t.waitForText(HINTS);

    /** Whether the dialog's field labelled LABEL has the focus (its label is bold). */
    const onField = (label: string): boolean => {
      const at = t.find(label);
      return at !== null && t.cellAt(at.x, at.y).bold;
    };
    const tabTo = async (label: string) => {
      t.write('\t');
      await t.waitFor(() => onField(label), `the dialog's ${label} field to take the focus`);
    };
    /** Opens N and fills the fields: it starts on "Name (optional)"; Tab goes on to command, cwd, worktree. */
    const dialog = async (what: string, worktree: string, name: string) => {
      t.write('N');
      await t.waitFor(() => onField('Name (optional)'), 'the dialog, on its name field');
      t.write(name);
      await t.waitForText(new RegExp(`Name \\(optional\\) +${name} `));
      await tabTo('Profile or command');
      t.write(what);
      await t.waitForText(what.slice(0, 20));
      await tabTo('Working directory');
      await tabTo('Git worktree');
      t.write(worktree);
      await t.waitForText(new RegExp(`Git worktree +${worktree.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} `));
      t.write('\r');
    };

    await dialog('sh -c "echo DLG-ONE-UP; exec sh"', '+', 'one');
    await t.waitForText('DLG-ONE-UP');
    await waitForHeader(t, 'one', / · swb\/one +\S+$/, 'the dialog row on swb/one');
    expect(git(worktreeDir(home, 'one'), 'symbolic-ref', '--short', 'HEAD')).toBe('swb/one');

    await dialog('sh -c "echo DLG-TWO-UP; exec sh"', 'topic/two', 'two');
    await t.waitForText('DLG-TWO-UP');
    await waitForHeader(t, 'two', / · topic\/two +\S+$/, 'the dialog row on topic/two');
    expect(git(worktreeDir(home, 'two'), 'symbolic-ref', '--short', 'HEAD')).toBe('topic/two');

    await dialog('sh -c "echo NEVER-$((1+1)); exec sh"', 'taken', 'three');
    await t.waitForText(/BRANCH_EXISTS: .*taken/);
    // The dialog stays open with what was typed.
    expect(t.screenText().join('\n')).toMatch(/Git worktree +taken/);
    t.write('\x1b');
    await t.waitForText(HINTS);
    expect(t.screenText().join('\n')).not.toContain('NEVER-2');
    expect((await ls(home)).map((r) => r.name).sort()).toEqual(['base', 'one', 'two']);
    expect(existsSync(worktreeDir(home, 'three'))).toBe(false);
  });

  // Found by this test (fixed in commitsOnlyOn): a clean worktree with unmerged commits was removed without a word.
  test('swb rm refuses a worktree whose branch has a commit no other branch has', async () => {
    const home = createTempHome();
    makeRepo(home);
    const t = startSwb({ home, args: ['base=echo BASE-UP; exec sleep 600'] });
    await t.waitForText('BASE-UP');
    expectOk(await newWorktreeRow(home, 'agent', 'echo AGENT-UP'), 'swb new --worktree');
    await t.waitForText('AGENT-UP');
    const dir = worktreeDir(home, 'agent');
    commitFile(dir, 'feature.txt', 'unmerged work\n');
    await waitForHeader(t, 'agent', / · swb\/agent ↑1 +\S+$/, 'one commit ahead, clean');

    const rm = await runSwb(['rm', 'agent'], { home });
    expect(existsSync(dir)).toBe(true);
    expect(rm.status).not.toBe(0);
    expect(rm.stderr).toMatch(/UNMERGED: .*1 commit no other branch has/);
  });

  test('swb new --worktree says which .worktreeinclude files it did not copy and why: a symlink the base branch committed is not written through', async () => {
    const home = createTempHome();
    const repo = makeRepo(home, ['.env', 'local.json']);
    const outside = join(dirname(home.workspace), 'victim.txt');
    writeFileSync(outside, 'untouched\n');
    write(repo, '.worktreeinclude', '.env\nlocal.json\n');
    git(repo, 'add', '.worktreeinclude');
    git(repo, 'commit', '-q', '-m', 'worktree includes');
    // A branch (from a pull request, say) commits .env as a link out of the worktree.
    git(repo, 'checkout', '-q', '-b', 'pr');
    symlinkSync(outside, join(repo, '.env'));
    git(repo, 'add', '-f', '.env');
    git(repo, 'commit', '-q', '-m', '.env is a link');
    git(repo, 'checkout', '-q', 'main');
    write(repo, '.env', 'TOKEN=operator\n');
    write(repo, 'local.json', '{}\n');
    const t = startSwb({ home, args: ['base=echo BASE-UP; exec sleep 600'] });
    await t.waitForText('BASE-UP');

    const made = await newWorktreeRow(home, 'agent', 'echo AGENT-UP', ['--base', 'pr']);
    expectOk(made, 'swb new --worktree --base pr');
    expect(made.stdout).toMatch(/copied 1 untracked file \(\.worktreeinclude\)/);
    expect(made.stdout).toContain('  .worktreeinclude: not copied: .env (the branch has a symlink there)\n');
    expect(readFileSync(outside, 'utf8')).toBe('untouched\n');
    expect(readFileSync(join(worktreeDir(home, 'agent'), 'local.json'), 'utf8')).toBe('{}\n');
  });

  test('swb rm finds the worktree of a row closed with swb kill (the server keeps its spec), and with no server at all (git\u2019s worktree list, by the row\u2019s name) (#31.8)', async () => {
    const home = createTempHome();
    makeRepo(home);
    const t = startSwb({ home, args: ['base=echo BASE-UP; exec sleep 600'] });
    await t.waitForText('BASE-UP');
    for (const name of ['exp', 'other', 'late']) {
      expectOk(await newWorktreeRow(home, name, `echo ${name.toUpperCase()}-UP`), `swb new --worktree ${name}`);
      await t.waitForText(`${name.toUpperCase()}-UP`);
    }
    commitFile(worktreeDir(home, 'exp'), 'exp.txt', 'work of exp\n');
    const beforeServer = (JSON.parse((await runSwb(['ls', '--json'], { home })).stdout) as { pid: number }).pid;

    // Closed with swb kill while the server runs: found from the row's spec it keeps.
    expectOk(await runSwb(['kill', 'exp'], { home }), 'swb kill exp');
    const rmExp = await runSwb(['rm', 'exp', '--force', '--delete-branch'], { home });
    expectOk(rmExp, 'swb rm exp after swb kill');
    expect(rmExp.stdout).toMatch(/^exp: worktree removed, branch deleted/);
    expect(existsSync(worktreeDir(home, 'exp'))).toBe(false);
    expect(git(home.workspace, 'branch', '--list', 'swb/exp')).toBe('');

    expectOk(await runSwb(['kill', 'other'], { home }), 'swb kill other');
    expectOk(await runSwb(['kill-server', '--force'], { home }), 'swb kill-server');
    await t.waitForExit();
    await waitUntil(() => !isProcessAlive(beforeServer), { what: 'the server to end' });

    // No server at all: swb rm asks git itself (and refuses what would lose work, as the server does).
    commitFile(worktreeDir(home, 'late'), 'late.txt', 'work of late\n');
    const refused = await runSwb(['rm', 'late'], { home });
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(/UNMERGED: .*1 commit no other branch has/);
    const rmOther = await runSwb(['rm', 'other', '--delete-branch'], { home });
    expectOk(rmOther, 'swb rm other with no server');
    expect(rmOther.stdout).toMatch(/^other: worktree removed, branch deleted/);
    expect(existsSync(worktreeDir(home, 'other'))).toBe(false);
    expect(existsSync(home.paths.serverSocketPath)).toBe(false);
    const missing = await runSwb(['rm', 'nosuch'], { home });
    expect(missing.status).toBe(1);
    expect(missing.stderr).toMatch(/NOT_FOUND: No row named nosuch runs, and git lists no worktree of it/);
    expect(git(home.workspace, 'worktree', 'list', '--porcelain')).toContain(worktreeDir(home, 'late'));
  });
});
