// Two real stores, nodes alpha and beta, with the wire in between done by hand: alpha's outbox →
// envelopeOf → JSON → readEnvelope (as beta reads what arrives on swb.alpha.beta.m) → beta's
// applyIncoming, and beta's receipts back the same way.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mailSubject, readEnvelope } from '../../../src/federation/envelope.js';
import { closeNode, count, openNode, publish, receive, remember, send, type TestNode, type Wire } from './helpers.js';

let alpha: TestNode;
let beta: TestNode;

beforeEach(() => {
  alpha = openNode('alpha');
  beta = openNode('beta');
  remember(alpha, 'participant', 'alice', 'carol');
  remember(alpha, 'remote', 'bob@beta');
  remember(beta, 'participant', 'bob');
});

afterEach(() => {
  closeNode(alpha);
  closeNode(beta);
});

const to = (wires: Wire[], node: string) => wires.filter((w) => w.destination === node);

describe('alpha ⇄ beta through envelopes', () => {
  it('carries mail to bob@beta and bob’s read receipt back to alice', () => {
    const { id, messageId } = send(alpha, 'alice', ['bob@beta'], { text: 'hello across' });
    const out = publish(alpha);
    expect(out.map((w) => w.subject)).toEqual([mailSubject('alpha', 'beta', 'mail')]);
    expect(out[0]!.envelope).toMatchObject({ origin: 'alpha', epoch: alpha.fed.epoch, seq: expect.any(Number), prev: 0, t: 'mail', to: ['bob'] });
    expect(alpha.fed.queued().count).toBe(0);

    beta.clock.now = 2_000_000;
    const arrived = receive(beta, to(out, 'beta'));
    expect(arrived.verdicts).toEqual(['applied']);
    const [item] = beta.store.list('bob', {}).items;
    expect(item).toMatchObject({ from: 'alice@alpha', to: ['bob'], text: 'hello across', messageId });
    beta.clock.now = 2_000_100;
    beta.store.markRead('bob', [item!.id]);

    const back = publish(beta);
    expect(back.map((w) => [w.subject, w.envelope.t, (w.envelope as { state?: number }).state])).toEqual([
      ['swb.beta.alpha.r', 'receipt', 1],
      ['swb.beta.alpha.r', 'receipt', 2],
    ]);
    // The second names the first as its predecessor.
    expect(back[1]!.envelope.prev).toBe(back[0]!.envelope.seq);

    const receipts = receive(alpha, back);
    expect(receipts.verdicts).toEqual(['applied', 'applied']);
    expect(receipts.changes.map((c) => [c.to, c.state])).toEqual([
      ['bob@beta', 'delivered'],
      ['bob@beta', 'read'],
    ]);
    const r = alpha.store.receipts(id)!;
    expect(r.recipients).toEqual([expect.objectContaining({ to: 'bob@beta', state: 'read', deliveredAt: 2_000_000, readAt: 2_000_100 })]);
    expect(alpha.store.unreadCount('bob@beta')).toBe(0);
  });

  it('carries a reply back into the thread it answers', () => {
    const question = send(alpha, 'alice', ['bob@beta'], { text: 'question?' });
    receive(beta, publish(alpha));
    const [item] = beta.store.list('bob', {}).items;
    send(beta, 'bob', ['alice@alpha'], { replyTo: item!.id, text: 'answer!' });
    const back = publish(beta);
    expect(back.map((w) => w.envelope.t)).toEqual(['receipt', 'mail', 'receipt']);
    const result = receive(alpha, back);
    expect(result.verdicts).toEqual(['applied', 'applied', 'applied']);
    const [answer] = alpha.store.list('alice', { peek: true }).items;
    expect(answer).toMatchObject({ from: 'bob@beta', text: 'answer!', replyTo: question.id });
    expect(alpha.store.receipts(question.id)!.recipients[0]).toMatchObject({ to: 'bob@beta', state: 'replied' });
    expect(alpha.store.roleOf('bob@beta')).toBe('remote');
  });

  it('keeps per-pair order through reordering and a duplicate', () => {
    send(alpha, 'alice', ['bob@beta'], { text: 'a1' });
    receive(beta, publish(alpha));
    send(alpha, 'alice', ['bob@beta'], { text: 'a2' });
    send(alpha, 'carol', ['bob@beta'], { text: 'c1' });
    send(alpha, 'alice', ['bob@beta'], { text: 'a3' });
    const [e2, e3, e4] = publish(alpha);
    expect([e2, e3, e4].map((w) => [w!.envelope.prev < w!.envelope.seq, (w!.envelope as { text: string }).text])).toEqual([
      [true, 'a2'],
      [true, 'c1'],
      [true, 'a3'],
    ]);
    expect(e3!.envelope.prev).toBe(e2!.envelope.seq);

    // The third envelope arrives before the second: it waits.
    expect(receive(beta, [e3!]).verdicts).toEqual(['gap']);
    expect(count(beta, 'messages')).toBe(1);
    expect(receive(beta, [e2!]).verdicts).toEqual(['applied']);
    expect(receive(beta, [e3!]).verdicts).toEqual(['applied']);
    // Redelivered after it was applied: dropped.
    expect(receive(beta, [e2!]).verdicts).toEqual(['duplicate']);
    expect(receive(beta, [e4!, e3!]).verdicts).toEqual(['applied', 'duplicate']);

    const items = beta.store.list('bob', { peek: true }).items;
    expect(items.map((m) => m.text)).toEqual(['a1', 'a2', 'c1', 'a3']);
    expect(items.filter((m) => m.from === 'alice@alpha').map((m) => m.text)).toEqual(['a1', 'a2', 'a3']);
    expect(items.map((m) => m.seq)).toEqual([1, 2, 3, 4]);
    expect(count(beta, 'messages')).toBe(4);
  });

  it('refuses, as beta, what alpha publishes under another origin or to another node', () => {
    send(alpha, 'alice', ['bob@beta']);
    const [w] = publish(alpha);
    // Replayed on gamma's subject: gamma may not publish as alpha.
    expect(readEnvelope(w!.data, 'swb.gamma.beta.m', 'beta', 1 << 20)).toEqual({ refused: 'from gamma but names origin alpha: a node may only publish as itself' });
    // Read by a node it was not for.
    expect(readEnvelope(w!.data, w!.subject, 'gamma', 1 << 20)).toHaveProperty('refused');
    expect(readEnvelope(w!.data, w!.subject, 'beta', 1 << 20)).toHaveProperty('ok');
  });

  it('answers a recipient beta does not know with expired, back on alpha', () => {
    remember(alpha, 'remote', 'ghost@beta');
    const { id } = send(alpha, 'alice', ['bob@beta', 'ghost@beta']);
    const [w] = publish(alpha);
    expect(w!.envelope).toMatchObject({ to: ['bob', 'ghost'] });
    receive(beta, [w!]);
    const back = publish(beta);
    expect(back.map((x) => [x.envelope.t, (x.envelope as { to: string }).to, (x.envelope as { state: number }).state])).toEqual([['receipt', 'ghost', 9]]);
    receive(alpha, back);
    const states = Object.fromEntries(alpha.store.receipts(id)!.recipients.map((r) => [r.to, r.state]));
    expect(states).toEqual({ 'bob@beta': 'accepted', 'ghost@beta': 'expired' });
  });

  it('starts over when beta’s store is new: alpha’s next envelope begins beta’s chain', () => {
    send(alpha, 'alice', ['bob@beta'], { text: 'one' });
    send(alpha, 'alice', ['bob@beta'], { text: 'two' });
    const [, second] = publish(alpha);
    // beta never saw the first (its stream copy is gone): the chain starts at the second.
    expect(receive(beta, [second!]).verdicts).toEqual(['applied']);
    expect(beta.store.list('bob', { peek: true }).items.map((m) => m.text)).toEqual(['two']);
  });
});
