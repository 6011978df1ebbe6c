// Commits taken without waiting for the disk (synchronous = NORMAL), made durable later and off
// the event loop: one fsync of the WAL file on libuv's thread pool covers every commit written
// before it began. The federation link uses it for what it applies from other nodes: the mail is
// stored and pushed at once, and only acknowledged to the stream (which keeps custody until then)
// once `durable()` resolved. A FULL commit would block the loop for the same fsync, in the middle
// of the next send.
//
// Why this is sound: in WAL mode a NORMAL commit is consistent but may be lost by a power cut or an
// OS crash (never by a crash of this process: the bytes are in the page cache). SQLite's FULL does
// nothing more at a commit than fsync the WAL, and fsync applies to the file, not the descriptor.
// SQLite never locks the -wal file (its locks live on the database file and -shm), so opening and
// closing our own descriptor of it drops none of them, unlike one of mail.db itself.
//
// A FULL commit on the same connection syncs the WAL too, and with it every commit written before
// it: the store says so after each of its own (`coveredByFullCommit`), so what a local send's commit
// already put on disk waits for no fsync of its own (issue #33: the sender of remote mail applies
// the receipts coming back between its sends, and its publisher waited for their sync). A caller
// that only acknowledges may give that a moment (`durable(graceMs)`): while local mail flows, its
// next group commit makes the commits durable with no fsync of their own, and no second fsync of
// the WAL runs beside the one that commit waits for.
import { open } from 'node:fs/promises';
import { systemClock, type Clock } from '../util/clock.js';
import { commitWithoutSync, type SqliteDatabase } from './open-database.js';

export class WalSync {
  /** Commits made without a sync so far, and how many of them are known to be on disk. */
  private written = 0;
  private synced = 0;
  private inFlight: Promise<void> | null = null;
  /** True while `commitUnsynced` runs: a commit inside it is not a FULL one, whatever it calls. */
  private unsyncedNow = false;
  /** `durable(graceMs)` calls waiting for a FULL commit to cover them. */
  private readonly graceWaiters = new Set<() => void>();

  constructor(
    private readonly walFile: string | null,
    /** fsync of a file by its path (a seam for tests that count or fail syncs). */
    private readonly syncFile: (file: string) => Promise<void> = fsyncFile,
    private readonly clock: Clock = systemClock,
  ) {}

  static of(db: SqliteDatabase): WalSync {
    return new WalSync(db.memory ? null : `${db.name}-wal`);
  }

  /** Runs `fn` (a transaction) without waiting for the disk, and counts its commit as one to make durable. */
  commitUnsynced<T>(db: SqliteDatabase, fn: () => T): T {
    this.unsyncedNow = true;
    try {
      const out = commitWithoutSync(db, fn);
      this.written++;
      return out;
    } finally {
      this.unsyncedNow = false;
    }
  }

  /**
   * A commit with synchronous FULL just returned on this database's connection: SQLite synced the
   * WAL, so every commit taken through `commitUnsynced` before it is on disk as well.
   */
  coveredByFullCommit(): void {
    if (this.unsyncedNow) return;
    this.synced = Math.max(this.synced, this.written);
    // Most commits find nobody waiting: no copy of the set made for them.
    if (this.graceWaiters.size > 0) for (const done of [...this.graceWaiters]) done();
  }

  /** True when every commit taken through `commitUnsynced` is on disk. */
  get clean(): boolean {
    return this.synced >= this.written;
  }

  /**
   * Resolves once every commit taken before this call is on disk; rejects if the fsync failed.
   * With `graceMs`, a FULL commit within that time makes them durable instead of an fsync of ours.
   */
  async durable(graceMs = 0): Promise<void> {
    const target = this.written;
    if (graceMs > 0 && this.synced < target) await this.coveredWithin(graceMs);
    while (this.synced < target) {
      // A sync already under way may have started before the commit we wait for: wait for it, then
      // start one of our own if it did not cover us.
      this.inFlight ??= this.syncOnce().finally(() => (this.inFlight = null));
      await this.inFlight;
    }
  }

  /** Resolves at the next FULL commit, or after `ms`, whichever comes first. */
  private coveredWithin(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        this.graceWaiters.delete(done);
        timer.dispose();
        resolve();
      };
      const timer = this.clock.setTimer(done, ms);
      this.graceWaiters.add(done);
    });
  }

  private async syncOnce(): Promise<void> {
    const covers = this.written;
    if (this.walFile) await this.syncFile(this.walFile);
    this.synced = Math.max(this.synced, covers);
  }
}

/** fsync of the file at `path`, on the thread pool. */
export async function fsyncFile(path: string): Promise<void> {
  const file = await open(path, 'r');
  try {
    await file.sync();
  } finally {
    await file.close();
  }
}
