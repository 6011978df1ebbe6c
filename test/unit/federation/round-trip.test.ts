// Two real stores, nodes alpha and beta, with the wire in between done by hand: alpha's outbox →
// groupIntoEnvelopes → JSON → readEnvelope (as beta reads what arrives on swb.alpha.beta.m) →
// beta's applyIncoming, and beta's receipts back the same way (see helpers.ts: publish, receive).
import { FIRST_RUN_PATIENCE } from '../../../src/federation/federation-store.js';
import { describe, expect, it } from 'vitest';
import { mailSubject, readEnvelope, type Item } from '../../../src/federation/envelope.js';
import { alphaAndBetaPerTest, count, publish, receive, remember, send, type TestNode, type Wire } from './helpers.js';

let alpha: TestNode;
let beta: TestNode;

alphaAndBetaPerTest({ alpha: [['participant', 'alice', 'carol'], ['remote', 'bob@beta']], beta: [['participant', 'bob']] }, (a, b) => {
  alpha = a;
  beta = b;
});

const items = (wires: Wire[]): Item[] => wires.flatMap((w) => w.envelope.items);

describe('alpha ⇄ beta through envelopes', () => {
  it('carries mail to bob@beta and bob’s read receipt back to alice', () => {
    const { id, messageId } = send(alpha, 'alice', ['bob@beta'], { text: 'hello across' });
    const out = publish(alpha);
    expect(out.map((w) => w.subject)).toEqual([mailSubject('alpha', 'beta')]);
    expect(out[0]!.envelope).toMatchObject({ origin: 'alpha', epoch: alpha.fed.epoch, prev: 0 });
    expect(items(out)).toEqual([expect.objectContaining({ t: 'mail', from: 'alice', to: ['bob'], text: 'hello across', messageId })]);
    expect(alpha.fed.queued().count).toBe(0);

    beta.clock.now = 2_000_000;
    expect(receive(beta, out).verdicts).toEqual(['applied']);
    const [item] = beta.store.list('bob', {}).items;
    expect(item).toMatchObject({ from: 'alice@alpha', to: ['bob'], text: 'hello across', messageId });
    beta.clock.now = 2_000_100;
    beta.store.markRead('bob', [item!.id]);

    const back = publish(beta);
    expect(back.map((w) => w.subject)).toEqual(['swb.beta.alpha.m']);
    expect(items(back).map((i) => [i.t, (i as { state?: number }).state])).toEqual([
      ['receipt', 1],
      ['receipt', 2],
    ]);

    const receipts = receive(alpha, back);
    expect(receipts.verdicts).toEqual(['applied']);
    expect(receipts.changes.map((c) => [c.to, c.state])).toEqual([
      ['bob@beta', 'delivered'],
      ['bob@beta', 'read'],
    ]);
    expect(alpha.store.receipts(id)!.recipients).toEqual([expect.objectContaining({ to: 'bob@beta', state: 'read', deliveredAt: 2_000_000, readAt: 2_000_100 })]);
    expect(alpha.store.unreadCount('bob@beta')).toBe(0);
    expect(beta.fed.queued().count).toBe(0);
  });

  it('carries a reply back into the thread it answers', () => {
    const question = send(alpha, 'alice', ['bob@beta'], { text: 'question?' });
    receive(beta, publish(alpha));
    const [item] = beta.store.list('bob', {}).items;
    send(beta, 'bob', ['alice@alpha'], { replyTo: item!.id, text: 'answer!' });
    const back = publish(beta);
    expect(items(back).map((i) => i.t)).toEqual(['receipt', 'mail', 'receipt']);
    expect(receive(alpha, back).verdicts).toEqual(['applied']);
    const [answer] = alpha.store.list('alice', { peek: true }).items;
    expect(answer).toMatchObject({ from: 'bob@beta', text: 'answer!', replyTo: question.id });
    expect(alpha.store.receipts(question.id)!.recipients[0]).toMatchObject({ to: 'bob@beta', state: 'replied' });
    expect(alpha.store.roleOf('bob@beta')).toBe('remote');
  });

  it('keeps per-pair order through reordering, a duplicate and a regrouped run', () => {
    send(alpha, 'alice', ['bob@beta'], { text: 'a1' });
    receive(beta, publish(alpha));
    // Published one by one: three envelopes, each chained to the one before.
    send(alpha, 'alice', ['bob@beta'], { text: 'a2' });
    const [e2] = publish(alpha);
    send(alpha, 'carol', ['bob@beta'], { text: 'c1' });
    const [e3] = publish(alpha);
    send(alpha, 'alice', ['bob@beta'], { text: 'a3' });
    const [e4] = publish(alpha);
    expect(e3!.envelope.prev).toBe(e2!.envelope.seq);
    expect(e4!.envelope.prev).toBe(e3!.envelope.seq);

    // The third envelope arrives before the second: it waits.
    expect(receive(beta, [e3!]).verdicts).toEqual(['gap']);
    expect(count(beta, 'messages')).toBe(1);
    expect(receive(beta, [e2!]).verdicts).toEqual(['applied']);
    expect(receive(beta, [e3!]).verdicts).toEqual(['applied']);
    // Redelivered after it was applied: dropped.
    expect(receive(beta, [e2!]).verdicts).toEqual(['duplicate']);
    expect(receive(beta, [e4!, e3!]).verdicts).toEqual(['applied', 'duplicate']);

    const inbox = beta.store.list('bob', { peek: true }).items;
    expect(inbox.map((m) => m.text)).toEqual(['a1', 'a2', 'c1', 'a3']);
    expect(inbox.filter((m) => m.from === 'alice@alpha').map((m) => m.text)).toEqual(['a1', 'a2', 'a3']);
    expect(inbox.map((m) => m.seq)).toEqual([1, 2, 3, 4]);
    expect(count(beta, 'messages')).toBe(4);
  });

  it('takes a run published again in other groupings without storing anything twice', () => {
    for (const t of ['x1', 'x2', 'x3']) send(alpha, 'alice', ['bob@beta'], { text: t });
    // The whole run, and (as a publisher would after losing its marker) its parts again.
    const entries = alpha.fed.pending(10);
    const whole = publish(alpha);
    expect(whole).toHaveLength(1);
    const [first, second, third] = entries.map((e) => e.id);
    const part = (prev: number, ids: number[]): Wire => {
      const env = { ...whole[0]!.envelope, prev, seq: ids[ids.length - 1]!, items: whole[0]!.envelope.items.filter((i) => ids.includes(i.id)) };
      return { ...whole[0]!, envelope: env, data: Buffer.from(JSON.stringify(env)) };
    };
    expect(receive(beta, [part(0, [first!, second!])]).verdicts).toEqual(['applied']);
    expect(receive(beta, whole).verdicts).toEqual(['applied']);
    expect(receive(beta, [part(first!, [second!, third!])]).verdicts).toEqual(['duplicate']);
    expect(beta.store.list('bob', { peek: true }).items.map((m) => m.text)).toEqual(['x1', 'x2', 'x3']);
    expect(count(beta, 'deliveries')).toBe(3);
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
    const out = publish(alpha);
    expect(items(out)).toEqual([expect.objectContaining({ to: ['bob', 'ghost'] })]);
    receive(beta, out);
    const back = publish(beta);
    expect(items(back).map((x) => [x.t, (x as { to: string }).to, (x as { state: number }).state])).toEqual([['receipt', 'ghost', 9]]);
    receive(alpha, back);
    const states = Object.fromEntries(alpha.store.receipts(id)!.recipients.map((r) => [r.to, r.state]));
    expect(states).toEqual({ 'bob@beta': 'accepted', 'ghost@beta': 'expired' });
  });

  it('starts over when beta’s store is new: alpha’s next envelope begins beta’s chain', () => {
    send(alpha, 'alice', ['bob@beta'], { text: 'one' });
    publish(alpha);
    send(alpha, 'alice', ['bob@beta'], { text: 'two' });
    const [second] = publish(alpha);
    expect(second!.envelope.prev).toBeGreaterThan(0);
    // beta never saw the first (its stream copy is gone): after waiting a few deliveries for it,
    // the chain starts at the second.
    expect(receive(beta, [second!]).verdicts).toEqual(['gap']);
    expect(receive(beta, [second!], [FIRST_RUN_PATIENCE]).verdicts).toEqual(['applied']);
    expect(beta.store.list('bob', { peek: true }).items.map((m) => m.text)).toEqual(['two']);
  });

  it('carries a burst of full-size messages in a script other than Latin', () => {
    // 16 KiB (maxMessageBytes) of three-byte characters each; 90 of them (the store's maxUnread is 100) need several envelopes.
    const text = '中'.repeat(5461);
    for (let i = 0; i < 90; i++) send(alpha, 'alice', ['bob@beta'], { text, messageId: `cjk-${i}` });
    const out = publish(alpha);
    // Each envelope must get through NATS (max_payload 1MB) and the receiver's 1 MiB check.
    for (const w of out) expect(w.data.length, `envelope ${w.envelope.prev}-${w.envelope.seq}`).toBeLessThanOrEqual(1 << 20);
    receive(beta, out);
    expect(beta.store.unreadCount('bob')).toBe(90);
  });
});
