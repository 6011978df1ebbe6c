// FederationStore over a real MailStore on a real SQLite file: the outbox that acceptBatch fills,
// the envelopes built from it, and envelopes from other nodes applied with their chain positions.
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { ENVELOPE_VERSION, MAX_ENVELOPE_JSON, MAX_ITEMS, readEnvelope, type Envelope, type Item, type MailBody, type ReceiptBody } from '../../../src/federation/envelope.js';
import { FIRST_RUN_PATIENCE, GAP_PATIENCE, FederationStore, groupIntoEnvelopes, type OutboxEntry } from '../../../src/federation/federation-store.js';
import { MailStore } from '../../../src/store/mail-store.js';
import { STATE_CODE } from '../../../src/store/receipt-state.js';
import { alphaAndBetaPerTest, closeNode, count, knownOn, openNode, remember, send, type TestNode } from './helpers.js';

let alpha: TestNode;
let beta: TestNode;

alphaAndBetaPerTest(
  { alpha: [['participant', 'alice', 'carol'], ['remote', 'bob@beta', 'dan@beta', 'eve@gamma']], beta: [['participant', 'bob', 'dan', 'carol']] },
  (a, b) => {
    alpha = a;
    beta = b;
  },
);

const EPOCH = '00aa11bb22cc33dd';

type ChainOver = { origin?: string; epoch?: string };

function mailItem(id: number, over: Partial<MailBody> = {}): Item {
  return { id, t: 'mail', from: 'alice', messageId: `m-${id}`, to: ['bob'], kind: 'msg', text: `text ${id}`, replyTo: null, createdAt: 500, ...over };
}

function receiptItem(id: number, over: Partial<ReceiptBody> = {}): Item {
  return { id, t: 'receipt', sender: 'alice', messageId: 'x', to: 'bob', state: 2, woken: false, at: 1, ...over };
}

/** An envelope for the run (prev, last item's id]. */
function run(prev: number, items: Item[], over: ChainOver = {}): Envelope {
  return { v: ENVELOPE_VERSION, origin: 'alpha', epoch: EPOCH, prev, seq: items[items.length - 1]!.id, items, ...over };
}

/** One mail item, id `seq`, in an envelope after `prev`. */
function mailEnv(seq: number, prev: number, over: Partial<MailBody> & ChainOver = {}): Envelope {
  const { origin, epoch, ...body } = over;
  return run(prev, [mailItem(seq, body)], { ...(origin ? { origin } : {}), ...(epoch ? { epoch } : {}) });
}

/** One receipt item, id `seq`, in an envelope from beta after `prev`. */
function receiptEnv(seq: number, prev: number, over: Partial<ReceiptBody> & ChainOver): Envelope {
  const { origin, epoch, ...body } = over;
  return run(prev, [receiptItem(seq, body)], { origin: origin ?? 'beta', ...(epoch ? { epoch } : {}) });
}

function entry(id: number, node: string, body: MailBody | ReceiptBody): OutboxEntry {
  return { id, node, kind: body.t, body, createdAt: 1 };
}

function apply(node: TestNode, envelopes: Envelope[], deliveries?: number[]) {
  return node.fed.applyIncoming(envelopes, knownOn(node), (h) => node.live.has(h), node.clock.now, deliveries);
}

function inbox(node: TestNode, handle: string) {
  return node.store.list(handle, { peek: true }).items;
}

function receiptsIn(node: TestNode): Array<OutboxEntry & { body: ReceiptBody }> {
  return node.fed.pending(1000).filter((e): e is OutboxEntry & { body: ReceiptBody } => e.kind === 'receipt');
}

function stateOf(node: TestNode, id: number, to: string) {
  return node.store.receipts(id)!.recipients.find((r) => r.to === to)!;
}

describe('the outbox filled by acceptBatch', () => {
  it('queues one mail row per destination node per message, none for local recipients', () => {
    const { id } = send(alpha, 'alice', ['bob@beta', 'dan@beta', 'eve@gamma', 'carol']);
    const rows = alpha.store.db.prepare('SELECT node, kind, message, body, created_at FROM outbox ORDER BY id').all();
    expect(rows).toEqual([
      { node: 'beta', kind: 'mail', message: id, body: null, created_at: 1_000_000 },
      { node: 'gamma', kind: 'mail', message: id, body: null, created_at: 1_000_000 },
    ]);
  });

  it('queues nothing for a message with local recipients only', () => {
    send(alpha, 'alice', ['carol']);
    expect(count(alpha, 'outbox')).toBe(0);
    expect(alpha.fed.pending(10)).toEqual([]);
    expect(alpha.fed.queued()).toMatchObject({ count: 0, oldestAt: null });
  });

  it('queues nothing for a refused message', () => {
    const [outcome] = alpha.store.acceptBatch([
      { sender: 'alice', to: ['bob@beta', 'nobody'], requestedTo: ['bob@beta', 'nobody'], text: 'x', kind: 'msg', replyTo: null, messageId: 'r1', live: new Set() },
    ]);
    expect(outcome!.ok ? null : outcome!.error.code).toBe('UNKNOWN_PEER');
    expect(count(alpha, 'outbox')).toBe(0);
  });

  it('queues a retry of a stored message once', () => {
    send(alpha, 'alice', ['bob@beta'], { messageId: 'same', text: 'once' });
    send(alpha, 'alice', ['bob@beta'], { messageId: 'same', text: 'once' });
    expect(count(alpha, 'outbox')).toBe(1);
  });

  it('reports what waits and since when', () => {
    send(alpha, 'alice', ['bob@beta', 'eve@gamma']);
    alpha.clock.now += 50;
    send(alpha, 'alice', ['dan@beta']);
    expect(alpha.fed.queued()).toMatchObject({ count: 3, oldestAt: 1_000_000 });
    expect(alpha.fed.pending(10).map((e) => [e.node, e.createdAt])).toEqual([
      ['beta', 1_000_000],
      ['gamma', 1_000_000],
      ['beta', 1_000_050],
    ]);
  });
});

