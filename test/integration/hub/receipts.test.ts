// Receipts move forward only: accepted → delivered → read → replied (DESIGN §5), visible with
// timestamps through receipt.get and pushed to a subscribed sender as receipt.changed.
import { afterEach, describe, expect, it } from 'vitest';
import type { MailItem, ReceiptChanged, ReceiptResult, SendResult } from '../../../src/protocol/methods.js';
import { runCleanups } from '../../helpers/cleanup.js';
import { connectClient, startTestHub } from '../../helpers/hub-harness.js';
import { waitUntil } from '../../helpers/wait-until.js';

afterEach(runCleanups);

async function receiptOf(client: { request<T>(m: string, p?: Record<string, unknown>): Promise<T> }, id: number) {
  const r = await client.request<ReceiptResult>('receipt.get', { id });
  return r.recipients[0]!;
}

describe('receipts', () => {
  it('a receipt moves accepted → delivered (on list) → read → replied, with a timestamp for each step', async () => {
    const { paths } = await startTestHub();
    const bob = await connectClient(paths, { session: 'bob' });
    const { client: alice } = await connectClient(paths, { session: 'alice' });
    const sent = await alice.request<SendResult>('mail.send', { to: ['bob'], text: 'review #42?' });
    expect(await receiptOf(alice, sent.id)).toMatchObject({ to: 'bob', state: 'accepted', deliveredAt: null, readAt: null });

    await bob.client.request('mail.list', {});
    expect(await receiptOf(alice, sent.id)).toMatchObject({ state: 'delivered', readAt: null });

    await bob.client.request('mail.read', { ids: [sent.id] });
    expect(await receiptOf(alice, sent.id)).toMatchObject({ state: 'read', repliedAt: null });

    await bob.client.request('mail.send', { to: ['alice'], text: 'done', replyTo: sent.id });
    const final = await receiptOf(alice, sent.id);
    expect(final.state).toBe('replied');
    expect(final.acceptedAt).toBeGreaterThan(0);
    expect(final.deliveredAt).toBeGreaterThanOrEqual(final.acceptedAt);
    expect(final.readAt).toBeGreaterThanOrEqual(final.deliveredAt!);
    expect(final.repliedAt).toBeGreaterThanOrEqual(final.readAt!);
  });

  it('reading or listing a replied message again does not move its receipt back', async () => {
    const { paths } = await startTestHub();
    const bob = await connectClient(paths, { session: 'bob' });
    const { client: alice } = await connectClient(paths, { session: 'alice' });
    const sent = await alice.request<SendResult>('mail.send', { to: ['bob'], text: 'ping' });
    await bob.client.request('mail.send', { to: ['alice'], text: 'pong', replyTo: sent.id });
    const replied = await receiptOf(alice, sent.id);
    expect(replied.state).toBe('replied');

    await expect(bob.client.request('mail.read', { ids: [sent.id] })).resolves.toMatchObject({ updated: 0 });
    const { messages } = await bob.client.request<{ messages: MailItem[] }>('mail.list', {});
    expect(messages.find((m) => m.id === sent.id)?.state).toBe('replied');
    expect(await receiptOf(alice, sent.id)).toEqual(replied);
  });

  it('mail pushed to a live subscribed recipient is delivered at once', async () => {
    const { paths } = await startTestHub();
    const bob = await connectClient(paths, { session: 'bob' }, { subscribe: true });
    const { client: alice } = await connectClient(paths, { session: 'alice' });
    const sent = await alice.request<SendResult>('mail.send', { to: ['bob'], text: 'live' });
    expect(sent.recipients).toMatchObject([{ to: 'bob', state: 'delivered' }]);
    await waitUntil(() => bob.pushes.of('mail.arrived').length === 1, { what: 'the push to bob' });
    expect((await receiptOf(alice, sent.id)).deliveredAt).not.toBeNull();
  });

  it('a reply to a message the replier never received is refused with INVALID_REPLY', async () => {
    const { paths } = await startTestHub();
    await connectClient(paths, { session: 'bob' });
    const { client: carol } = await connectClient(paths, { session: 'carol' });
    const { client: alice } = await connectClient(paths, { session: 'alice' });
    const sent = await alice.request<SendResult>('mail.send', { to: ['bob'], text: 'for bob only' });
    await expect(carol.request('mail.send', { to: ['alice'], text: 'me too', replyTo: sent.id })).rejects.toMatchObject({ code: 'INVALID_REPLY' });
    await expect(carol.request('mail.send', { to: ['alice'], text: 'ghost', replyTo: 9999 })).rejects.toMatchObject({ code: 'INVALID_REPLY' });
    expect((await receiptOf(alice, sent.id)).state).toBe('accepted');
  });

  it('a subscribed sender is pushed receipt.changed for delivered, read and replied', async () => {
    const { paths } = await startTestHub();
    const bob = await connectClient(paths, { session: 'bob' });
    const alice = await connectClient(paths, { session: 'alice' }, { subscribe: true });
    const sent = await alice.client.request<SendResult>('mail.send', { to: ['bob'], text: 'tell me when' });
    await bob.client.request('mail.list', {});
    await bob.client.request('mail.read', { ids: [sent.id] });
    await bob.client.request('mail.send', { to: ['alice'], text: 'ok', replyTo: sent.id });
    const changes = await waitUntil(() => {
      const c = alice.pushes.of<ReceiptChanged>('receipt.changed').filter((x) => x.id === sent.id);
      return c.length >= 3 && c;
    }, { what: 'three receipt changes' });
    expect(changes.map((c) => [c.to, c.state])).toEqual([
      ['bob', 'delivered'],
      ['bob', 'read'],
      ['bob', 'replied'],
    ]);
  });

  it('receipt.get is refused with NOT_FOUND for someone who neither sent nor received the message', async () => {
    const { paths } = await startTestHub();
    await connectClient(paths, { session: 'bob' });
    const { client: carol } = await connectClient(paths, { session: 'carol' });
    const { client: alice } = await connectClient(paths, { session: 'alice' });
    const sent = await alice.request<SendResult>('mail.send', { to: ['bob'], text: 'private' });
    await expect(carol.request('receipt.get', { id: sent.id })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
