// WalSync on a real SQLite file in WAL mode: commits taken without waiting for the disk, and the
// fsyncs that make them durable later (counted through the sync seam, and done for real).
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type SqliteDatabase } from '../../../src/store/open-database.js';
import { fsyncFile, WalSync } from '../../../src/store/wal-sync.js';

let dir: string;
let db: SqliteDatabase;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'swb-walsync-'));
  db = openDatabase(join(dir, 'mail.db'));
  db.exec('CREATE TABLE t (x INTEGER)');
});

afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const insert = (x: number) => db.transaction(() => db.prepare('INSERT INTO t (x) VALUES (?)').run(x))();
const synchronous = () => db.pragma('synchronous', { simple: true });

/** A sync seam whose calls wait until released, counted. */
function heldSyncs() {
  const calls: Array<{ file: string; release: (err?: Error) => void }> = [];
  const sync = (file: string) => new Promise<void>((resolve, reject) => calls.push({ file, release: (err) => (err ? reject(err) : resolve()) }));
  return { calls, sync };
}

const settled = () => new Promise((r) => setImmediate(r));

describe('WalSync', () => {
  it('commits with synchronous NORMAL and leaves the connection FULL, even when the transaction throws', () => {
    const wal = WalSync.of(db);
    expect(synchronous()).toBe(2);
    let inside = -1;
    wal.commitUnsynced(db, () => {
      inside = synchronous() as number;
      insert(1);
    });
    expect(inside).toBe(1);
    expect(synchronous()).toBe(2);
    expect(() =>
      wal.commitUnsynced(db, () => {
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expect(synchronous()).toBe(2);
  });

  it('fsyncs the real WAL file, and only when something was committed unsynced', async () => {
    const synced: string[] = [];
    const wal = new WalSync(`${db.name}-wal`, async (file) => {
      synced.push(file);
      await fsyncFile(file);
    });
    await wal.durable();
    expect(synced).toEqual([]);
    wal.commitUnsynced(db, () => insert(1));
    wal.commitUnsynced(db, () => insert(2));
    expect(wal.clean).toBe(false);
    await wal.durable();
    expect(synced).toEqual([join(dir, 'mail.db-wal')]);
    expect(wal.clean).toBe(true);
    await wal.durable();
    expect(synced).toHaveLength(1);
    // The default seam does the same for real.
    const real = WalSync.of(db);
    real.commitUnsynced(db, () => insert(3));
    await real.durable();
    expect(real.clean).toBe(true);
  });

  it('a commit made while a sync runs waits for a sync of its own', async () => {
    const { calls, sync } = heldSyncs();
    const wal = new WalSync('/wal', sync);
    wal.commitUnsynced(db, () => insert(1));
    let first = false;
    let second = false;
    void wal.durable().then(() => (first = true));
    await settled();
    expect(calls).toHaveLength(1);
    wal.commitUnsynced(db, () => insert(2));
    void wal.durable().then(() => (second = true));
    calls[0]!.release();
    await settled();
    expect(first).toBe(true);
    expect(second).toBe(false);
    expect(calls).toHaveLength(2);
    calls[1]!.release();
    await settled();
    expect(second).toBe(true);
    expect(wal.clean).toBe(true);
  });

  it('a failed fsync rejects, leaves the commits unsynced, and the next durable() tries again', async () => {
    const { calls, sync } = heldSyncs();
    const wal = new WalSync('/wal', sync);
    wal.commitUnsynced(db, () => insert(1));
    const failed = wal.durable();
    await settled();
    calls[0]!.release(Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' }));
    await expect(failed).rejects.toThrow('EIO');
    expect(wal.clean).toBe(false);
    const again = wal.durable();
    await settled();
    expect(calls).toHaveLength(2);
    calls[1]!.release();
    await again;
    expect(wal.clean).toBe(true);
  });

  it('a WAL file that is not there is an error, not a silent success', async () => {
    const wal = new WalSync(join(dir, 'missing.db-wal'));
    wal.commitUnsynced(db, () => insert(1));
    await expect(wal.durable()).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('a FULL commit within the grace makes unsynced commits durable with no fsync of their own; without one, the grace ends in an fsync', async () => {
    const { calls, sync } = heldSyncs();
    let fire: (() => void) | null = null;
    const clock = { now: () => 0, setTimer: (fn: () => void) => ((fire = fn), { dispose: () => (fire = null) }) };
    const wal = new WalSync('/wal', sync, clock);
    wal.commitUnsynced(db, () => insert(1));
    let covered = false;
    const waiting = wal.durable(5).then(() => (covered = true));
    await settled();
    expect(covered).toBe(false);
    insert(2); // a FULL commit on the same connection: it synced the WAL
    wal.coveredByFullCommit();
    await waiting;
    expect(calls).toHaveLength(0);
    expect(fire).toBeNull(); // the grace timer was cleared
    expect(wal.clean).toBe(true);
    // No FULL commit comes: when the grace ends, an fsync of its own.
    wal.commitUnsynced(db, () => insert(3));
    let synced = false;
    const later = wal.durable(5).then(() => (synced = true));
    await settled();
    expect(calls).toHaveLength(0);
    fire!();
    await settled();
    expect(calls).toHaveLength(1);
    calls[0]!.release();
    await later;
    expect(synced).toBe(true);
    // A FULL commit made inside an unsynced one (a nested accept) covers nothing.
    wal.commitUnsynced(db, () => db.transaction(() => wal.coveredByFullCommit())());
    expect(wal.clean).toBe(false);
  });

  it('an in-memory database has nothing to sync', async () => {
    const mem = new Database(':memory:');
    mem.exec('CREATE TABLE t (x)');
    const wal = WalSync.of(mem);
    wal.commitUnsynced(mem, () => mem.exec('INSERT INTO t VALUES (1)'));
    await wal.durable();
    expect(wal.clean).toBe(true);
    mem.close();
  });
});
