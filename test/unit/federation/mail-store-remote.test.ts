// MailStore's own part in mail across machines: receipts another node sends for mail sent there
// (applyRemoteReceipt), and custody of mail another node already accepted (fromRemote).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { STATE_CODE } from '../../../src/store/receipt-state.js';
import { closeNode, count, openNode, remember, request, send, type TestNode } from './helpers.js';

let node: TestNode;

afterEach(() => closeNode(node));

describe('applyRemoteReceipt', () => {
  let sent: { id: number; messageId: string };

  beforeEach(() => {
    node = openNode('alpha');
    remember(node, 'participant', 'alice');
    remember(node, 'remote', 'bob@beta', 'dan@beta');
    sent = send(node, 'alice', ['bob@beta', 'dan@beta']);
  });

  const applyFull = (over: { to?: string; state: number; woken?: boolean; how?: 'typed' | 'hook'; at: number; messageId?: string; sender?: string }) =>
    node.store.applyRemoteReceipt({ sender: 'alice', messageId: sent.messageId, to: 'bob@beta', woken: false, ...over });
  const apply = (over: Parameters<typeof applyFull>[0]) => applyFull(over).changes;
  const bob = () => node.store.receipts(sent.id)!.recipients.find((r) => r.to === 'bob@beta')!;

  it('sets the state and the times a local receipt would set', () => {
    expect(apply({ state: STATE_CODE.delivered, at: 10 })).toEqual([{ id: sent.id, sender: 'alice', to: 'bob@beta', state: 'delivered', at: 10 }]);
    expect(bob()).toMatchObject({ state: 'delivered', deliveredAt: 10, readAt: null, repliedAt: null });
    apply({ state: STATE_CODE.read, at: 20 });
    expect(bob()).toMatchObject({ state: 'read', deliveredAt: 10, readAt: 20, repliedAt: null });
    apply({ state: STATE_CODE.replied, at: 30 });
    expect(bob()).toMatchObject({ state: 'replied', deliveredAt: 10, readAt: 20, repliedAt: 30 });
  });

  it('fills the earlier times when a later state comes first', () => {
    apply({ state: STATE_CODE.replied, at: 30 });
    expect(bob()).toMatchObject({ state: 'replied', deliveredAt: 30, readAt: 30, repliedAt: 30 });
  });

  it('never moves a delivery back', () => {
    apply({ state: STATE_CODE.replied, at: 30 });
    expect(apply({ state: STATE_CODE.read, at: 40 })).toEqual([]);
    expect(apply({ state: STATE_CODE.delivered, at: 50 })).toEqual([]);
    expect(apply({ state: STATE_CODE.replied, at: 60 })).toEqual([]);
    expect(bob()).toMatchObject({ state: 'replied', repliedAt: 30, readAt: 30 });
  });

  it('expires only an unread delivery, and nothing moves an expired one', () => {
    apply({ state: STATE_CODE.read, at: 5 });
    expect(apply({ state: STATE_CODE.expired, at: 6 })).toEqual([]);
    expect(bob().state).toBe('read');
    expect(apply({ to: 'dan@beta', state: STATE_CODE.delivered, at: 7 })).toHaveLength(1);
    expect(apply({ to: 'dan@beta', state: STATE_CODE.expired, at: 8 })).toEqual([{ id: sent.id, sender: 'alice', to: 'dan@beta', state: 'expired', at: 8 }]);
    expect(apply({ to: 'dan@beta', state: STATE_CODE.replied, at: 9 })).toEqual([]);
    expect(node.store.receipts(sent.id)!.recipients.find((r) => r.to === 'dan@beta')!.state).toBe('expired');
  });

  it('does not say an expired delivery was delivered when it never was', () => {
    // Local expiry (sweep) sets only state and expired_at; the remote one should agree.
    apply({ state: STATE_CODE.expired, at: 8 });
    expect(bob()).toMatchObject({ state: 'expired', deliveredAt: null, readAt: null });
  });

  it('records woken once, without changing the state, and how the other node told its recipient', () => {
    expect(apply({ state: STATE_CODE.accepted, woken: true, how: 'hook', at: 3 })).toEqual([{ id: sent.id, sender: 'alice', to: 'bob@beta', state: 'woken', at: 3 }]);
    expect(bob()).toMatchObject({ state: 'accepted', wokenAt: 3, wokenBy: 'hook' });
    expect(apply({ state: STATE_CODE.accepted, woken: true, at: 4 })).toEqual([]);
    expect(bob().wokenAt).toBe(3);
  });

  it('changes nothing for an unknown message, another sender, or a recipient the message did not have', () => {
    expect(apply({ messageId: 'nope', state: STATE_CODE.read, at: 1 })).toEqual([]);
    expect(apply({ sender: 'carol', state: STATE_CODE.read, at: 1 })).toEqual([]);
    expect(apply({ to: 'eve@beta', state: STATE_CODE.read, at: 1 })).toEqual([]);
    expect(apply({ to: 'bob@gamma', state: STATE_CODE.read, at: 1 })).toEqual([]);
    expect(bob().state).toBe('accepted');
  });

  it('leaves the unread cache to adjustUnread, and says what left unread', () => {
    expect(node.store.unreadCount('bob@beta')).toBe(1);
    expect(applyFull({ state: STATE_CODE.delivered, at: 1 }).read).toBe(0);
    expect(applyFull({ state: STATE_CODE.read, at: 2 }).read).toBe(1);
    // A later receipt of the same delivery is no longer a change from unread.
    expect(applyFull({ state: STATE_CODE.replied, at: 3 }).read).toBe(0);
    // Not followed yet: the caller adjusts after its commit.
    expect(node.store.unreadCount('bob@beta')).toBe(1);
    node.store.adjustUnread(new Map([['bob@beta', 1]]));
    expect(node.store.unreadCount('bob@beta')).toBe(0);
  });
});

