// The configs the operator trusts (docs/SECURITY.md, "A hostile repository"): one JSON file in the
// operator's state dir (src/util/state-root.ts: `SWB_HOME/data`, else
// `${XDG_STATE_HOME:-~/.local/state}/switchboard`), a record per config path with the SHA-256 of the
// content the operator saw, so a file that changed is untrusted again. Like direnv's allow list.
//
// The file decides what runs as the operator, so it is read as carefully as a key: never through a
// symlink, only a regular file of ours that nobody else may write (0600 in a 0700 directory), bounded
// before parsing, every entry checked. A store that fails any of that trusts nothing (and says why);
// recording trust then replaces it whole. Writes go to a new 0600 file renamed over the old one, so
// a reader never sees half a store and a symlink planted at its name is replaced, not followed.
import { chmodSync, closeSync, constants, fstatSync, fsyncSync, lstatSync, mkdirSync, openSync, readSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { myUid } from '../util/private-path.js';
import { operatorStateRoot } from '../util/state-root.js';

/**
 * Longer than any workspace id (at most 24 characters for a name, 35 for a directory's: label, "-",
 * ten hex digits), so no workspace's data directory beside it can ever take this name.
 */
export const TRUST_STORE_NAME = 'trusted-workspace-configs.json';
export const MAX_TRUST_STORE_BYTES = 1024 * 1024;
export const MAX_TRUST_ENTRIES = 2000;

export interface TrustEntry {
  /** The config file's absolute path, as swb found it (not through symlinks: see config-trust.ts). */
  path: string;
  /** SHA-256 (hex) of the bytes the operator trusted. */
  sha256: string;
  /** When (ISO 8601). */
  trustedAt: string;
}

export interface TrustStoreContents {
  entries: TrustEntry[];
  /** Why some or all of the store was not used (it trusts nothing then), or null. */
  problem: string | null;
}

export type TrustStoreWrite = { ok: true; entries: TrustEntry[]; replacedProblem: string | null } | { ok: false; code: 'TRUST_STORE_UNSAFE'; message: string };

export function trustStorePath(env: NodeJS.ProcessEnv = process.env): string {
  return join(operatorStateRoot(env), TRUST_STORE_NAME);
}

const SHA256 = /^[0-9a-f]{64}$/;

export function readTrustStore(file: string): TrustStoreContents {
  const none = (problem: string | null): TrustStoreContents => ({ entries: [], problem: problem && `${file} ${problem}; it trusts nothing` });
  let fd: number;
  try {
    // O_NOFOLLOW: a symlink put in its place is refused, never followed; O_NONBLOCK: a FIFO does not hang us.
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return none(null);
    return none(code === 'ELOOP' ? 'is a symbolic link' : `cannot be read (${code ?? String(err)})`);
  }
  let text: string;
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return none('is not a regular file');
    if (st.uid !== myUid()) return none(`belongs to uid ${st.uid}, not to you`);
    if ((st.mode & 0o022) !== 0) return none(`may be written by others (mode ${(st.mode & 0o777).toString(8)})`);
    if (st.size > MAX_TRUST_STORE_BYTES) return none(`is larger than ${MAX_TRUST_STORE_BYTES} bytes`);
    const bytes = Buffer.alloc(MAX_TRUST_STORE_BYTES + 1);
    let length = 0;
    while (length < bytes.length) {
      const n = readSync(fd, bytes, length, bytes.length - length, null);
      if (n === 0) break;
      length += n;
    }
    if (length > MAX_TRUST_STORE_BYTES) return none(`is larger than ${MAX_TRUST_STORE_BYTES} bytes`);
    text = bytes.subarray(0, length).toString('utf8');
  } catch (err) {
    return none(`cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  } finally {
    closeSync(fd);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return none('is not valid JSON');
  }
  if (typeof value !== 'object' || value === null || (value as { version?: unknown }).version !== 1 || !Array.isArray((value as { trusted?: unknown }).trusted)) {
    return none('is not a swb trust store (version 1)');
  }
  const listed = (value as { trusted: unknown[] }).trusted;
  if (listed.length > MAX_TRUST_ENTRIES) return none(`holds more than ${MAX_TRUST_ENTRIES} entries`);
  const entries: TrustEntry[] = [];
  let bad = 0;
  for (const e of listed) {
    const entry = asEntry(e);
    if (entry) entries.push(entry);
    else bad++;
  }
  return { entries, problem: bad > 0 ? `${file}: ${bad} entr${bad === 1 ? 'y is' : 'ies are'} not valid and trust nothing` : null };
}

function asEntry(e: unknown): TrustEntry | null {
  if (typeof e !== 'object' || e === null || Array.isArray(e)) return null;
  const { path, sha256, trustedAt } = e as Record<string, unknown>;
  if (typeof path !== 'string' || path.length > 4096 || !isAbsolute(path) || path.includes('\0')) return null;
  if (typeof sha256 !== 'string' || !SHA256.test(sha256)) return null;
  if (typeof trustedAt !== 'string' || trustedAt.length > 64) return null;
  return { path, sha256, trustedAt };
}

/** Whether the store holds `path` with exactly this content. */
export function isTrustedIn(file: string, path: string, sha256: string): boolean {
  return readTrustStore(file).entries.some((e) => e.path === path && e.sha256 === sha256);
}

/** Records `path` at `sha256` (replacing any record of the same path: an older content is trusted no more). */
export function recordTrust(file: string, path: string, sha256: string, now: Date = new Date()): TrustStoreWrite {
  const current = readTrustStore(file);
  const kept = current.entries.filter((e) => e.path !== path);
  const entries = [...kept.slice(Math.max(0, kept.length - (MAX_TRUST_ENTRIES - 1))), { path, sha256, trustedAt: now.toISOString() }];
  return writeTrustStore(file, entries, current.problem);
}

/** Forgets every record of `path`. */
export function forgetTrust(file: string, path: string): TrustStoreWrite & { removed?: number } {
  const current = readTrustStore(file);
  const entries = current.entries.filter((e) => e.path !== path);
  const removed = current.entries.length - entries.length;
  if (removed === 0 && current.problem === null) return { ok: true, entries, replacedProblem: null, removed: 0 };
  return { ...writeTrustStore(file, entries, current.problem), removed };
}

function writeTrustStore(file: string, entries: TrustEntry[], replacedProblem: string | null): TrustStoreWrite {
  const unsafe = (message: string): TrustStoreWrite => ({ ok: false, code: 'TRUST_STORE_UNSAFE', message });
  const dir = dirname(file);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const st = lstatSync(dir);
    if (st.isSymbolicLink() || !st.isDirectory()) return unsafe(`${dir} is not a directory (a symbolic link?); the trust store was not written.`);
    if (st.uid !== myUid()) return unsafe(`${dir} belongs to uid ${st.uid}, not to you; the trust store was not written.`);
    if ((st.mode & 0o077) !== 0) chmodSync(dir, 0o700);
  } catch (err) {
    return unsafe(`${dir} cannot be made private (${(err as NodeJS.ErrnoException).code ?? String(err)}); the trust store was not written.`);
  }
  const temp = join(dir, `.${TRUST_STORE_NAME}.${process.pid}.${Date.now()}.tmp`);
  const body = `${JSON.stringify({ version: 1, trusted: entries }, null, 2)}\n`;
  let fd: number | null = null;
  try {
    fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
    writeSync(fd, body);
    fsyncSync(fd);
    closeSync(fd);
    fd = null;
    renameSync(temp, file);
  } catch (err) {
    if (fd !== null) closeSync(fd);
    try {
      unlinkSync(temp);
    } catch {
      // never made
    }
    return unsafe(`${file} cannot be written (${(err as NodeJS.ErrnoException).code ?? String(err)}).`);
  }
  return { ok: true, entries, replacedProblem };
}

