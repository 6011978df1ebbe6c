// Schema 10 (issue #33, mail at the floor) on real SQLite files: messages.id without AUTOINCREMENT.
// A store written by schema 9 is rebuilt in place: every message keeps its id and every row that
// refers to one (deliveries, wake events, the outbox) stays, the receipt trigger is the one it was
// and still queues receipts, and the highest id schema 9 gave (sqlite_sequence) is carried into
// meta when a purge had deleted the newest messages, so that id is not given again.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MailStore, type AcceptOutcome, type AcceptRequest } from '../../../src/store/mail-store.js';
import { MIGRATIONS } from '../../../src/store/migrations.js';
import { mailDbAtSchema } from '../../helpers/mail-db-at-schema.js';
import { STATE_CODE } from '../../../src/store/receipt-state.js';

let dir: string;
let file: string;
let store: MailStore | undefined;
const clock = { now: 7_000_000 };

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'swb-schema10-'));
  file = join(dir, 'mail.db');
});

afterEach(() => {
  store?.close();
  store = undefined;
  rmSync(dir, { recursive: true, force: true });
});

/** A mail.db at schema `version`, as that swb left it (test/helpers/mail-db-at-schema.ts). */
const databaseAt = (version: number): Database.Database => mailDbAtSchema(file, version);

/** What schema 9's accept wrote for a message: the row (AUTOINCREMENT gives the id) and its delivery rows. */
function oldAccept(db: Database.Database, m: { sender: string; messageId: string; to: string[]; text: string; state?: number }): number {
  const info = db
    .prepare(`INSERT INTO messages (sender, message_id, kind, text, reply_to, recipients, retry_key, created_at, depth) VALUES (?, ?, 'msg', ?, NULL, ?, ?, ?, 0)`)
    .run(m.sender, m.messageId, m.text, JSON.stringify(m.to), JSON.stringify([...m.to].sort()), clock.now);
  const id = Number(info.lastInsertRowid);
  for (const to of m.to) {
    const seq = ((db.prepare(`SELECT max(seq) AS s FROM deliveries WHERE recipient = ?`).get(to) as { s: number | null }).s ?? 0) + 1;
    db.prepare(`INSERT INTO deliveries (message, recipient, seq, state, accepted_at) VALUES (?, ?, ?, ?, ?)`).run(id, to, seq, m.state ?? STATE_CODE.accepted, clock.now);
  }
  return id;
}

function open(): MailStore {
  store?.close();
  store = MailStore.open(file, { maxUnread: 0, now: () => clock.now });
  return store;
}

function req(over: Partial<AcceptRequest> & { sender: string; to: string[] }): AcceptRequest {
  return { requestedTo: over.to, text: 'hello', kind: 'msg', replyTo: null, messageId: `id-${Math.random()}`, live: new Set(), ...over };
}

function accept(s: MailStore, r: AcceptRequest): AcceptOutcome {
  return s.acceptBatch([r])[0]!;
}

/** Every row of the tables that refer to messages, and the messages, as they are. */
function contents(db: Database.Database): Record<string, unknown[]> {
  const all = (sql: string) => db.prepare(sql).all();
  return {
    messages: all(`SELECT * FROM messages ORDER BY id`),
    deliveries: all(`SELECT * FROM deliveries ORDER BY message, recipient`),
    wakes: all(`SELECT * FROM wake_events ORDER BY id`),
    outbox: all(`SELECT * FROM outbox ORDER BY id`),
  };
}

const schemaSql = (db: Database.Database, name: string) =>
  (db.prepare(`SELECT sql FROM sqlite_master WHERE name = ?`).get(name) as { sql: string } | undefined)?.sql;