describe('AcceptRequest.fromRemote', () => {
  it('is never refused with QUEUE_FULL', () => {
    node = openNode('beta', { maxUnread: 2 });
    remember(node, 'participant', 'bob');
    remember(node, 'remote', 'alice@alpha');
    node.store.acceptBatch([request('alice@alpha', ['bob'], { fromRemote: true }), request('alice@alpha', ['bob'], { fromRemote: true })]);
    const [local] = node.store.acceptBatch([request('alice@alpha', ['bob'])]);
    expect(local!.ok ? null : local!.error.code).toBe('QUEUE_FULL');
    const outcomes = node.store.acceptBatch([request('alice@alpha', ['bob'], { fromRemote: true }), request('alice@alpha', ['bob'], { fromRemote: true })]);
    expect(outcomes.map((o) => o.ok)).toEqual([true, true]);
    expect(node.store.unreadCount('bob')).toBe(4);
  });

  it('uses no reply budget and counts no depth', () => {
    node = openNode('beta', { replyBudget: { perPair: 1, maxDepth: 1, countParticipants: false } });
    remember(node, 'row', 'bob');
    remember(node, 'remote', 'alice@alpha');
    // The same two messages without fromRemote: the second is over the pair's budget.
    const plain = node.store.acceptBatch([request('alice@alpha', ['bob']), request('alice@alpha', ['bob'])]);
    expect(plain.map((o) => (o.ok ? 'ok' : o.error.code))).toEqual(['ok', 'REPLY_BUDGET']);
    const usedBefore = node.store.db.prepare('SELECT used FROM pair_budgets').all();
    const remote = node.store.acceptBatch([request('alice@alpha', ['bob'], { fromRemote: true }), request('alice@alpha', ['bob'], { fromRemote: true })]);
    expect(remote.map((o) => o.ok)).toEqual([true, true]);
    expect(node.store.db.prepare('SELECT used FROM pair_budgets').all()).toEqual(usedBefore);
  });

  it('takes a remote reply deeper than maxDepth', () => {
    node = openNode('beta', { replyBudget: { perPair: 0, maxDepth: 1, countParticipants: false } });
    remember(node, 'row', 'bob');
    remember(node, 'remote', 'alice@alpha');
    // bob → alice@alpha, alice@alpha replies, bob replies again, alice@alpha replies again.
    const m1 = send(node, 'bob', ['alice@alpha']);
    const m2 = send(node, 'alice@alpha', ['bob'], { replyTo: m1.id, fromRemote: true });
    const m3 = send(node, 'bob', ['alice@alpha'], { replyTo: m2.id });
    const [plain] = node.store.acceptBatch([request('alice@alpha', ['bob'], { replyTo: m3.id })]);
    expect(plain!.ok ? null : plain!.error.code).toBe('REPLY_BUDGET');
    const [remote] = node.store.acceptBatch([request('alice@alpha', ['bob'], { replyTo: m3.id, fromRemote: true })]);
    expect(remote!.ok).toBe(true);
    expect(node.store.db.prepare('SELECT depth FROM messages WHERE id = ?').get(remote!.ok ? remote!.result.id : -1)).toEqual({ depth: 0 });
  });

  it('still refuses a recipient nobody knows here', () => {
    node = openNode('beta');
    remember(node, 'remote', 'alice@alpha');
    const [o] = node.store.acceptBatch([request('alice@alpha', ['ghost'], { fromRemote: true })]);
    expect(o!.ok ? null : o!.error.code).toBe('UNKNOWN_PEER');
    expect(count(node, 'messages')).toBe(0);
  });
});
