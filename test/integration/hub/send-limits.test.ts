// Limits refuse with a code instead of dropping anything (DESIGN §5): QUEUE_FULL keeps every
// unread message, RATE_LIMITED says when to retry, MESSAGE_TOO_LARGE is checked before storing.
import { afterEach, describe, expect, it } from 'vitest';
import type { MailItem, SendResult } from '../../../src/protocol/methods.js';
import { SwbError } from '../../../src/protocol/error-codes.js';
import { runCleanups } from '../../helpers/cleanup.js';
import { connectClient, startTestHub } from '../../helpers/hub-harness.js';
import { openMailDbReadOnly } from '../../helpers/mail-db.js';

afterEach(runCleanups);

async function settle<T>(p: Promise<T>): Promise<{ ok: T } | { error: SwbError }> {
  try {
    return { ok: await p };
  } catch (err) {
    if (err instanceof SwbError) return { error: err };
    throw err;
  }
}

describe('send limits', () => {
  it('a recipient with maxUnread unread messages refuses the next with QUEUE_FULL and keeps all it has', async () => {
    const { paths } = await startTestHub({ limits: { maxUnread: 3 } });
    const bob = await connectClient(paths, { session: 'bob' });
    const { client: alice } = await connectClient(paths, { session: 'alice' });
    for (const n of [1, 2, 3]) await alice.request('mail.send', { to: ['bob'], text: `m${n}` });
    await expect(alice.request('mail.send', { to: ['bob'], text: 'm4' })).rejects.toMatchObject({
      code: 'QUEUE_FULL',
      details: { to: 'bob', limit: 3 },
    });
    const { messages } = await bob.client.request<{ messages: MailItem[] }>('mail.list', { unreadOnly: true });
    expect(messages.map((m) => m.text)).toEqual(['m1', 'm2', 'm3']);
    expect(openMailDbReadOnly(paths).countMessages()).toBe(3);

    await bob.client.request('mail.read', { ids: [messages[0]!.id] });
    await expect(alice.request<SendResult>('mail.send', { to: ['bob'], text: 'm4' })).resolves.toMatchObject({ duplicate: false });
  });

  it('a sender faster than ratePerSecond is refused with RATE_LIMITED and a retry delay', async () => {
    const { paths } = await startTestHub({ limits: { ratePerSecond: 2 } });
    await connectClient(paths, { session: 'bob' });
    const { client: alice } = await connectClient(paths, { session: 'alice' });
    // The bucket holds two seconds' worth (4); eight sends at once cannot all fit.
    const outcomes = await Promise.all(Array.from({ length: 8 }, (_, i) => settle(alice.request('mail.send', { to: ['bob'], text: `burst ${i}` }))));
    const accepted = outcomes.filter((o) => 'ok' in o).length;
    const refusals = outcomes.flatMap((o) => ('error' in o ? [o.error] : []));
    expect(accepted).toBeGreaterThanOrEqual(4);
    expect(refusals.length).toBeGreaterThanOrEqual(1);
    expect(accepted + refusals.length).toBe(8);
    for (const e of refusals) {
      expect(e.code).toBe('RATE_LIMITED');
      expect(e.details?.retryAfterMs).toBeGreaterThan(0);
    }
    expect(openMailDbReadOnly(paths).countMessages({ sender: 'alice' })).toBe(accepted);
    // The limit is per sender: bob is not slowed down by alice.
    const { client: carol } = await connectClient(paths, { session: 'carol' });
    await expect(carol.request('mail.send', { to: ['bob'], text: 'hi' })).resolves.toBeDefined();
  });

  it('ratePerSecond 0 means unlimited: many sends in a burst are all accepted', async () => {
    const { paths } = await startTestHub({ limits: { ratePerSecond: 0, maxUnread: 0 } });
    await connectClient(paths, { session: 'bob' });
    const { client: alice } = await connectClient(paths, { session: 'alice' });
    const results = await Promise.all(Array.from({ length: 300 }, (_, i) => alice.request<SendResult>('mail.send', { to: ['bob'], text: `n${i}` })));
    expect(new Set(results.map((r) => r.id)).size).toBe(300);
    expect(openMailDbReadOnly(paths).countMessages()).toBe(300);
  });

  it('a text over maxMessageBytes (17 KB against 16 KiB) is refused with MESSAGE_TOO_LARGE', async () => {
    const { paths } = await startTestHub();
    await connectClient(paths, { session: 'bob' });
    const { client: alice } = await connectClient(paths, { session: 'alice' });
    await expect(alice.request('mail.send', { to: ['bob'], text: 'x'.repeat(17 * 1024) })).rejects.toMatchObject({
      code: 'MESSAGE_TOO_LARGE',
      details: { limit: 16 * 1024 },
    });
    // The limit counts UTF-8 bytes, not characters: 6000 × '€' is 18000 bytes.
    await expect(alice.request('mail.send', { to: ['bob'], text: '€'.repeat(6000) })).rejects.toMatchObject({ code: 'MESSAGE_TOO_LARGE' });
    await expect(alice.request('mail.send', { to: ['bob'], text: 'x'.repeat(16 * 1024) })).resolves.toBeDefined();
    expect(openMailDbReadOnly(paths).countMessages()).toBe(1);
  });
});