describe('schema 10: a store of schema 9 rebuilt in place', () => {
  let before: Record<string, unknown[]>;
  let triggerBefore: string | undefined;
  let purgedId: number;
  let remoteId: number;

  beforeEach(() => {
    const db = databaseAt(9);
    for (const [h, role] of [['alice', 'participant'], ['bob', 'participant'], ['carol', 'participant'], ['ann@alpha', 'remote']]) {
      db.prepare(`INSERT INTO handles (handle, role, first_seen, last_seen) VALUES (?, ?, ?, ?)`).run(h, role, clock.now, clock.now);
    }
    const first = oldAccept(db, { sender: 'alice', messageId: 'm-1', to: ['bob', 'carol'], text: 'first' });
    remoteId = oldAccept(db, { sender: 'ann@alpha', messageId: 'm-remote', to: ['bob'], text: 'from alpha', state: STATE_CODE.delivered });
    const third = oldAccept(db, { sender: 'bob', messageId: 'm-3', to: ['ann@alpha'], text: 'to alpha' });
    db.prepare(`INSERT INTO outbox (node, kind, message, created_at) VALUES ('alpha', 'mail', ?, ?)`).run(third, clock.now);
    db.prepare(`INSERT INTO wake_events (recipient, message, at, how) VALUES ('bob', ?, ?, 'typed')`).run(first, clock.now);
    // The newest message, read and purged by retention (foreign keys on: its deliveries went with it).
    purgedId = oldAccept(db, { sender: 'alice', messageId: 'm-4', to: ['carol'], text: 'purged', state: STATE_CODE.read });
    db.prepare(`DELETE FROM messages WHERE id = ?`).run(purgedId);
    expect(db.prepare(`SELECT seq FROM sqlite_sequence WHERE name = 'messages'`).get()).toEqual({ seq: purgedId });
    before = contents(db);
    triggerBefore = schemaSql(db, 'remote_receipt_on_change');
    db.close();
  });

  it('keeps every message with its id and every row that refers to one; no AUTOINCREMENT, no sqlite_sequence row for it', () => {
    const s = open();
    expect(s.db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
    expect(MIGRATIONS).toHaveLength(10);
    expect(contents(s.db)).toEqual(before);
    expect(before.deliveries).toHaveLength(4);
    expect(before.wakes).toHaveLength(1);
    expect(before.outbox).toHaveLength(1);
    expect(s.db.pragma('foreign_key_check')).toEqual([]);
    expect(s.db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(schemaSql(s.db, 'messages')).not.toMatch(/AUTOINCREMENT/i);
    expect(schemaSql(s.db, 'messages_rebuilt')).toBeUndefined();
    expect(s.db.prepare(`SELECT name FROM sqlite_sequence ORDER BY name`).all()).toEqual([{ name: 'outbox' }]);
    // The references still hold: deleting a message (retention) takes its deliveries and wakes with it.
    s.db.prepare(`DELETE FROM messages WHERE sender = 'alice'`).run();
    expect(s.db.prepare(`SELECT count(*) AS n FROM deliveries`).get()).toEqual({ n: 2 });
    expect(s.db.prepare(`SELECT count(*) AS n FROM wake_events`).get()).toEqual({ n: 0 });
  });

  it('makes the receipt trigger again as it was, and it still queues the receipt of mail from another node', () => {
    const s = open();
    expect(schemaSql(s.db, 'remote_receipt_on_change')).toBe(triggerBefore);
    clock.now += 1000;
    s.markRead('bob', [remoteId]);
    const queued = s.db.prepare(`SELECT node, kind, body FROM outbox WHERE kind = 'receipt'`).all() as Array<{ node: string; kind: string; body: string }>;
    expect(queued.map((q) => [q.node, JSON.parse(q.body)])).toEqual([
      ['alpha', { sender: 'ann', messageId: 'm-remote', to: 'bob', state: STATE_CODE.read, woken: 0, how: null, at: clock.now }],
    ]);
  });

  it('gives the id schema 9 gave last (then purged) to no new message, and still answers a retry of old mail as a duplicate', () => {
    const s = open();
    expect(s.db.prepare(`SELECT value FROM meta WHERE key = 'messages_high_water'`).get()).toEqual({ value: String(purgedId) });
    const next = accept(s, req({ sender: 'alice', to: ['bob'] }));
    expect(next.ok && next.result.id).toBe(purgedId + 1);
    const again = accept(s, req({ sender: 'alice', to: ['bob', 'carol'], messageId: 'm-1', text: 'first' }));
    expect(again.ok && again.result).toMatchObject({ id: 1, duplicate: true });
  });
});

describe('schema 10: stores with nothing to carry over', () => {
  it('a schema 9 store whose newest message is still there records no mark, and ids go on after it', () => {
    const db = databaseAt(9);
    db.prepare(`INSERT INTO handles (handle, role, first_seen, last_seen) VALUES ('bob', 'participant', 0, 0)`).run();
    const last = oldAccept(db, { sender: 'alice', messageId: 'k-1', to: ['bob'], text: 'kept' });
    db.close();
    const s = open();
    expect(s.db.prepare(`SELECT count(*) AS n FROM meta WHERE key = 'messages_high_water'`).get()).toEqual({ n: 0 });
    expect(accept(s, req({ sender: 'alice', to: ['bob'] }))).toMatchObject({ ok: true, result: { id: last + 1 } });
  });

  it('a new store starts its ids at 1', () => {
    const s = open();
    s.rememberHandle('bob', 'participant');
    expect(accept(s, req({ sender: 'alice', to: ['bob'] }))).toMatchObject({ ok: true, result: { id: 1 } });
    expect(schemaSql(s.db, 'messages')).not.toMatch(/AUTOINCREMENT/i);
  });
});
