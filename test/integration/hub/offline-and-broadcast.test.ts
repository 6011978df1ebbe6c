// Mail to a known but offline handle is kept for it; broadcast reaches live sessions only
// (DESIGN §5).
import { afterEach, describe, expect, it } from 'vitest';
import type { MailArrived, MailItem, SendResult } from '../../../src/protocol/methods.js';
import { runCleanups } from '../../helpers/cleanup.js';
import { connectClient, startTestHub } from '../../helpers/hub-harness.js';
import { waitUntil } from '../../helpers/wait-until.js';

afterEach(runCleanups);

describe('offline recipients', () => {
  it('mail to a known but disconnected handle is kept and listed when it reconnects', async () => {
    const { hub, paths } = await startTestHub();
    const bob = await connectClient(paths, { session: 'bob' });
    bob.client.close();
    await waitUntil(() => hub.core.sessions.peers().find((p) => p.handle === 'bob')?.online === false, { what: 'bob to go offline' });

    const { client: alice } = await connectClient(paths, { session: 'alice' });
    const sent = await alice.request<SendResult>('mail.send', { to: ['bob'], text: 'while you were out' });
    expect(sent.recipients).toEqual([{ to: 'bob', seq: 1, state: 'accepted' }]);
    expect(hub.core.sessions.peers().find((p) => p.handle === 'bob')).toMatchObject({ online: false, unread: 1 });

    const back = await connectClient(paths, { session: 'bob' });
    const { messages } = await back.client.request<{ messages: MailItem[] }>('mail.list', { unreadOnly: true });
    expect(messages).toMatchObject([{ id: sent.id, from: 'alice', text: 'while you were out', state: 'delivered' }]);
  });

  it('mail to an offline handle survives a hub restart', async () => {
    const first = await startTestHub();
    await connectClient(first.paths, { session: 'bob' });
    const { client: alice } = await connectClient(first.paths, { session: 'alice' });
    await alice.request('mail.send', { to: ['bob'], text: 'durable' });
    await first.hub.stop();

    const second = await startTestHub({ home: first.home });
    expect(second.hub.core.sessions.peers().find((p) => p.handle === 'bob')).toMatchObject({ online: false, unread: 1 });
    const bob = await connectClient(second.paths, { session: 'bob' });
    const { messages } = await bob.client.request<{ messages: MailItem[] }>('mail.list', {});
    expect(messages.map((m) => m.text)).toEqual(['durable']);
  });

  it('mail to a handle the hub has never seen is refused with UNKNOWN_PEER', async () => {
    const { paths } = await startTestHub();
    await connectClient(paths, { session: 'bob' });
    const { client: alice } = await connectClient(paths, { session: 'alice' });
    await expect(alice.request('mail.send', { to: ['bob', 'nobody'], text: 'hello?' })).rejects.toMatchObject({
      code: 'UNKNOWN_PEER',
      details: { to: 'nobody' },
    });
    // All or nothing: bob did not get the half of it either.
    expect((await alice.request<{ peers: Array<{ handle: string; unread: number }> }>('peers.list')).peers.find((p) => p.handle === 'bob')?.unread).toBe(0);
  });
});

describe('broadcast', () => {
  it('to: ["all"] reaches every live session except the sender, and no offline handle', async () => {
    const { hub, paths } = await startTestHub();
    const dave = await connectClient(paths, { session: 'dave' });
    dave.client.close();
    await waitUntil(() => hub.core.sessions.peers().find((p) => p.handle === 'dave')?.online === false, { what: 'dave to go offline' });
    const bob = await connectClient(paths, { session: 'bob' }, { subscribe: true });
    const carol = await connectClient(paths, { session: 'carol' }, { subscribe: true });
    const alice = await connectClient(paths, { session: 'alice' }, { subscribe: true });

    const sent = await alice.client.request<SendResult>('mail.send', { to: ['all'], text: 'standup in 5' });
    expect(sent.recipients.map((r) => r.to).sort()).toEqual(['bob', 'carol']);
    for (const live of [bob, carol]) {
      const [arrived] = await waitUntil(() => live.pushes.of<MailArrived>('mail.arrived').length > 0 && live.pushes.of<MailArrived>('mail.arrived'));
      expect(arrived!.message).toMatchObject({ id: sent.id, from: 'alice', text: 'standup in 5', state: 'delivered' });
    }
    expect(alice.pushes.of('mail.arrived')).toEqual([]);

    const daveBack = await connectClient(paths, { session: 'dave' });
    expect((await daveBack.client.request<{ messages: MailItem[] }>('mail.list', {})).messages).toEqual([]);
    const { messages: own } = await alice.client.request<{ messages: MailItem[] }>('mail.list', {});
    expect(own).toEqual([]);
  });
});