describe('pending: the envelopes built from the outbox', () => {
  it('gives each node its own recipients, without @node, and the message as stored', () => {
    const { id, messageId } = send(alpha, 'alice', ['bob@beta', 'eve@gamma', 'dan@beta', 'carol'], { kind: 'task', text: 'build it' });
    const entries = alpha.fed.pending(10);
    expect(entries.map((e) => [e.node, e.kind])).toEqual([
      ['beta', 'mail'],
      ['gamma', 'mail'],
    ]);
    expect(entries[0]!.body).toEqual({ t: 'mail', from: 'alice', messageId, to: ['bob', 'dan'], kind: 'task', text: 'build it', replyTo: null, createdAt: 1_000_000 });
    expect(entries[1]!.body).toEqual({ t: 'mail', from: 'alice', messageId, to: ['eve'], kind: 'task', text: 'build it', replyTo: null, createdAt: 1_000_000 });
    expect(entries[0]!.createdAt).toBe(1_000_000);
    expect(entries[0]!.id).toBeLessThan(entries[1]!.id);
    expect(alpha.store.message(id)!.to).toEqual(['bob@beta', 'eve@gamma', 'dan@beta', 'carol']);
  });

  it('returns at most `limit` entries, oldest first', () => {
    for (let i = 0; i < 5; i++) send(alpha, 'alice', ['bob@beta'], { text: `n${i}` });
    const two = alpha.fed.pending(2);
    expect(two.map((e) => (e.body as MailBody).text)).toEqual(['n0', 'n1']);
    expect(alpha.fed.pending(100).map((e) => (e.body as MailBody).text)).toEqual(['n0', 'n1', 'n2', 'n3', 'n4']);
  });

  it('names the message replied to only on the node it came from', () => {
    // bob@beta wrote to alice; alice answers bob@beta and eve@gamma in that thread.
    apply(alpha, [mailEnv(1, 0, { origin: 'beta', from: 'bob', messageId: 'from-bob', to: ['alice'] })]);
    const original = inbox(alpha, 'alice')[0]!;
    expect(original.from).toBe('bob@beta');
    send(alpha, 'alice', ['bob@beta', 'eve@gamma'], { replyTo: original.id, text: 'answer' });
    const mail = alpha.fed.pending(10).filter((e) => e.kind === 'mail');
    expect(mail.map((e) => [e.node, (e.body as MailBody).replyTo])).toEqual([
      ['beta', { sender: 'bob', messageId: 'from-bob' }],
      ['gamma', null],
    ]);
  });

  it('names no message replied to when the original was local', () => {
    const local = send(alpha, 'carol', ['alice']);
    send(alpha, 'alice', ['carol', 'bob@beta'], { replyTo: local.id });
    const [entry] = alpha.fed.pending(10);
    expect((entry!.body as MailBody).replyTo).toBeNull();
  });

  it('has an epoch of 16 hex digits that stays with the store and differs between stores', () => {
    expect(alpha.fed.epoch).toMatch(/^[0-9a-f]{16}$/);
    expect(beta.fed.epoch).toMatch(/^[0-9a-f]{16}$/);
    expect(alpha.fed.epoch).not.toBe(beta.fed.epoch);
  });
});

