import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MailStore, type AcceptRequest } from '../../../src/store/mail-store.js';

let dir: string;
let store: MailStore;
let clock = 1_000_000;

function req(over: Partial<AcceptRequest> & { sender: string; to: string[] }): AcceptRequest {
  return {
    requestedTo: over.to,
    text: 'hello',
    kind: 'msg',
    replyTo: null,
    messageId: `id-${Math.random()}`,
    live: new Set(),
    ...over,
  };
}

function accept(r: AcceptRequest) {
  const [outcome] = store.acceptBatch([r]);
  return outcome!;
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'swb-store-'));
  store = MailStore.open(join(dir, 'mail.db'), { maxUnread: 3, now: () => clock });
  for (const h of ['alice', 'bob', 'carol']) store.rememberHandle(h, 'participant');
});

afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('MailStore', () => {
  it('creates mail.db with mode 0600 in WAL mode with synchronous=FULL', () => {
    expect(statSync(join(dir, 'mail.db')).mode & 0o777).toBe(0o600);
    expect(store.db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(store.db.pragma('synchronous', { simple: true })).toBe(2);
  });

  it('gives each recipient its own increasing sequence', () => {
    const a = accept(req({ sender: 'alice', to: ['bob', 'carol'] }));
    const b = accept(req({ sender: 'alice', to: ['bob'] }));
    expect(a.ok && a.result.recipients.map((r) => r.seq)).toEqual([1, 1]);
    expect(b.ok && b.result.recipients.map((r) => r.seq)).toEqual([2]);
  });

  it('stores a retry with the same id and content once and answers it as a duplicate', () => {
    const first = accept(req({ sender: 'alice', to: ['bob'], messageId: 'm1' }));
    const again = accept(req({ sender: 'alice', to: ['bob'], messageId: 'm1' }));
    expect(first.ok && again.ok).toBe(true);
    if (first.ok && again.ok) {
      expect(again.result.id).toBe(first.result.id);
      expect(again.result.duplicate).toBe(true);
    }
    expect(store.db.prepare('SELECT count(*) AS n FROM messages').get()).toEqual({ n: 1 });
    expect(store.unreadCount('bob')).toBe(1);
  });

  it('refuses the same id with different content as MESSAGE_ID_CONFLICT, but not the same id from another sender', () => {
    accept(req({ sender: 'alice', to: ['bob'], messageId: 'm1', text: 'one' }));
    const clash = accept(req({ sender: 'alice', to: ['bob'], messageId: 'm1', text: 'two' }));
    expect(clash.ok ? null : clash.error.code).toBe('MESSAGE_ID_CONFLICT');
    expect(accept(req({ sender: 'carol', to: ['bob'], messageId: 'm1' })).ok).toBe(true);
  });

  it('refuses with QUEUE_FULL past the unread limit and drops nothing already accepted', () => {
    for (let i = 0; i < 3; i++) expect(accept(req({ sender: 'alice', to: ['bob'] })).ok).toBe(true);
    const full = accept(req({ sender: 'alice', to: ['bob'] }));
    expect(full.ok ? null : full.error.code).toBe('QUEUE_FULL');
    expect(store.list('bob', { unreadOnly: true }).items).toHaveLength(3);
    store.markRead('bob', [1]);
    expect(accept(req({ sender: 'alice', to: ['bob'] })).ok).toBe(true);
  });

  it('lets a batch succeed around one refused message (one transaction, outcomes per message)', () => {
    const outcomes = store.acceptBatch([
      req({ sender: 'alice', to: ['bob'] }),
      req({ sender: 'alice', to: ['nobody'] }),
      req({ sender: 'alice', to: ['carol'] }),
    ]);
    expect(outcomes.map((o) => (o.ok ? 'ok' : o.error.code))).toEqual(['ok', 'UNKNOWN_PEER', 'ok']);
  });

  it('moves receipts forward only: accepted, delivered, read, replied', () => {
    const sent = accept(req({ sender: 'alice', to: ['bob'] }));
    if (!sent.ok) throw new Error('not accepted');
    const id = sent.result.id;
    expect(store.receipts(id)!.recipients[0]!.state).toBe('accepted');
    clock += 1;
    expect(store.list('bob', {}).changes.map((c) => c.state)).toEqual(['delivered']);
    clock += 1;
    expect(store.markRead('bob', [id]).changes.map((c) => c.state)).toEqual(['read']);
    const reply = accept(req({ sender: 'bob', to: ['alice'], replyTo: id }));
    expect(reply.ok && reply.repliedTo).toEqual({ id, recipient: 'bob', sender: 'alice' });
    expect(store.markRead('bob', [id]).changes).toEqual([]);
    const r = store.receipts(id)!.recipients[0]!;
    expect(r.state).toBe('replied');
    expect(r.deliveredAt! <= r.readAt! && r.readAt! <= r.repliedAt!).toBe(true);
  });

  it('refuses a reply to a message the replier never received as INVALID_REPLY', () => {
    const sent = accept(req({ sender: 'alice', to: ['bob'] }));
    if (!sent.ok) throw new Error('not accepted');
    const bad = accept(req({ sender: 'carol', to: ['alice'], replyTo: sent.result.id }));
    expect(bad.ok ? null : bad.error.code).toBe('INVALID_REPLY');
  });

  it('records wakes beside receipts without changing the receipt state', () => {
    const sent = accept(req({ sender: 'alice', to: ['bob'] }));
    if (!sent.ok) throw new Error('not accepted');
    expect(store.recordWake('bob', [sent.result.id]).map((c) => c.state)).toEqual(['woken']);
    const r = store.receipts(sent.result.id)!.recipients[0]!;
    expect(r.state).toBe('accepted');
    expect(r.wokenAt).toBe(clock);
  });

  it('keeps unread counts and sequences across a reopen', () => {
    accept(req({ sender: 'alice', to: ['bob'] }));
    accept(req({ sender: 'alice', to: ['bob'] }));
    store.close();
    store = MailStore.open(join(dir, 'mail.db'), { maxUnread: 3, now: () => clock });
    expect(store.unreadCount('bob')).toBe(2);
    const next = accept(req({ sender: 'alice', to: ['bob'] }));
    expect(next.ok && next.result.recipients[0]!.seq).toBe(3);
  });

  it('never gives a sequence twice: not after a reopen, nor after retention purged the newest deliveries', () => {
    const first = accept(req({ sender: 'alice', to: ['carol'] }));
    const second = accept(req({ sender: 'alice', to: ['carol'] }));
    if (!first.ok || !second.ok) throw new Error('not accepted');
    // Commits of mail leave handles.next_seq behind; the deliveries on disk say how far it went.
    store.close();
    store = MailStore.open(join(dir, 'mail.db'), { maxUnread: 3, now: () => clock });
    expect(store.lastSeq('carol')).toBe(2);
    // Carol read both, and retention purges them: her deliveries are gone, her sequence is not.
    store.markRead('carol', [first.result.id, second.result.id]);
    clock += 10_000;
    store.sweep({ expiryMs: 0, retentionMs: 5_000 });
    expect(store.message(second.result.id)).toBeUndefined();
    store.close();
    store = MailStore.open(join(dir, 'mail.db'), { maxUnread: 3, now: () => clock });
    expect(store.lastSeq('carol')).toBe(2);
    const next = accept(req({ sender: 'alice', to: ['carol'] }));
    expect(next.ok && next.result.recipients[0]!.seq).toBe(3);
  });

  it('never gives a message id twice: not after retention purged the newest message, nor after a reopen', () => {
    const kept = accept(req({ sender: 'alice', to: ['bob'], text: 'unread, kept' }));
    const newest = accept(req({ sender: 'alice', to: ['carol'], text: 'read, purged' }));
    if (!kept.ok || !newest.ok) throw new Error('not accepted');
    store.markRead('carol', [newest.result.id]);
    clock += 10_000;
    store.sweep({ expiryMs: 0, retentionMs: 5_000 });
    expect(store.message(newest.result.id)).toBeUndefined();
    // The purged id stays given: new mail (in this process, and after a reopen) comes above it.
    const next = accept(req({ sender: 'alice', to: ['bob'], text: 'after the purge' }));
    expect(next.ok && next.result.id).toBe(newest.result.id + 1);
    store.markRead('bob', [kept.result.id]);
    if (next.ok) store.markRead('bob', [next.result.id]);
    clock += 10_000;
    store.sweep({ expiryMs: 0, retentionMs: 5_000 });
    expect(store.history({}).items).toEqual([]);
    store.close();
    store = MailStore.open(join(dir, 'mail.db'), { maxUnread: 3, now: () => clock });
    // A refused message in the same batch takes no id from the mail after it.
    const [refused, after] = store.acceptBatch([req({ sender: 'alice', to: ['bob'], replyTo: 999 }), req({ sender: 'alice', to: ['bob'], text: 'after a reopen' })]);
    expect(refused).toMatchObject({ ok: false, error: { code: 'INVALID_REPLY' } });
    expect(after!.ok && after!.result.id).toBe(newest.result.id + 2);
    // Once mail is stored above the mark, ids go on from the newest row as usual.
    expect(accept(req({ sender: 'alice', to: ['carol'] }))).toMatchObject({ ok: true, result: { id: newest.result.id + 3 } });
  });

  it('a group commit syncs the WAL: commits taken without a sync before it need no fsync of their own', () => {
    const touch = store.db.prepare(`UPDATE handles SET last_seen = last_seen + 1 WHERE handle = 'alice'`);
    store.wal.commitUnsynced(store.db, () => store.db.transaction(() => touch.run())());
    expect(store.wal.clean).toBe(false);
    accept(req({ sender: 'alice', to: ['bob'] }));
    expect(store.wal.clean).toBe(true);
    // Inside an unsynced commit (federation's apply) the accept is a savepoint: it syncs nothing.
    store.wal.commitUnsynced(store.db, () => store.db.transaction(() => store.acceptBatch([req({ sender: 'alice', to: ['carol'] })]))());
    expect(store.wal.clean).toBe(false);
  });

  it('expires old unread mail and purges old read mail, never old unread mail', () => {
    const old = accept(req({ sender: 'alice', to: ['bob'] }));
    const oldRead = accept(req({ sender: 'alice', to: ['carol'] }));
    if (!old.ok || !oldRead.ok) throw new Error('not accepted');
    store.markRead('carol', [oldRead.result.id]);
    clock += 10_000;
    const retained = store.sweep({ expiryMs: 0, retentionMs: 5_000 });
    expect(retained.changes).toEqual([]);
    expect(store.message(old.result.id)).toMatchObject({ id: old.result.id, from: 'alice', to: ['bob'], text: 'hello' });
    expect(store.message(oldRead.result.id)).toBeUndefined();
    const expired = store.sweep({ expiryMs: 5_000, retentionMs: 0 });
    expect(expired.changes.map((c) => [c.id, c.state])).toEqual([[old.result.id, 'expired']]);
    expect(store.unreadCount('bob')).toBe(0);
  });

  it('pages history newest first and filters by peer', () => {
    for (let i = 0; i < 3; i++) accept(req({ sender: 'alice', to: ['bob'], text: `to bob ${i}` }));
    accept(req({ sender: 'carol', to: ['alice'], text: 'to alice' }));
    const page1 = store.history({ limit: 2 });
    expect(page1.items.map((m) => m.text)).toEqual(['to alice', 'to bob 2']);
    expect(page1.more).toBe(true);
    const page2 = store.history({ limit: 2, before: page1.items[1]!.id });
    expect(page2.items.map((m) => m.text)).toEqual(['to bob 1', 'to bob 0']);
    expect(page2.more).toBe(false);
    expect(store.history({ peer: 'carol' }).items.map((m) => m.text)).toEqual(['to alice']);
  });

  it('forgets tokenless handles unused past the TTL with no unread mail; keeps rows, online, recent and unread ones', () => {
    store.rememberHandle('row1', 'row');
    store.rememberHandle('gone', 'participant');
    store.rememberHandle('online', 'participant');
    store.rememberHandle('waiting', 'participant');
    accept(req({ sender: 'alice', to: ['waiting'] }));
    clock += 3 * 3600_000;
    store.rememberHandle('alice', 'participant'); // used again now
    const forgotten = store.forgetIdleParticipants(2 * 3600_000, (h) => h === 'online');
    expect(forgotten.sort()).toEqual(['bob', 'carol', 'gone']);
    for (const h of ['row1', 'online', 'waiting', 'alice']) expect(store.isKnown(h)).toBe(true);
    expect(store.isKnown('gone')).toBe(false);
    // Forgotten for good: a reopened store agrees.
    store.close();
    store = MailStore.open(join(dir, 'mail.db'), { maxUnread: 3, now: () => clock });
    expect(store.isKnown('gone')).toBe(false);
    expect(store.isKnown('waiting')).toBe(true);
  });

  it('a forgotten handle that comes back continues its sequence after the mail it kept', () => {
    const first = accept(req({ sender: 'alice', to: ['bob'] }));
    if (!first.ok) throw new Error('not accepted');
    store.markRead('bob', [first.result.id]);
    clock += 3 * 3600_000;
    expect(store.forgetIdleParticipants(3600_000, () => false)).toContain('bob');
    store.rememberHandle('bob', 'participant');
    const again = accept(req({ sender: 'carol', to: ['bob'] }));
    expect(again).toMatchObject({ ok: true, result: { recipients: [{ to: 'bob', seq: 2 }] } });
  });

  it('a failed commit leaves sequences and unread counts as they were', () => {
    accept(req({ sender: 'alice', to: ['bob'] }));
    const before = { seq: store.lastSeq('bob'), unread: store.unreadCount('bob') };
    // A real failure at the end of the batch, at its last insert (the delivery: a commit writes no
    // sequence to handles any more, the deliveries carry it): the transaction aborts.
    store.db.exec(`CREATE TEMP TRIGGER fail_commit AFTER INSERT ON deliveries BEGIN SELECT RAISE(ABORT, 'injected failure'); END`);
    expect(() => store.acceptBatch([req({ sender: 'alice', to: ['bob'] })])).toThrow('injected failure');
    store.db.exec('DROP TRIGGER fail_commit');
    expect({ seq: store.lastSeq('bob'), unread: store.unreadCount('bob') }).toEqual(before);
    expect(accept(req({ sender: 'alice', to: ['bob'] }))).toMatchObject({ ok: true, result: { recipients: [{ seq: before.seq + 1 }] } });
  });

  it('skips a full inbox reached through broadcast and names it, instead of refusing the message', () => {
    for (let i = 0; i < 3; i++) accept(req({ sender: 'alice', to: ['bob'] }));
    const r = accept(req({ sender: 'alice', to: ['bob', 'carol'], requestedTo: ['all'], optional: new Set(['bob', 'carol']) }));
    expect(r).toMatchObject({ ok: true, result: { recipients: [{ to: 'carol' }], skipped: [{ to: 'bob', code: 'QUEUE_FULL' }] } });
    // Named explicitly, the full inbox still refuses the whole message.
    expect(accept(req({ sender: 'alice', to: ['bob', 'carol'] }))).toMatchObject({ ok: false, error: { code: 'QUEUE_FULL' } });
  });
});
