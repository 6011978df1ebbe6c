// The store's part of restoring rows (issue #10, migration 4), on a real SQLite file opened as the hub
// opens it: the row records keep their order across re-saves, the server runs tell the next start how
// the last one ended, and mail parked when a row came back as a new conversation is neither unread nor
// lost until the operator re-delivers or discards it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MailStore, type AcceptRequest } from '../../../src/store/mail-store.js';
import { openDatabase, type SqliteDatabase } from '../../../src/store/open-database.js';
import { RowRecordStore } from '../../../src/store/row-record-store.js';

let dir: string;
let file: string;
let clock = 1_000_000;
const now = () => clock;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'swb-rows-'));
  file = join(dir, 'mail.db');
  clock = 1_000_000;
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function record(name: string, over: { spec?: string; wake?: string | null; sessionId?: string | null } = {}) {
  return { name, spec: over.spec ?? JSON.stringify({ name, command: `run-${name}` }), wake: over.wake ?? null, sessionId: over.sessionId ?? null };
}

describe('RowRecordStore', () => {
  let db: SqliteDatabase;
  let rows: RowRecordStore;

  beforeEach(() => {
    db = openDatabase(file);
    rows = new RowRecordStore(db, now);
  });

  afterEach(() => {
    if (db.open) db.close();
  });

  it('came with migration 4; the schema is at its latest version (10, messages without AUTOINCREMENT) with both tables', () => {
    expect(db.pragma('user_version', { simple: true })).toBe(10);
    const tables = (db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`).all() as Array<{ name: string }>).map((t) => t.name);
    expect(tables).toEqual(expect.arrayContaining(['row_records', 'server_runs']));
  });

  it('lists rows in the order they were first saved; a re-saved row keeps its place and takes the new values', () => {
    rows.save(record('a'));
    rows.save(record('b'));
    rows.save(record('c'));
    rows.save(record('b', { spec: '{"name":"b","command":"changed"}', wake: 'off', sessionId: 'sess-1' }));
    rows.save(record('a', { wake: 'notify' }));
    const all = rows.all();
    expect(all.map((r) => r.name)).toEqual(['a', 'b', 'c']);
    expect(all.map((r) => r.position)).toEqual([1, 2, 3]);
    expect(all[1]).toEqual({ name: 'b', spec: '{"name":"b","command":"changed"}', wake: 'off', sessionId: 'sess-1', position: 2, pid: null, pidStart: null });
    expect(all[0]).toMatchObject({ wake: 'notify', sessionId: null });
  });

  it('a re-save can clear a session id and a wake policy', () => {
    rows.save(record('a', { wake: 'auto', sessionId: 'x' }));
    rows.save(record('a'));
    expect(rows.all()[0]).toMatchObject({ wake: null, sessionId: null });
  });

  it('forget removes a row; saved again it goes last; clear removes every row', () => {
    rows.save(record('a'));
    rows.save(record('b'));
    rows.save(record('c'));
    rows.forget('a');
    rows.forget('nobody');
    expect(rows.all().map((r) => r.name)).toEqual(['b', 'c']);
    rows.save(record('a'));
    expect(rows.all().map((r) => [r.name, r.position])).toEqual([
      ['b', 2],
      ['c', 3],
      ['a', 4],
    ]);
    rows.clear();
    expect(rows.all()).toEqual([]);
    rows.save(record('z'));
    expect(rows.all().map((r) => [r.name, r.position])).toEqual([['z', 1]]);
  });

  it('the records survive closing and reopening the store', () => {
    rows.save(record('a', { sessionId: 's-a' }));
    rows.save(record('b'));
    db.close();
    db = openDatabase(file);
    const again = new RowRecordStore(db, now);
    expect(again.all().map((r) => [r.name, r.sessionId])).toEqual([
      ['a', 's-a'],
      ['b', null],
    ]);
  });

  it('startRun returns the run before it (null the first time); stopRun marks the current run stopped', () => {
    expect(rows.startRun(100, 'boot-1')).toBeNull();
    clock += 1000;
    // The first run ended without a stop (a crash): the second start sees stoppedAt null.
    expect(rows.startRun(200, 'boot-1')).toEqual({ pid: 100, bootId: 'boot-1', startedAt: 1_000_000, stoppedAt: null });
    clock += 1000;
    rows.stopRun(200);
    clock += 1000;
    expect(rows.startRun(300, 'boot-2')).toEqual({ pid: 200, bootId: 'boot-1', startedAt: 1_001_000, stoppedAt: 1_002_000 });
  });

  it('stopRun only marks the latest run, and only for the pid that runs it', () => {
    rows.startRun(100, 'boot');
    rows.startRun(200, 'boot');
    // A stale server (pid 100) stopping late does not mark the run of the one after it.
    rows.stopRun(100);
    expect(rows.startRun(300, 'boot')).toMatchObject({ pid: 200, stoppedAt: null });
    const runs = db.prepare('SELECT pid, stopped_at FROM server_runs ORDER BY id').all();
    expect(runs).toEqual([
      { pid: 100, stopped_at: null },
      { pid: 200, stopped_at: null },
      { pid: 300, stopped_at: null },
    ]);
  });
});

describe('MailStore: mail parked for the operator', () => {
  let store: MailStore;

  function send(to: string, text: string, sender = 'alice') {
    const r: AcceptRequest = { sender, to: [to], requestedTo: [to], text, kind: 'msg', replyTo: null, messageId: `m-${text}`, live: new Set() };
    const [outcome] = store.acceptBatch([r]);
    if (!outcome!.ok) throw new Error(outcome!.error.message);
    return outcome!.result.id;
  }

  const unreadIds = (h: string) => store.list(h, { unreadOnly: true, peek: true }).items.map((m) => m.id);

  beforeEach(() => {
    store = MailStore.open(file, { maxUnread: 0, now });
    for (const h of ['alice', 'row1', 'row2']) store.rememberHandle(h, h === 'alice' ? 'participant' : 'row');
  });

  afterEach(() => store.close());

  it('parks only the unread mail of that row: not counted, not listed as unread, reported by parkedMail', () => {
    const read = send('row1', 'already-read');
    store.markRead('row1', [read]);
    const a = send('row1', 'one');
    const b = send('row1', 'two');
    const other = send('row2', 'for-row2');
    // One of them was listed (delivered): still unread, so parked too.
    store.list('row1', { unreadOnly: true, limit: 1 });
    expect(store.unreadCount('row1')).toBe(2);

    expect(store.parkUnread('row1')).toBe(2);
    expect(store.unreadCount('row1')).toBe(0);
    expect(unreadIds('row1')).toEqual([]);
    expect(store.parkedMail()).toEqual([{ recipient: 'row1', count: 2 }]);
    // Still in the store, their receipts unchanged (not expired, not read).
    expect(store.receipts(a)!.recipients[0]!.state).toBe('delivered');
    expect(store.receipts(b)!.recipients[0]!.state).toBe('accepted');
    expect(store.message(a)!.text).toBe('one');
    // Other rows are untouched.
    expect(store.unreadCount('row2')).toBe(1);
    expect(unreadIds('row2')).toEqual([other]);
    // Parking twice parks nothing more.
    expect(store.parkUnread('row1')).toBe(0);
  });

  it('mail arriving after the park is unread as usual', () => {
    send('row1', 'old');
    store.parkUnread('row1');
    const fresh = send('row1', 'new');
    expect(store.unreadCount('row1')).toBe(1);
    expect(unreadIds('row1')).toEqual([fresh]);
    expect(store.parkedMail()).toEqual([{ recipient: 'row1', count: 1 }]);
  });

  it('the unread count is right after reopening the store (parked mail is not counted from disk either)', () => {
    send('row1', 'x');
    send('row1', 'y');
    store.parkUnread('row1');
    store.close();
    store = MailStore.open(file, { maxUnread: 0, now });
    expect(store.unreadCount('row1')).toBe(0);
    expect(store.parkedMail()).toEqual([{ recipient: 'row1', count: 2 }]);
  });

  it('parked mail does not expire with age (it waits for the operator)', () => {
    send('row1', 'old');
    store.parkUnread('row1');
    clock += 10 * 86_400_000;
    expect(store.sweep({ expiryMs: 1000, retentionMs: 0 }).changes).toEqual([]);
    expect(store.parkedMail()).toEqual([{ recipient: 'row1', count: 1 }]);
  });

  it('redeliver makes the parked mail unread for the row again and restores the count', () => {
    const a = send('row1', 'one');
    const b = send('row1', 'two');
    const c = send('row1', 'three');
    store.parkUnread('row1');
    const later = send('row1', 'later');
    expect(store.redeliverParked('row1')).toBe(3);
    expect(store.unreadCount('row1')).toBe(4);
    expect(unreadIds('row1')).toEqual([a, b, c, later]);
    expect(store.parkedMail()).toEqual([]);
    expect(store.redeliverParked('row1')).toBe(0);
    expect(store.redeliverParked('row2')).toBe(0);
  });

  it('discard expires the parked mail: "expired" changes for each sender, receipts say expired, nothing unread', () => {
    const a = send('row1', 'one', 'alice');
    store.rememberHandle('bob', 'participant');
    const b = send('row1', 'two', 'bob');
    store.parkUnread('row1');
    clock += 5;
    const changes = store.discardParked('row1');
    expect(changes.sort((x, y) => x.id - y.id)).toEqual([
      { id: a, sender: 'alice', to: 'row1', state: 'expired', at: clock },
      { id: b, sender: 'bob', to: 'row1', state: 'expired', at: clock },
    ]);
    expect(store.receipts(a)!.recipients).toEqual([expect.objectContaining({ to: 'row1', state: 'expired' })]);
    expect(store.receipts(b)!.recipients).toEqual([expect.objectContaining({ to: 'row1', state: 'expired' })]);
    expect(store.unreadCount('row1')).toBe(0);
    expect(unreadIds('row1')).toEqual([]);
    expect(store.parkedMail()).toEqual([]);
    // Nothing is left to re-deliver or discard.
    expect(store.redeliverParked('row1')).toBe(0);
    expect(store.unreadCount('row1')).toBe(0);
    expect(store.discardParked('row1')).toEqual([]);
  });

  // Was: redeliverParked counted every delivery still marked parked, including one the row read meanwhile.
  it('redeliver counts only the messages it made unread again (not one read while parked)', () => {
    const a = send('row1', 'one');
    const b = send('row1', 'two');
    store.parkUnread('row1');
    store.markRead('row1', [a]);
    expect(store.parkedMail()).toEqual([{ recipient: 'row1', count: 1 }]);
    const n = store.redeliverParked('row1');
    expect(unreadIds('row1')).toEqual([b]);
    expect(n).toBe(1);
  });
});