describe('published, lastPublished, dropEntry', () => {
  it('removes, per node, what the stream holds, and remembers the last id sent to each node', () => {
    send(alpha, 'alice', ['bob@beta']);
    send(alpha, 'alice', ['eve@gamma']);
    send(alpha, 'alice', ['dan@beta']);
    const [a, b, c] = alpha.fed.pending(10);
    expect([a!.node, b!.node, c!.node]).toEqual(['beta', 'gamma', 'beta']);
    expect(alpha.fed.lastPublished()).toEqual(new Map());
    // beta's first envelope is in the stream; gamma's failed: gamma's entry stays, though its id is lower.
    alpha.fed.published(new Map([['beta', a!.id]]));
    expect(alpha.fed.pending(10).map((e) => e.id)).toEqual([b!.id, c!.id]);
    expect(alpha.fed.lastPublished()).toEqual(new Map([['beta', a!.id]]));
    alpha.fed.published(new Map([['beta', c!.id]]));
    expect(alpha.fed.pending(10).map((e) => e.id)).toEqual([b!.id]);
    expect(alpha.fed.queued()).toMatchObject({ count: 1, oldestAt: 1_000_000 });
    alpha.fed.published(new Map([['gamma', b!.id]]));
    expect(alpha.fed.pending(10)).toEqual([]);
    expect(alpha.fed.lastPublished()).toEqual(new Map([['beta', c!.id], ['gamma', b!.id]]));
    expect(alpha.fed.queued()).toMatchObject({ count: 0, oldestAt: null });
  });

  it('leaves the store at synchronous=FULL after recording what was published', () => {
    send(alpha, 'alice', ['bob@beta']);
    const [a] = alpha.fed.pending(10);
    alpha.fed.published(new Map([['beta', a!.id]]));
    expect(alpha.store.db.pragma('synchronous', { simple: true })).toBe(2);
    send(alpha, 'alice', ['bob@beta']);
    expect(alpha.store.db.pragma('synchronous', { simple: true })).toBe(2);
  });

  it('keeps its epoch, what it published and what waits across a reopen of the same file', () => {
    send(alpha, 'alice', ['bob@beta']);
    send(alpha, 'alice', ['bob@beta']);
    const [a, b] = alpha.fed.pending(10);
    alpha.fed.published(new Map([['beta', a!.id]]));
    const epoch = alpha.fed.epoch;
    alpha.store.close();
    alpha.store = MailStore.open(join(alpha.dir, 'mail.db'), { maxUnread: 100, now: () => alpha.clock.now });
    alpha.fed = new FederationStore(alpha.store, 'alpha');
    expect(alpha.fed.epoch).toBe(epoch);
    expect(alpha.fed.lastPublished()).toEqual(new Map([['beta', a!.id]]));
    expect(alpha.fed.pending(10).map((e) => e.id)).toEqual([b!.id]);
    // A store started afresh (another file) draws another epoch: a new chain.
    const fresh = openNode('alpha');
    try {
      expect(fresh.fed.epoch).not.toBe(epoch);
      expect(fresh.fed.lastPublished()).toEqual(new Map());
    } finally {
      closeNode(fresh);
    }
  });

  it('drops one entry', () => {
    send(alpha, 'alice', ['bob@beta']);
    send(alpha, 'alice', ['bob@beta']);
    const [a, b] = alpha.fed.pending(10);
    alpha.fed.dropEntry(a!.id);
    expect(alpha.fed.pending(10).map((e) => e.id)).toEqual([b!.id]);
  });

  it('has nothing to publish for a message purged before it went', () => {
    const { id, messageId } = send(alpha, 'alice', ['bob@beta']);
    // bob read it (the receipt came before the mail was marked published), then retention ran.
    apply(alpha, [receiptEnv(1, 0, { messageId, state: STATE_CODE.read, at: 1 })]);
    expect(count(alpha, 'outbox')).toBe(1);
    alpha.clock.now += 10_000;
    alpha.store.sweep({ expiryMs: 0, retentionMs: 1000 });
    expect(alpha.store.message(id)).toBeUndefined();
    expect(alpha.fed.pending(10)).toEqual([]);
    expect(count(alpha, 'outbox')).toBe(0);
  });
});

describe('groupIntoEnvelopes', () => {
  const mail = (over: Partial<MailBody> = {}): MailBody => ({ t: 'mail', from: 'alice', messageId: `g-${Math.random()}`, to: ['bob'], kind: 'msg', text: 'x', replyTo: null, createdAt: 1, ...over });
  const rcpt = (over: Partial<ReceiptBody> = {}): ReceiptBody => ({ t: 'receipt', sender: 'bob', messageId: 'm', to: 'alice', state: 1, woken: false, at: 1, ...over });

  it('makes one run per destination, chained from the last id published there, in the order of their first entry', () => {
    const entries = [entry(11, 'beta', mail()), entry(12, 'gamma', rcpt()), entry(13, 'beta', rcpt()), entry(14, 'beta', mail()), entry(15, 'gamma', mail())];
    const out = groupIntoEnvelopes(entries, new Map([['gamma', 8]]), 'alpha', 'abcd');
    expect(out.map((o) => [o.node, o.envelope.prev, o.envelope.seq, o.envelope.items.map((i) => i.id)])).toEqual([
      ['beta', 0, 14, [11, 13, 14]],
      ['gamma', 8, 15, [12, 15]],
    ]);
    expect(out[0]!.envelope).toMatchObject({ v: ENVELOPE_VERSION, origin: 'alpha', epoch: 'abcd' });
    expect(out[0]!.envelope.items[0]).toEqual({ ...entries[0]!.body, id: 11 });
    for (const o of out) expect(o.json).toBe(JSON.stringify(o.envelope));
  });

  it('makes nothing of nothing', () => {
    expect(groupIntoEnvelopes([], new Map([['beta', 3]]), 'alpha', 'abcd')).toEqual([]);
  });

  it('holds at most MAX_ITEMS items per envelope, the next run chained to the one before', () => {
    const entries = Array.from({ length: MAX_ITEMS + 44 }, (_, i) => entry(i + 1, 'beta', rcpt()));
    const out = groupIntoEnvelopes(entries, new Map(), 'alpha', 'abcd');
    expect(out.map((o) => [o.envelope.prev, o.envelope.seq, o.envelope.items.length])).toEqual([
      [0, MAX_ITEMS, MAX_ITEMS],
      [MAX_ITEMS, MAX_ITEMS + 44, 44],
    ]);
  });

  it('keeps an envelope within about MAX_ENVELOPE_JSON, losing no item and keeping the chain', () => {
    const entries = Array.from({ length: 80 }, (_, i) => entry(i + 1, 'beta', mail({ text: 'x'.repeat(16 * 1024 - 1) })));
    const out = groupIntoEnvelopes(entries, new Map(), 'alpha', 'abcd');
    expect(out.length).toBeGreaterThan(1);
    for (const o of out) expect(o.json.length).toBeLessThanOrEqual(MAX_ENVELOPE_JSON);
    expect(out.flatMap((o) => o.envelope.items.map((i) => i.id))).toEqual(entries.map((e) => e.id));
    for (let i = 1; i < out.length; i++) expect(out[i]!.envelope.prev).toBe(out[i - 1]!.envelope.seq);
  });

  it('keeps an envelope within the bytes a receiver reads (1 MiB), for text that is not ASCII', () => {
    // 16 KiB of UTF-8 (maxMessageBytes) as three-byte characters: 5461 UTF-16 units each.
    const text = '中'.repeat(5461);
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(16 * 1024);
    const entries = Array.from({ length: 200 }, (_, i) => entry(i + 1, 'beta', mail({ text })));
    const out = groupIntoEnvelopes(entries, new Map(), 'alpha', 'abcd');
    const sizes = out.map((o) => Buffer.byteLength(o.json));
    expect(Math.max(...sizes)).toBeLessThanOrEqual(1 << 20);
  });

  it('makes envelopes that a receiver reads back as they were', () => {
    const entries = [entry(1, 'beta', mail({ replyTo: { sender: 'bob', messageId: 'q' } })), entry(2, 'beta', rcpt({ state: 0, woken: true }))];
    const [o] = groupIntoEnvelopes(entries, new Map(), 'alpha', '00ff');
    expect(readEnvelope(Buffer.from(o!.json), 'swb.alpha.beta.m', 'beta', 1 << 20)).toEqual({ ok: o!.envelope });
  });
});

