// The nemesis's faults other than signals: an external process holding mail.db's write lock, and a
// full disk (the data dir on a small tmpfs, filled by a filler file). The tmpfs needs root and a
// working `mount -t tmpfs`; without them the disk fault is skipped with a printed reason.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync, unlinkSync, writeSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { deferCleanup } from '../cleanup.js';
import { waitUntil } from '../wait-until.js';

const LOCK_SCRIPT = fileURLToPath(new URL('./hold-db-lock.mjs', import.meta.url));

export interface HeldLock {
  /** Releases the lock and waits for the holder to exit. */
  release(): Promise<void>;
  child: ChildProcess;
}

/**
 * Starts a separate node process that opens `dbFile` and holds BEGIN EXCLUSIVE; resolves once it
 * holds the lock (it waits up to 10 s for the hub's own write to finish).
 */
export async function holdDbLock(dbFile: string, timeoutMs = 12_000): Promise<HeldLock> {
  const child = spawn(process.execPath, [LOCK_SCRIPT, dbFile], { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  let exited = false;
  child.stdout!.on('data', (b: Buffer) => (out += b.toString('utf8')));
  child.stderr!.on('data', (b: Buffer) => (err += b.toString('utf8')));
  child.stdin!.on('error', () => undefined);
  const exit = new Promise<void>((resolve) => child.once('close', () => {
    exited = true;
    resolve();
  }));
  deferCleanup('db lock holder', async () => {
    if (exited) return;
    child.kill('SIGKILL');
    await exit;
  });
  await waitUntil(() => out.includes('locked') || exited, { timeoutMs, what: 'the external process to hold the mail.db lock' });
  if (!out.includes('locked')) throw new Error(`the lock holder exited without the lock: ${err.slice(-500)}`);
  return {
    child,
    async release() {
      if (!exited) child.stdin!.end('release\n');
      await waitUntil(() => exited, { timeoutMs: 5000, what: 'the lock holder to release and exit' });
    },
  };
}

export type TmpfsResult = { ok: true } | { ok: false; reason: string };

/** Mounts a tmpfs of `sizeBytes` on `dir` (created 0700), unmounted after the test. */
export function mountTmpfs(dir: string, sizeBytes: number): TmpfsResult {
  if (process.platform !== 'linux') return { ok: false, reason: `tmpfs needs Linux (this is ${process.platform})` };
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) {
    return { ok: false, reason: `mounting a tmpfs needs root (uid ${process.getuid?.() ?? '?'})` };
  }
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeBytes},mode=0700`, 'tmpfs', dir], { stdio: 'pipe', timeout: 10_000 });
  } catch (err) {
    const e = err as { stderr?: Buffer; message: string };
    return { ok: false, reason: `mount -t tmpfs failed: ${(e.stderr?.toString('utf8') || e.message).trim()}` };
  }
  deferCleanup(`umount ${dir}`, () => {
    try {
      execFileSync('umount', [dir], { stdio: 'pipe', timeout: 10_000 });
    } catch {
      execFileSync('umount', ['-l', dir], { stdio: 'pipe', timeout: 10_000 });
    }
  });
  return { ok: true };
}

/** Fills the filesystem of `file`'s directory until ENOSPC; returns the bytes written. */
export function fillDisk(file: string): number {
  const fd = openSync(file, 'w', 0o600);
  let written = 0;
  try {
    for (const size of [1 << 20, 64 << 10, 4 << 10, 512, 1]) {
      const chunk = Buffer.alloc(size, 0x61);
      for (;;) {
        try {
          written += writeSync(fd, chunk);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code === 'ENOSPC') break;
          throw err;
        }
      }
    }
  } finally {
    closeSync(fd);
  }
  return written;
}

export function removeFiller(file: string): void {
  try {
    unlinkSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}
