// A sender-chosen messageId makes a retry after a lost answer safe (DESIGN §4).
import { afterEach, describe, expect, it } from 'vitest';
import type { SendResult } from '../../../src/protocol/methods.js';
import { runCleanups } from '../../helpers/cleanup.js';
import { connectClient, startTestHub } from '../../helpers/hub-harness.js';
import { openMailDbReadOnly } from '../../helpers/mail-db.js';
import { waitUntil } from '../../helpers/wait-until.js';

afterEach(runCleanups);

describe('idempotent retry', () => {
  it('a retry with the same messageId and content returns the same id, marked duplicate, stored once', async () => {
    const { paths } = await startTestHub();
    await connectClient(paths, { session: 'bob' });
    const { client: alice } = await connectClient(paths, { session: 'alice' });
    const params = { to: ['bob'], text: 'deploy please', messageId: 'retry-1' };
    const first = await alice.request<SendResult>('mail.send', params);
    const retry = await alice.request<SendResult>('mail.send', params);
    expect(first.duplicate).toBe(false);
    expect(retry).toMatchObject({ id: first.id, messageId: 'retry-1', duplicate: true });
    expect(retry.recipients).toEqual(first.recipients);
    const db = openMailDbReadOnly(paths);
    expect(db.countMessages({ sender: 'alice', messageId: 'retry-1' })).toBe(1);
    expect(db.deliveriesTo('bob')).toHaveLength(1);
  });

  it('a retry on a new connection after the first dropped returns the stored copy', async () => {
    const { hub, paths } = await startTestHub();
    await connectClient(paths, { session: 'bob' });
    const first = await connectClient(paths, { session: 'alice' });
    const sent = await first.client.request<SendResult>('mail.send', { to: ['bob'], text: 'once', messageId: 'retry-2' });
    first.client.destroy();
    await waitUntil(() => hub.core.sessions.peers().find((p) => p.handle === 'alice')?.online === false, { what: 'alice to go offline' });
    const { client: again } = await connectClient(paths, { session: 'alice' });
    await expect(again.request<SendResult>('mail.send', { to: ['bob'], text: 'once', messageId: 'retry-2' })).resolves.toMatchObject({
      id: sent.id,
      duplicate: true,
    });
    expect(openMailDbReadOnly(paths).countMessages({ messageId: 'retry-2' })).toBe(1);
  });

  it('the same messageId from a different sender is a different message', async () => {
    const { paths } = await startTestHub();
    await connectClient(paths, { session: 'bob' });
    const { client: alice } = await connectClient(paths, { session: 'alice' });
    const { client: carol } = await connectClient(paths, { session: 'carol' });
    const a = await alice.request<SendResult>('mail.send', { to: ['bob'], text: 'same', messageId: 'shared-id' });
    const c = await carol.request<SendResult>('mail.send', { to: ['bob'], text: 'same', messageId: 'shared-id' });
    expect(c).toMatchObject({ duplicate: false });
    expect(c.id).not.toBe(a.id);
    expect(openMailDbReadOnly(paths).countMessages({ messageId: 'shared-id' })).toBe(2);
  });

  it('the same messageId with different text is refused with MESSAGE_ID_CONFLICT', async () => {
    const { paths } = await startTestHub();
    await connectClient(paths, { session: 'bob' });
    await connectClient(paths, { session: 'carol' });
    const { client: alice } = await connectClient(paths, { session: 'alice' });
    const first = await alice.request<SendResult>('mail.send', { to: ['bob'], text: 'version one', messageId: 'conflict-1' });
    await expect(alice.request('mail.send', { to: ['bob'], text: 'version two', messageId: 'conflict-1' })).rejects.toMatchObject({
      code: 'MESSAGE_ID_CONFLICT',
      details: { id: first.id },
    });
    await expect(alice.request('mail.send', { to: ['carol'], text: 'version one', messageId: 'conflict-1' })).rejects.toMatchObject({
      code: 'MESSAGE_ID_CONFLICT',
    });
    expect(openMailDbReadOnly(paths).messages()).toMatchObject([{ message_id: 'conflict-1', text: 'version one' }]);
  });
});