describe('applyIncoming: mail', () => {
  it('stores mail from another node for the local recipients, from handle@origin', () => {
    const r = apply(beta, [mailEnv(1, 0, { to: ['bob', 'dan'], kind: 'task', text: 'do it' })]);
    expect(r.verdicts).toEqual(['applied']);
    expect(r.accepted).toHaveLength(1);
    expect(r.accepted[0]!.request).toMatchObject({ sender: 'alice@alpha', to: ['bob', 'dan'], requestedTo: ['bob', 'dan'], messageId: 'm-1', fromRemote: true, replyTo: null });
    expect(r.accepted[0]!.outcome.ok).toBe(true);
    const [item] = inbox(beta, 'bob');
    expect(item).toMatchObject({ from: 'alice@alpha', to: ['bob', 'dan'], kind: 'task', text: 'do it', messageId: 'm-1', state: 'accepted' });
    expect(inbox(beta, 'dan')).toHaveLength(1);
    expect(beta.store.unreadCount('bob')).toBe(1);
  });

  it('remembers the remote sender with role remote', () => {
    expect(beta.store.isKnown('alice@alpha')).toBe(false);
    apply(beta, [mailEnv(1, 0)]);
    expect(beta.store.roleOf('alice@alpha')).toBe('remote');
  });

  it('marks mail to a live recipient delivered at once', () => {
    beta.live.add('bob');
    const r = apply(beta, [mailEnv(1, 0, { to: ['bob', 'dan'] })]);
    expect([...r.accepted[0]!.request.live]).toEqual(['bob']);
    const outcome = r.accepted[0]!.outcome;
    expect(outcome.ok && outcome.result.recipients.map((x) => [x.to, x.state])).toEqual([
      ['bob', 'delivered'],
      ['dan', 'accepted'],
    ]);
  });

  it('calls duplicate what it applied before from that origin and epoch, and stores it once', () => {
    expect(apply(beta, [mailEnv(1, 0)]).verdicts).toEqual(['applied']);
    const again = apply(beta, [mailEnv(1, 0)]);
    expect(again.verdicts).toEqual(['duplicate']);
    expect(again.accepted).toEqual([]);
    expect(apply(beta, [mailEnv(2, 1), mailEnv(3, 2)]).verdicts).toEqual(['applied', 'applied']);
    expect(apply(beta, [mailEnv(2, 1)]).verdicts).toEqual(['duplicate']);
    expect(count(beta, 'messages')).toBe(3);
    expect(inbox(beta, 'bob').map((m) => m.text)).toEqual(['text 1', 'text 2', 'text 3']);
  });

  it('gives up on a gap after GAP_PATIENCE deliveries of what waits behind it, and says which ids it skipped', () => {
    apply(beta, [mailEnv(1, 0)]);
    expect(apply(beta, [mailEnv(4, 3)], [GAP_PATIENCE - 1]).verdicts).toEqual(['gap']);
    const r = apply(beta, [mailEnv(4, 3)], [GAP_PATIENCE]);
    expect(r.verdicts).toEqual(['applied']);
    expect(r.skipped).toEqual([{ origin: 'alpha', after: 1, upTo: 3 }]);
    // The lost ones, should they turn up after all, are duplicates now: order is kept.
    expect(apply(beta, [mailEnv(2, 1)]).verdicts).toEqual(['duplicate']);
    expect(inbox(beta, 'bob').map((m) => m.text)).toEqual(['text 1', 'text 4']);
  });

  it('stores another node’s text well-formed, as a local send is (a lone surrogate becomes U+FFFD)', () => {
    apply(beta, [mailEnv(1, 0, { text: 'half \ud800 a pair' })]);
    expect(inbox(beta, 'bob').map((m) => m.text)).toEqual(['half \ufffd a pair']);
  });

  it('calls gap an envelope whose predecessor it has not applied, and stores nothing of it', () => {
    apply(beta, [mailEnv(1, 0)]);
    const r = apply(beta, [mailEnv(3, 2)]);
    expect(r.verdicts).toEqual(['gap']);
    expect(r.accepted).toEqual([]);
    expect(count(beta, 'messages')).toBe(1);
    // Once the missing one comes, the waiting one follows.
    expect(apply(beta, [mailEnv(2, 1)]).verdicts).toEqual(['applied']);
    expect(apply(beta, [mailEnv(3, 2)]).verdicts).toEqual(['applied']);
    expect(inbox(beta, 'bob').map((m) => m.text)).toEqual(['text 1', 'text 2', 'text 3']);
  });

  it('decides verdicts in order within one batch', () => {
    const r = apply(beta, [mailEnv(1, 0), mailEnv(1, 0), mailEnv(3, 2), mailEnv(2, 1), mailEnv(3, 2)]);
    expect(r.verdicts).toEqual(['applied', 'duplicate', 'gap', 'applied', 'applied']);
    expect(inbox(beta, 'bob').map((m) => m.text)).toEqual(['text 1', 'text 2', 'text 3']);
  });

  it('starts a chain it never saw at prev 0, or wherever its first run is once that came FIRST_RUN_PATIENCE times', () => {
    // Not the chain's start: it waits for an earlier run to turn up...
    expect(apply(beta, [mailEnv(10, 7)]).verdicts).toEqual(['gap']);
    expect(apply(beta, [mailEnv(10, 7)], [FIRST_RUN_PATIENCE - 1]).verdicts).toEqual(['gap']);
    // ...and then takes it as the start.
    expect(apply(beta, [mailEnv(10, 7)], [FIRST_RUN_PATIENCE]).verdicts).toEqual(['applied']);
    expect(apply(beta, [mailEnv(11, 10)]).verdicts).toEqual(['applied']);
    expect(apply(beta, [mailEnv(9, 7)]).verdicts).toEqual(['duplicate']);
    expect(apply(beta, [mailEnv(13, 12)]).verdicts).toEqual(['gap']);
  });

  it('takes only the new items of a run that overlaps what it has (published again, grouped otherwise)', () => {
    expect(apply(beta, [run(0, [mailItem(1), mailItem(2)])]).accepted).toHaveLength(2);
    const r = apply(beta, [run(1, [mailItem(2), mailItem(3)])]);
    expect(r.verdicts).toEqual(['applied']);
    expect(r.accepted.map((a) => a.request.messageId)).toEqual(['m-3']);
    expect(inbox(beta, 'bob').map((m) => m.text)).toEqual(['text 1', 'text 2', 'text 3']);
    expect(apply(beta, [run(0, [mailItem(1), mailItem(2), mailItem(3)])]).verdicts).toEqual(['duplicate']);
  });

  it('does not apply an old receipt again from an overlapping run', () => {
    remember(beta, 'remote', 'alice@alpha');
    const mine = send(beta, 'bob', ['alice@alpha']);
    const read = receiptItem(1, { sender: 'bob', messageId: mine.messageId, to: 'alice', state: STATE_CODE.read, at: 5 });
    expect(apply(beta, [run(0, [read])]).changes.map((c) => c.state)).toEqual(['read']);
    const again = apply(beta, [run(0, [read, mailItem(2)])]);
    expect(again.verdicts).toEqual(['applied']);
    expect(again.changes).toEqual([]);
    expect(again.accepted).toHaveLength(1);
  });

  it('applies the items of one envelope in order, mail and receipts alike', () => {
    remember(beta, 'remote', 'alice@alpha');
    const mine = send(beta, 'bob', ['alice@alpha']);
    const r = apply(beta, [
      run(0, [
        mailItem(3, { text: 'first' }),
        receiptItem(4, { sender: 'bob', messageId: mine.messageId, to: 'alice', state: STATE_CODE.delivered, at: 6 }),
        mailItem(7, { text: 'second', from: 'carol' }),
        receiptItem(9, { sender: 'bob', messageId: mine.messageId, to: 'alice', state: STATE_CODE.read, at: 8 }),
      ]),
    ]);
    expect(r.verdicts).toEqual(['applied']);
    expect(r.changes.map((c) => c.state)).toEqual(['delivered', 'read']);
    expect(inbox(beta, 'bob').map((m) => [m.from, m.text])).toEqual([
      ['alice@alpha', 'first'],
      ['carol@alpha', 'second'],
    ]);
    // The chain is at the last item now.
    expect(apply(beta, [mailEnv(10, 9)]).verdicts).toEqual(['applied']);
  });

  it('keeps the chains of different origins apart', () => {
    apply(beta, [mailEnv(5, 0)]);
    // gamma's first envelope is not judged by alpha's position.
    expect(apply(beta, [mailEnv(1, 0, { origin: 'gamma' })]).verdicts).toEqual(['applied']);
    expect(apply(beta, [mailEnv(6, 5), mailEnv(2, 1, { origin: 'gamma' })]).verdicts).toEqual(['applied', 'applied']);
    expect(inbox(beta, 'bob').map((m) => m.from)).toEqual(['alice@alpha', 'alice@gamma', 'alice@alpha', 'alice@gamma']);
  });

  it('starts a new chain for a new epoch of the same origin', () => {
    apply(beta, [mailEnv(1, 0), mailEnv(2, 1), mailEnv(3, 2)]);
    const fresh = apply(beta, [mailEnv(1, 0, { epoch: 'feedface', messageId: 'new-1', text: 'after a fresh start' })]);
    expect(fresh.verdicts).toEqual(['applied']);
    expect(inbox(beta, 'bob').at(-1)!.text).toBe('after a fresh start');
    // The old chain is still known as it was.
    expect(apply(beta, [mailEnv(3, 2)]).verdicts).toEqual(['duplicate']);
  });

  it('does not store a redelivered mail twice, even in a new chain', () => {
    apply(beta, [mailEnv(1, 0, { messageId: 'once', text: 'same' })]);
    const r = apply(beta, [mailEnv(1, 0, { epoch: 'feedface', messageId: 'once', text: 'same' })]);
    expect(r.verdicts).toEqual(['applied']);
    const outcome = r.accepted[0]!.outcome;
    expect(outcome.ok && outcome.result.duplicate).toBe(true);
    expect(count(beta, 'messages')).toBe(1);
    expect(count(beta, 'deliveries')).toBe(1);
    expect(beta.store.unreadCount('bob')).toBe(1);
  });

  it('answers unknown local recipients with an expired receipt to the origin', () => {
    beta.clock.now = 2_000_000;
    const r = apply(beta, [mailEnv(1, 0, { to: ['bob', 'zed'], messageId: 'to-zed' })]);
    expect(r.accepted[0]!.request.to).toEqual(['bob']);
    expect(receiptsIn(beta).map((e) => [e.node, e.body])).toEqual([
      ['alpha', { t: 'receipt', sender: 'alice', messageId: 'to-zed', to: 'zed', state: STATE_CODE.expired, woken: false, at: 2_000_000 }],
    ]);
    expect(inbox(beta, 'bob')).toHaveLength(1);
  });

  it('stores nothing when no recipient is known here, and answers each with expired', () => {
    const r = apply(beta, [mailEnv(1, 0, { to: ['zed', 'yan'] })]);
    expect(r.verdicts).toEqual(['applied']);
    expect(r.accepted).toEqual([]);
    expect(count(beta, 'messages')).toBe(0);
    expect(receiptsIn(beta).map((e) => [e.body.to, e.body.state])).toEqual([
      ['zed', STATE_CODE.expired],
      ['yan', STATE_CODE.expired],
    ]);
  });

  it('does not take a remote session here as a local recipient', () => {
    remember(beta, 'remote', 'eve@gamma');
    const known = knownOn(beta);
    expect(known('eve@gamma')).toBe(false);
    expect(known('bob')).toBe(true);
  });

  it('ignores the reply budget and the unread limit for mail another node accepted', () => {
    const small = openNode('beta', { maxUnread: 1, replyBudget: { perPair: 1, maxDepth: 1, countParticipants: true } });
    try {
      remember(small, 'row', 'bob');
      const envs = [mailEnv(1, 0), mailEnv(2, 1), mailEnv(3, 2)];
      const r = apply(small, envs);
      expect(r.verdicts).toEqual(['applied', 'applied', 'applied']);
      expect(r.accepted.map((a) => a.outcome.ok)).toEqual([true, true, true]);
      expect(small.store.unreadCount('bob')).toBe(3);
      expect(count(small, 'pair_budgets')).toBe(0);
    } finally {
      closeNode(small);
    }
  });

  it('links a reply to the local message it names, and marks that message replied for the remote sender', () => {
    remember(beta, 'remote', 'alice@alpha');
    const mine = send(beta, 'bob', ['alice@alpha'], { text: 'question' });
    expect(stateOf(beta, mine.id, 'alice@alpha').state).toBe('accepted');
    beta.clock.now += 10;
    const r = apply(beta, [mailEnv(1, 0, { replyTo: { sender: 'bob', messageId: mine.messageId }, text: 'answer' })]);
    expect(r.accepted[0]!.request.replyTo).toBe(mine.id);
    expect(inbox(beta, 'bob')[0]!.replyTo).toBe(mine.id);
    const d = stateOf(beta, mine.id, 'alice@alpha');
    expect(d.state).toBe('replied');
    expect(d.repliedAt).toBe(beta.clock.now);
  });

  it('drops a replyTo that names no message here', () => {
    const r = apply(beta, [mailEnv(1, 0, { replyTo: { sender: 'bob', messageId: 'never-sent' } })]);
    expect(r.accepted[0]!.request.replyTo).toBeNull();
    expect(inbox(beta, 'bob')[0]!.replyTo).toBeNull();
  });

  it('applies nothing, not even chain positions, when the commit fails', () => {
    apply(beta, [mailEnv(1, 0)]);
    beta.store.db.exec(`CREATE TRIGGER fail_insert BEFORE INSERT ON messages BEGIN SELECT RAISE(ABORT, 'disk says no'); END;`);
    expect(() => apply(beta, [mailEnv(2, 1)])).toThrow(/disk says no/);
    beta.store.db.exec(`DROP TRIGGER fail_insert`);
    expect(beta.store.unreadCount('bob')).toBe(1);
    // The same envelope comes again and is applied, not taken for a duplicate.
    expect(apply(beta, [mailEnv(2, 1)]).verdicts).toEqual(['applied']);
    expect(beta.store.unreadCount('bob')).toBe(2);
  });
});

