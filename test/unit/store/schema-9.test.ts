// Schema 9 (issue #33, mail at the floor) on real SQLite files: a store written by the previous schema
// (8) is upgraded in place with its mail, digests and queued receipts as they were; the delivered
// receipt that schema 5's insert trigger queued is now queued by the accept, byte for byte the same
// body, and only for mail from another node; a retried message id is told apart by the stored row
// (new rows) or by the sha256 digest older rows hold, also after a restart; a store newer than this
// swb is refused with a sentence.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MailStore, type AcceptRequest, type AcceptOutcome } from '../../../src/store/mail-store.js';
import { MIGRATIONS } from '../../../src/store/migrations.js';
import { mailDbAtSchema } from '../../helpers/mail-db-at-schema.js';
import { messageDigest } from '../../../src/store/same-message.js';
import { STATE_CODE } from '../../../src/store/receipt-state.js';

let dir: string;
let file: string;
let store: MailStore | undefined;
const clock = { now: 5_000_000 };

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'swb-schema9-'));
  file = join(dir, 'mail.db');
});

afterEach(() => {
  store?.close();
  store = undefined;
  rmSync(dir, { recursive: true, force: true });
});

/** A mail.db at schema `version`, as that swb left it (test/helpers/mail-db-at-schema.ts). */
const databaseAt = (version: number): Database.Database => mailDbAtSchema(file, version);

/** What schema 8's accept wrote for a message: the row with its sha256 digest, and its delivery rows (the trigger did the rest). */
function oldAccept(db: Database.Database, m: { sender: string; messageId: string; to: string[]; requestedTo?: string[]; text: string; kind?: string; replyTo?: number | null; delivered?: boolean }): number {
  const kind = m.kind ?? 'msg';
  const replyTo = m.replyTo ?? null;
  const digest = messageDigest(m.requestedTo ?? m.to, kind, replyTo, m.text);
  const info = db
    .prepare(`INSERT INTO messages (sender, message_id, kind, text, reply_to, recipients, digest, created_at, depth) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0)`)
    .run(m.sender, m.messageId, kind, m.text, replyTo, JSON.stringify(m.to), digest, clock.now);
  const id = Number(info.lastInsertRowid);
  for (const to of m.to) {
    const seq = ((db.prepare(`SELECT max(seq) AS s FROM deliveries WHERE recipient = ?`).get(to) as { s: number | null }).s ?? 0) + 1;
    db.prepare(`INSERT INTO deliveries (message, recipient, seq, state, accepted_at, delivered_at) VALUES (?, ?, ?, ?, ?, ?)`).run(
      id,
      to,
      seq,
      m.delivered ? STATE_CODE.delivered : STATE_CODE.accepted,
      clock.now,
      m.delivered ? clock.now : null,
    );
  }
  return id;
}

