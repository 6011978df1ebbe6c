// The real `git` command, run without a shell, with a timeout and bounded output. Every worktree
// operation goes through here, so a git that is missing or too old is said once, clearly.
import { execFile } from 'node:child_process';

/** `git worktree` as used here (`worktree add -b`, `remove`, `prune`, porcelain lists) needs 2.20. */
export const MIN_GIT = [2, 20] as const;
const TIMEOUT_MS = 30_000;
const MAX_OUTPUT = 32 * 1024 * 1024;

export class GitError extends Error {
  constructor(
    message: string,
    /** git's exit status (null: it did not run, or timed out). */
    readonly status: number | null,
    readonly stderr: string,
  ) {
    super(message);
    this.name = 'GitError';
  }
}

export interface GitResult {
  stdout: string;
  stderr: string;
  status: number;
}

/** Runs `git ARGS` in `cwd`. Resolves with a non-zero status too when `allowFail`; otherwise throws GitError. */
export function git(cwd: string, args: readonly string[], opts: { allowFail?: boolean; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    execFile(
      'git',
      [...args],
      {
        cwd,
        // Plain, stable output: no pager, no colour, no prompts, English messages.
        env: { ...(opts.env ?? process.env), GIT_TERMINAL_PROMPT: '0', GIT_PAGER: 'cat', LC_ALL: 'C', GIT_OPTIONAL_LOCKS: '0' },
        timeout: opts.timeoutMs ?? TIMEOUT_MS,
        maxBuffer: MAX_OUTPUT,
        encoding: 'utf8',
      },
      (err, stdout, stderr) => {
        if (err && typeof (err as NodeJS.ErrnoException).code === 'string' && (err as NodeJS.ErrnoException).code === 'ENOENT') {
          reject(new GitError('git is not installed (no `git` on PATH); worktree rows need git 2.20 or newer', null, ''));
          return;
        }
        const status = err ? (typeof (err as { code?: unknown }).code === 'number' ? ((err as { code: number }).code) : null) : 0;
        if (status === null) {
          reject(new GitError(`git ${args[0]} did not finish (${(err as Error).message})`, null, stderr));
          return;
        }
        if (status !== 0 && !opts.allowFail) {
          const why = stderr.trim().split('\n').filter(Boolean).slice(-3).join(' ') || `exit status ${status}`;
          reject(new GitError(`git ${args[0]}: ${why}`, status, stderr));
          return;
        }
        resolve({ stdout, stderr, status });
      },
    );
  });
}

/** The installed git's version, or a GitError saying it is missing or older than 2.20. */
export async function checkGitVersion(): Promise<string> {
  const { stdout } = await git(process.cwd(), ['--version']);
  const m = /(\d+)\.(\d+)(?:\.(\d+))?/.exec(stdout);
  if (!m) throw new GitError(`could not read git's version from ${JSON.stringify(stdout.trim())}`, null, '');
  const [major, minor] = [Number(m[1]), Number(m[2])];
  if (major < MIN_GIT[0] || (major === MIN_GIT[0] && minor < MIN_GIT[1])) {
    throw new GitError(`git ${m[0]} is too old: worktree rows need git ${MIN_GIT.join('.')} or newer`, null, '');
  }
  return m[0];
}