describe('applyIncoming: what readEnvelope lets through never fails the commit', () => {
  // A failed commit naks the whole batch (src/federation/nats-link.ts applyBatch): an envelope that
  // always fails it comes back forever and takes every other envelope of its batch with it.
  function through(node: TestNode, raw: Record<string, unknown>, subject: string) {
    return readEnvelope(Buffer.from(JSON.stringify(raw)), subject, node.name, 1 << 20);
  }

  it('stores a mail naming the same recipient twice once, without failing the batch', () => {
    const raw = mailEnv(1, 0, { to: ['bob', 'bob'] }) as unknown as Record<string, unknown>;
    const read = through(beta, raw, 'swb.alpha.beta.m');
    if ('refused' in read) return; // refusing it is an answer too
    const other = mailEnv(1, 0, { origin: 'gamma', to: ['dan'] });
    expect(() => apply(beta, [other, read.ok])).not.toThrow();
    expect(inbox(beta, 'dan')).toHaveLength(1);
    expect(inbox(beta, 'bob')).toHaveLength(1);
  });

  it('does not fail the batch on a receipt whose sender is not a string', () => {
    const raw = run(0, [{ ...receiptItem(1), sender: [['bob']] } as unknown as Item]) as unknown as Record<string, unknown>;
    const read = through(beta, raw, 'swb.alpha.beta.m');
    if ('refused' in read) return;
    const other = mailEnv(1, 0, { origin: 'gamma', to: ['dan'] });
    expect(() => apply(beta, [other, read.ok])).not.toThrow();
    expect(inbox(beta, 'dan')).toHaveLength(1);
  });

  it('does not fail the batch on a mail whose replyTo has no sender', () => {
    const raw = run(0, [{ ...mailItem(1), replyTo: { messageId: 'x' } } as unknown as Item]) as unknown as Record<string, unknown>;
    const read = through(beta, raw, 'swb.alpha.beta.m');
    if ('refused' in read) return;
    expect(() => apply(beta, [read.ok])).not.toThrow();
  });
});