function handles(db: Database.Database, names: Array<[string, string]>): void {
  for (const [h, role] of names) db.prepare(`INSERT INTO handles (handle, role, first_seen, last_seen) VALUES (?, ?, ?, ?)`).run(h, role, clock.now, clock.now);
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

const triggers = (db: Database.Database) =>
  (db.prepare(`SELECT name FROM sqlite_master WHERE type = 'trigger' ORDER BY name`).all() as Array<{ name: string }>).map((t) => t.name);

type OutboxRow = { node: string; kind: string; message: number | null; body: string | null };
const outbox = (db: Database.Database) => db.prepare(`SELECT node, kind, message, body FROM outbox ORDER BY id`).all() as OutboxRow[];

describe('schema 9: a store of schema 8 upgraded in place', () => {
  let oldLocal: number;
  let oldRemote: number;
  let oldBroadcast: number;

  beforeEach(() => {
    const db = databaseAt(8);
    handles(db, [['alice', 'participant'], ['bob', 'participant'], ['carol', 'participant'], ['ann@alpha', 'remote']]);
    oldLocal = oldAccept(db, { sender: 'alice', messageId: 'old-1', to: ['bob', 'carol'], requestedTo: ['carol', 'bob'], text: 'before the upgrade' });
    // Mail from another node delivered on insert: schema 5's trigger queued its receipt.
    oldRemote = oldAccept(db, { sender: 'ann@alpha', messageId: 'old-remote', to: ['bob'], text: 'from alpha', delivered: true });
    oldBroadcast = oldAccept(db, { sender: 'carol', messageId: 'old-all', to: ['alice', 'bob'], requestedTo: ['all'], text: 'everyone' });
    expect(triggers(db)).toContain('remote_receipt_on_insert');
    expect(outbox(db)).toHaveLength(1);
    db.close();
  });

  it('moves to the latest version without the insert trigger; the update trigger, the mail and the queued receipt stay', () => {
    const s = open();
    expect(s.db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
    expect(triggers(s.db)).toEqual(['remote_receipt_on_change']);
    expect(outbox(s.db).map((e) => [e.node, e.kind, JSON.parse(e.body!)])).toEqual([
      ['alpha', 'receipt', { sender: 'ann', messageId: 'old-remote', to: 'bob', state: STATE_CODE.delivered, woken: 0, at: clock.now }],
    ]);
    expect(s.list('bob', { peek: true }).items.map((m) => [m.id, m.messageId, m.text])).toEqual([
      [oldLocal, 'old-1', 'before the upgrade'],
      [oldRemote, 'old-remote', 'from alpha'],
      [oldBroadcast, 'old-all', 'everyone'],
    ]);
    // Sequences continue after the old rows.
    const next = accept(s, req({ sender: 'alice', to: ['bob'] }));
    expect(next.ok && next.result.recipients).toEqual([{ to: 'bob', seq: 4, state: 'accepted' }]);
  });

  it('answers a retry of an old message by its stored digest: the same content is a duplicate, other content a conflict', () => {
    const s = open();
    const again = accept(s, req({ sender: 'alice', to: ['bob', 'carol'], requestedTo: ['bob', 'carol', 'bob'], messageId: 'old-1', text: 'before the upgrade' }));
    expect(again.ok && again.result).toMatchObject({ id: oldLocal, duplicate: true, recipients: [{ to: 'bob', seq: 1 }, { to: 'carol', seq: 1 }] });
    const all = accept(s, req({ sender: 'carol', to: ['alice', 'bob'], requestedTo: ['all'], messageId: 'old-all', text: 'everyone' }));
    expect(all.ok && all.result).toMatchObject({ id: oldBroadcast, duplicate: true });
    for (const other of [
      { text: 'before the upgrade!' },
      { kind: 'task' as const },
      { to: ['bob'], requestedTo: ['bob'] },
      { replyTo: oldBroadcast },
    ]) {
      const clash = accept(s, req({ sender: 'alice', to: ['bob', 'carol'], requestedTo: ['carol', 'bob'], messageId: 'old-1', text: 'before the upgrade', ...other }));
      expect(clash.ok ? 'accepted' : clash.error.code).toBe('MESSAGE_ID_CONFLICT');
    }
    expect(s.db.prepare(`SELECT count(*) AS n FROM messages`).get()).toEqual({ n: 3 });
  });
});

describe('schema 9: a retried message id is compared with the stored row', () => {
  beforeEach(() => {
    const s = open();
    for (const h of ['alice', 'bob', 'carol']) s.rememberHandle(h, 'participant');
  });

  it('keeps the recipients as asked in the row (canonical), not a hash', () => {
    const s = store!;
    const one = accept(s, req({ sender: 'alice', to: ['bob'], messageId: 'n-1' }));
    const many = accept(s, req({ sender: 'alice', to: ['carol', 'bob'], requestedTo: ['carol', 'bob', 'carol'], messageId: 'n-2' }));
    expect(one.ok && many.ok).toBe(true);
    const keys = s.db.prepare(`SELECT message_id, retry_key FROM messages ORDER BY id`).all();
    expect(keys).toEqual([
      { message_id: 'n-1', retry_key: '["bob"]' },
      { message_id: 'n-2', retry_key: '["bob","carol"]' },
    ]);
  });

  it('answers the same content as the first accept and refuses any difference, also after a restart', () => {
    const first = accept(store!, req({ sender: 'alice', to: ['bob', 'carol'], requestedTo: ['carol', 'bob'], messageId: 'n-3', text: 'a\u0000b 😀 é', kind: 'task' }));
    expect(first.ok).toBe(true);
    if (!first.ok) return;
    for (const restart of [false, true]) {
      const s = restart ? open() : store!;
      const again = accept(s, req({ sender: 'alice', to: ['bob', 'carol'], requestedTo: ['bob', 'carol'], messageId: 'n-3', text: 'a\u0000b 😀 é', kind: 'task' }));
      expect(again.ok && again.result).toEqual({ ...first.result, duplicate: true });
      for (const other of [
        { text: 'a\u0000b 😀 e\u0301' },
        { text: 'a\u0000b 😀 é ' },
        { kind: 'msg' as const },
        { requestedTo: ['bob'], to: ['bob'] },
        { requestedTo: ['all'] },
        { replyTo: 1 },
      ]) {
        const clash = accept(s, req({ sender: 'alice', to: ['bob', 'carol'], requestedTo: ['carol', 'bob'], messageId: 'n-3', text: 'a\u0000b 😀 é', kind: 'task', ...other }));
        expect(clash.ok ? 'accepted' : clash.error.code).toBe('MESSAGE_ID_CONFLICT');
      }
      // The same id from another sender is another message.
      expect(accept(s, req({ sender: 'bob', to: ['carol'], messageId: 'n-3' })).ok).toBe(true);
      s.db.prepare(`DELETE FROM messages WHERE sender = 'bob'`).run();
    }
  });

  it('tells a thread apart: a retry must name the same message replied to', () => {
    const s = store!;
    const root = accept(s, req({ sender: 'alice', to: ['bob'], messageId: 'root' }));
    if (!root.ok) throw new Error('root refused');
    const reply = accept(s, req({ sender: 'bob', to: ['alice'], messageId: 'r-1', replyTo: root.result.id }));
    expect(reply.ok).toBe(true);
    const again = accept(s, req({ sender: 'bob', to: ['alice'], messageId: 'r-1', replyTo: root.result.id }));
    expect(again.ok && again.result.duplicate).toBe(true);
    const unthreaded = accept(s, req({ sender: 'bob', to: ['alice'], messageId: 'r-1', replyTo: null }));
    expect(unthreaded.ok ? 'accepted' : unthreaded.error.code).toBe('MESSAGE_ID_CONFLICT');
  });
});

describe('schema 9: the delivered receipt of mail from another node, queued by the accept', () => {
  it('is the body schema 5 trigger queued, and only for a sender on another node', () => {
    // The same deliveries at schema 8 (the trigger) and at schema 9 (the accept).
    const old = databaseAt(8);
    handles(old, [['bob', 'participant'], ['dan', 'participant'], ['ann@alpha', 'remote']]);
    oldAccept(old, { sender: 'ann@alpha', messageId: 'r-9', to: ['dan', 'bob'], text: 'hi', delivered: true });
    const byTrigger = outbox(old).map((e) => ({ ...e, body: JSON.parse(e.body!) as unknown }));
    old.close();
    rmSync(file);
    rmSync(`${file}-wal`, { force: true });
    rmSync(`${file}-shm`, { force: true });

    const s = open();
    for (const h of ['bob', 'dan', 'carol']) s.rememberHandle(h, 'participant');
    s.rememberHandle('ann@alpha', 'remote');
    const remote = accept(s, req({ sender: 'ann@alpha', to: ['dan', 'bob'], messageId: 'r-9', text: 'hi', live: new Set(['dan', 'bob']), fromRemote: true }));
    expect(remote.ok).toBe(true);
    const byAccept = outbox(s.db).map((e) => ({ ...e, body: JSON.parse(e.body!) as unknown }));
    expect(byTrigger).toHaveLength(2);
    expect(byAccept).toEqual(byTrigger);

    // Accepted only (nobody hears pushes): nothing to tell yet. Local mail delivered at once: nothing either.
    accept(s, req({ sender: 'ann@alpha', to: ['bob'], messageId: 'r-10', fromRemote: true }));
    accept(s, req({ sender: 'carol', to: ['bob'], live: new Set(['bob']) }));
    expect(outbox(s.db)).toHaveLength(2);
  });

  it('is not queued when the accept is not committed (a refused batch leaves no receipt behind)', () => {
    const s = open();
    for (const h of ['bob']) s.rememberHandle(h, 'participant');
    s.rememberHandle('ann@alpha', 'remote');
    expect(() =>
      s.db.transaction(() => {
        accept(s, req({ sender: 'ann@alpha', to: ['bob'], messageId: 'r-11', live: new Set(['bob']), fromRemote: true }));
        expect(outbox(s.db)).toHaveLength(1);
        throw new Error('the batch failed');
      })(),
    ).toThrow('the batch failed');
    s.resyncCaches();
    expect(outbox(s.db)).toEqual([]);
  });
});

describe('schema 9: versions', () => {
  it('refuses a store newer than this swb, with a sentence, and leaves it as it was', () => {
    const db = databaseAt(9);
    db.pragma(`user_version = ${MIGRATIONS.length + 1}`);
    db.close();
    expect(() => open()).toThrowError(
      expect.objectContaining({ code: 'RECOVERY_REQUIRED', message: expect.stringContaining(`newer than this swb understands (${MIGRATIONS.length}); upgrade swb`) }),
    );
    const again = new Database(file);
    expect(again.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length + 1);
    again.close();
  });
});
