// Copies the untracked files `.worktreeinclude` lists from the main checkout into a new worktree
// (issue #12), without following a symlink on either side (issue #34.2). Both trees hold text someone
// else chose: the worktree is the checked-out base branch (a branch from a pull request can commit
// `config -> /home/op/.ssh` so that a copy into `config/` lands outside the worktree), and the main
// checkout may hold an untracked `link -> /etc/shadow` that a following read would turn into a regular
// file in the worktree. So every component of the source and of the destination is looked at with
// lstat, a symlink anywhere is refused, missing directories are made one at a time (so nothing is made
// through a link), files are opened with O_NOFOLLOW (the destination also O_EXCL: a file the branch
// already has is the branch's, never overwritten), and the opened source is checked to be the file
// lstat saw. Modes are kept (a 0600 `.env` stays 0600; a directory made here takes its source's mode,
// with rwx for the owner).
// Whatever is not copied is reported with the reason, for the caller to say.
//
// What is left: a directory of the main checkout swapped for a link between its lstat and the open
// below it (the operator's own checkout, changed while they start a row) is not caught; Node has no
// openat() to walk a tree by descriptors.
import { constants, type Stats } from 'node:fs';
import { lstat, mkdir, chmod, open, type FileHandle } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import { git } from './git.js';
import type { SkippedFile } from './skipped-files.js';

export interface IncludedCopy {
  copied: string[];
  skipped: SkippedFile[];
}

const CHUNK = 64 * 1024;

/**
 * Files git does not track that the agent still needs (`.env`, local config): `.worktreeinclude` in
 * the main checkout lists them in gitignore syntax, and git itself says which untracked files match.
 * Only files git ignores or does not track are copied; tracked ones come with the checkout.
 */
export async function copyIncluded(repo: string, worktree: string): Promise<IncludedCopy> {
  const result: IncludedCopy = { copied: [], skipped: [] };
  const list = join(repo, '.worktreeinclude');
  const listStat = await lstatOrNull(list);
  if (!listStat) return result;
  if (!listStat.isFile()) {
    result.skipped.push({ file: '.worktreeinclude', reason: listStat.isSymbolicLink() ? 'it is a symlink, not read' : 'it is not a regular file' });
    return result;
  }
  const r = await git(repo, ['ls-files', '-z', '--others', '--ignored', `--exclude-from=${list}`]);
  for (const file of r.stdout.split('\0').filter(Boolean)) {
    let reason: string | null;
    try {
      reason = await copyOne(repo, worktree, file);
    } catch (err) {
      // A full disk, a directory we may not read: that file is said, the others are still copied.
      reason = `it could not be copied (${errnoOf(err) ?? (err as Error).message})`;
    }
    if (reason === null) result.copied.push(file);
    else result.skipped.push({ file, reason });
  }
  return result;
}

/** Copies one file; null when copied, else why not. */
async function copyOne(repo: string, worktree: string, file: string): Promise<string | null> {
  const parts = file.split('/');
  if (isAbsolute(file) || parts.some((p) => p === '' || p === '.' || p === '..')) return 'its path leaves the worktree';
  // The source: no component may be a link, and the file itself must be a regular file.
  const dirModes: number[] = [];
  for (let i = 0; i < parts.length; i++) {
    const st = await lstatOrNull(join(repo, ...parts.slice(0, i + 1)));
    if (!st) return 'it is gone from the main checkout';
    if (st.isSymbolicLink()) return i === parts.length - 1 ? 'a symlink in the main checkout' : `${parts.slice(0, i + 1).join('/')} is a symlink in the main checkout`;
    if (i < parts.length - 1) {
      if (!st.isDirectory()) return 'it is gone from the main checkout';
      // The owner keeps rwx on a directory made here (else a 0555 one could not take its file).
      dirModes.push((st.mode & 0o777) | 0o700);
    } else if (!st.isFile()) return 'not a regular file';
  }
  const destinationDir = await makeDirs(worktree, parts.slice(0, -1), dirModes);
  if (typeof destinationDir !== 'string') return destinationDir.problem;

  let source: FileHandle;
  try {
    source = await open(join(repo, file), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    return errnoOf(err) === 'ELOOP' ? 'a symlink in the main checkout' : `it could not be read (${errnoOf(err) ?? 'error'})`;
  }
  try {
    const st = await source.stat();
    const seen = await lstatOrNull(join(repo, file));
    if (!st.isFile() || !seen || seen.ino !== st.ino || seen.dev !== st.dev) return 'it changed in the main checkout while being copied';
    const mode = st.mode & 0o777; // permission bits; never set-id bits
    let target: FileHandle;
    try {
      target = await open(join(destinationDir, parts[parts.length - 1]!), constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, mode);
    } catch (err) {
      const code = errnoOf(err);
      if (code === 'EEXIST' || code === 'ELOOP') {
        const there = await lstatOrNull(join(destinationDir, parts[parts.length - 1]!));
        return there?.isSymbolicLink() ? 'the branch has a symlink there' : 'the branch has its own file there';
      }
      return `it could not be written (${code ?? 'error'})`;
    }
    try {
      const buffer = Buffer.allocUnsafe(CHUNK);
      for (;;) {
        const { bytesRead } = await source.read(buffer, 0, CHUNK, null);
        if (bytesRead === 0) break;
        let at = 0;
        while (at < bytesRead) at += (await target.write(buffer, at, bytesRead - at)).bytesWritten;
      }
      // The umask narrowed the mode at creation; the copy has the source's own.
      await target.chmod(mode);
    } finally {
      await target.close();
    }
    return null;
  } finally {
    await source.close();
  }
}

/**
 * Makes `dirs` under `root` one level at a time, refusing a component that is a link or not a
 * directory; a directory made here takes the mode of its counterpart in the main checkout.
 */
async function makeDirs(root: string, dirs: string[], modes: number[]): Promise<string | { problem: string }> {
  let at = root;
  for (let i = 0; i < dirs.length; i++) {
    at = join(at, dirs[i]!);
    let st = await lstatOrNull(at);
    if (!st) {
      try {
        await mkdir(at, { mode: modes[i]! });
        await chmod(at, modes[i]!);
      } catch (err) {
        if (errnoOf(err) !== 'EEXIST') return { problem: `${dirs.slice(0, i + 1).join('/')} could not be made (${errnoOf(err) ?? 'error'})` };
      }
      st = await lstatOrNull(at);
    }
    if (!st || st.isSymbolicLink()) return { problem: `${dirs.slice(0, i + 1).join('/')} is a symlink in the worktree` };
    if (!st.isDirectory()) return { problem: `${dirs.slice(0, i + 1).join('/')} is not a directory in the worktree` };
  }
  return at;
}

async function lstatOrNull(path: string): Promise<Stats | null> {
  try {
    return await lstat(path);
  } catch (err) {
    if (errnoOf(err) === 'ENOENT' || errnoOf(err) === 'ENOTDIR') return null;
    throw err;
  }
}

function errnoOf(err: unknown): string | undefined {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  return typeof code === 'string' ? code : undefined;
}