describe('applyIncoming: receipts for mail this node sent', () => {
  let sent: { id: number; messageId: string };
  let seq: number;
  const receipt = (over: Partial<ReceiptBody>) => {
    seq += 1;
    return apply(alpha, [receiptEnv(seq, seq - 1, { messageId: sent.messageId, ...over })]);
  };

  beforeEach(() => {
    sent = send(alpha, 'alice', ['bob@beta', 'dan@beta']);
    seq = 0;
  });

  it('moves the delivery of handle@origin forward and reports the change', () => {
    expect(alpha.store.unreadCount('bob@beta')).toBe(1);
    const r = receipt({ state: STATE_CODE.read, at: 1_000_500 });
    expect(r.verdicts).toEqual(['applied']);
    expect(r.changes).toEqual([{ id: sent.id, sender: 'alice', to: 'bob@beta', state: 'read', at: 1_000_500 }]);
    expect(stateOf(alpha, sent.id, 'bob@beta')).toMatchObject({ state: 'read', readAt: 1_000_500, deliveredAt: 1_000_500 });
    expect(stateOf(alpha, sent.id, 'dan@beta').state).toBe('accepted');
    expect(alpha.store.unreadCount('bob@beta')).toBe(0);
    expect(alpha.store.unreadCount('dan@beta')).toBe(1);
  });

  it('never moves a delivery back: delivered after read stays read', () => {
    receipt({ state: STATE_CODE.read, at: 10 });
    const late = receipt({ state: STATE_CODE.delivered, at: 5 });
    expect(late.verdicts).toEqual(['applied']);
    expect(late.changes).toEqual([]);
    expect(stateOf(alpha, sent.id, 'bob@beta')).toMatchObject({ state: 'read', readAt: 10 });
  });

  it('takes expired only from unread', () => {
    receipt({ state: STATE_CODE.read, at: 10 });
    expect(receipt({ state: STATE_CODE.expired, at: 20 }).changes).toEqual([]);
    expect(stateOf(alpha, sent.id, 'bob@beta').state).toBe('read');
    const r = receipt({ to: 'dan', state: STATE_CODE.expired, at: 30 });
    expect(r.changes).toEqual([{ id: sent.id, sender: 'alice', to: 'dan@beta', state: 'expired', at: 30 }]);
    expect(stateOf(alpha, sent.id, 'dan@beta').state).toBe('expired');
    expect(alpha.store.unreadCount('dan@beta')).toBe(0);
    // Expired is terminal.
    expect(receipt({ to: 'dan', state: STATE_CODE.read, at: 40 }).changes).toEqual([]);
    expect(stateOf(alpha, sent.id, 'dan@beta').state).toBe('expired');
  });

  it('records woken with its time, once', () => {
    const r = receipt({ state: STATE_CODE.accepted, woken: true, at: 77 });
    expect(r.changes).toEqual([{ id: sent.id, sender: 'alice', to: 'bob@beta', state: 'woken', at: 77 }]);
    expect(stateOf(alpha, sent.id, 'bob@beta')).toMatchObject({ state: 'accepted', wokenAt: 77 });
    expect(receipt({ state: STATE_CODE.accepted, woken: true, at: 99 }).changes).toEqual([]);
    expect(stateOf(alpha, sent.id, 'bob@beta').wokenAt).toBe(77);
  });

  it('reports woken and a new state from one receipt', () => {
    const r = receipt({ state: STATE_CODE.delivered, woken: true, at: 12 });
    expect(r.changes.map((c) => c.state)).toEqual(['woken', 'delivered']);
    expect(stateOf(alpha, sent.id, 'bob@beta')).toMatchObject({ state: 'delivered', deliveredAt: 12, wokenAt: 12 });
  });

  it('ignores a receipt for a message it does not have, but advances the chain', () => {
    const r = receipt({ messageId: 'unknown', state: STATE_CODE.read });
    expect(r.verdicts).toEqual(['applied']);
    expect(r.changes).toEqual([]);
    expect(apply(alpha, [receiptEnv(1, 0, { messageId: sent.messageId })]).verdicts).toEqual(['duplicate']);
  });

  it('does not queue a receipt back for a receipt (the message is local)', () => {
    receipt({ state: STATE_CODE.read, at: 10 });
    expect(receiptsIn(alpha)).toEqual([]);
  });

  it('takes a receipt only for the node it came from', () => {
    // A receipt from gamma cannot speak for bob@beta.
    apply(alpha, [receiptEnv(1, 0, { origin: 'gamma', messageId: sent.messageId, state: STATE_CODE.read })]);
    expect(stateOf(alpha, sent.id, 'bob@beta').state).toBe('accepted');
  });
});

