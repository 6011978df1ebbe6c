// Real git repositories for the worktree tests. Each test gets its own repository on main with one
// commit, but only the first one a test process asks for is made with git (init, identity, add,
// commit: six processes); every later one is a copy of it, files and .git alike, which costs no
// process at all. A copy is a repository in its own right (git keeps no absolute path in a fresh
// .git), so tests stay as independent as before; they only share the initial commit's hash.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** git as a test runs it: plain output, no prompts, no global config of the machine's. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, LC_ALL: 'C', GIT_TERMINAL_PROMPT: '0', GIT_CONFIG_NOSYSTEM: '1' },
  }).trimEnd(); // not the start: `git status --porcelain` lines begin with a space
}

/** Writes `text` to `file` under `dir`, making its folders. */
export function writeIn(dir: string, file: string, text: string): void {
  mkdirSync(dirname(join(dir, file)), { recursive: true });
  writeFileSync(join(dir, file), text);
}

/** Writes and commits one file; returns the new HEAD. */
export function commitFile(dir: string, file: string, text: string, message = `edit ${file}`): string {
  writeIn(dir, file, text);
  git(dir, 'add', '--', file);
  git(dir, 'commit', '-q', '-m', message);
  return git(dir, 'rev-parse', 'HEAD');
}

/** The template repository of each initial file set, made once per test process. */
const templates = new Map<string, string>();

function templateOf(files: Readonly<Record<string, string>>): string {
  const key = JSON.stringify(files);
  const known = templates.get(key);
  if (known !== undefined) return known;
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'swb-repo-template-')));
  if (templates.size === 0) process.once('exit', () => { for (const dir of templates.values()) rmSync(dirname(dir), { recursive: true, force: true }); });
  const repo = join(base, 'repo');
  mkdirSync(repo);
  git(repo, 'init', '-q', '-b', 'main');
  git(repo, 'config', 'user.name', 'Switchboard Test');
  git(repo, 'config', 'user.email', 'test@switchboard.invalid');
  git(repo, 'config', 'commit.gpgsign', 'false');
  for (const [file, text] of Object.entries(files)) writeIn(repo, file, text);
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'initial');
  templates.set(key, repo);
  return repo;
}

/**
 * Makes `dir` (made if missing; an existing one should be empty) a repository on main with `files`
 * as its one commit ("initial"), committed by "Switchboard Test".
 */
export function initRepo(dir: string, files: Readonly<Record<string, string>>): void {
  cpSync(templateOf(files), dir, { recursive: true });
}