describe('migration 5 triggers: receipts queued for mail from another node', () => {
  let id: number;

  beforeEach(() => {
    beta.clock.now = 3_000_000;
    apply(beta, [mailEnv(1, 0, { messageId: 'remote-1' })]);
    id = inbox(beta, 'bob')[0]!.id;
  });

  const expectOne = (state: number, woken: boolean, at: number, how?: 'typed' | 'hook') => {
    expect(receiptsIn(beta).map((e) => [e.node, e.body])).toEqual([['alpha', { t: 'receipt', sender: 'alice', messageId: 'remote-1', to: 'bob', state, woken, at, ...(how ? { how } : {}) }]]);
  };

  it('queues nothing while the mail is only accepted', () => {
    expect(beta.fed.pending(10)).toEqual([]);
  });

  it('queues delivered when the recipient lists it', () => {
    beta.clock.now += 5;
    beta.store.list('bob', {});
    expectOne(STATE_CODE.delivered, false, 3_000_005);
  });

  it('queues nothing for a peek', () => {
    beta.store.list('bob', { peek: true });
    expect(beta.fed.pending(10)).toEqual([]);
  });

  it('queues read on markRead', () => {
    beta.clock.now += 7;
    beta.store.markRead('bob', [id]);
    expectOne(STATE_CODE.read, false, 3_000_007);
  });

  it('queues replied when the recipient replies, beside the reply itself', () => {
    beta.clock.now += 9;
    send(beta, 'bob', ['alice@alpha'], { replyTo: id, text: 'thanks' });
    const entries = beta.fed.pending(10);
    expect(entries.map((e) => [e.node, e.kind])).toEqual([
      ['alpha', 'mail'],
      ['alpha', 'receipt'],
    ]);
    expect(entries[1]!.body).toEqual({ t: 'receipt', sender: 'alice', messageId: 'remote-1', to: 'bob', state: STATE_CODE.replied, woken: false, at: 3_000_009 });
    expect((entries[0]!.body as MailBody).replyTo).toEqual({ sender: 'alice', messageId: 'remote-1' });
  });

  it('queues woken (state unchanged) on recordWake', () => {
    beta.clock.now += 3;
    beta.store.recordWake('bob', [id]);
    // With how it was told (a typed line here), for the sender's receipt.
    expectOne(STATE_CODE.accepted, true, 3_000_003, 'typed');
  });

  it('queues expired when the sweep expires it', () => {
    beta.clock.now += 60_000;
    beta.store.sweep({ expiryMs: 1000, retentionMs: 0 });
    expectOne(STATE_CODE.expired, false, 3_060_000);
  });

  it('queues one receipt per change, in order', () => {
    beta.store.list('bob', {});
    beta.clock.now += 1;
    beta.store.recordWake('bob', [id]);
    beta.clock.now += 1;
    beta.store.markRead('bob', [id]);
    beta.store.markRead('bob', [id]);
    expect(receiptsIn(beta).map((e) => [e.body.state, e.body.woken])).toEqual([
      [STATE_CODE.delivered, false],
      [STATE_CODE.delivered, true],
      [STATE_CODE.read, true],
    ]);
  });

  it('queues delivered on insert for a live recipient', () => {
    beta.live.add('dan');
    beta.clock.now = 4_000_000;
    apply(beta, [mailEnv(2, 1, { messageId: 'remote-2', to: ['dan', 'bob'] })]);
    expect(receiptsIn(beta).map((e) => [e.node, e.body])).toEqual([
      ['alpha', { t: 'receipt', sender: 'alice', messageId: 'remote-2', to: 'dan', state: STATE_CODE.delivered, woken: false, at: 4_000_000 }],
    ]);
  });

  it('queues nothing when the sender is local', () => {
    const local = send(beta, 'carol', ['bob'], { text: 'local' });
    beta.store.list('bob', {});
    const before = receiptsIn(beta).length; // the remote message's delivered receipt
    beta.store.recordWake('bob', [local.id]);
    beta.store.markRead('bob', [local.id]);
    send(beta, 'bob', ['carol'], { replyTo: local.id });
    expect(receiptsIn(beta)).toHaveLength(before);
    expect(receiptsIn(beta).every((e) => e.body.messageId === 'remote-1')).toBe(true);
  });

  it('queues nothing when a remote message is parked or handed back', () => {
    beta.store.parkUnread('bob');
    beta.store.redeliverParked('bob');
    expect(beta.fed.pending(10)).toEqual([]);
  });
});
