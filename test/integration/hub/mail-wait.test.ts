// mail.wait parks until mail for the caller commits or its timeout passes (DESIGN §4).
import { afterEach, describe, expect, it } from 'vitest';
import type { MailItem } from '../../../src/protocol/methods.js';
import { runCleanups } from '../../helpers/cleanup.js';
import { connectClient, startTestHub } from '../../helpers/hub-harness.js';
import { RawClient } from '../../helpers/raw-client.js';

afterEach(runCleanups);

type WaitResult = { messages: MailItem[]; timedOut: boolean };

describe('mail.wait', () => {
  it('blocks until another client sends mail, then returns it', async () => {
    const { paths } = await startTestHub();
    const bob = await connectClient(paths, { session: 'bob' });
    const { client: alice } = await connectClient(paths, { session: 'alice' });
    let settled = false;
    const waiting = bob.client.request<WaitResult>('mail.wait', { timeoutMs: 20_000 }).finally(() => {
      settled = true;
    });
    // A round trip on bob's own connection: the wait is parked by the time this answers.
    await bob.client.request('peers.list');
    expect(settled).toBe(false);
    const started = Date.now();
    await alice.request('mail.send', { to: ['bob'], text: 'wake up' });
    const r = await waiting;
    expect(Date.now() - started).toBeLessThan(5000);
    expect(r).toMatchObject({ timedOut: false, messages: [{ from: 'alice', text: 'wake up' }] });
  });

  it('returns at once when unread mail is already waiting', async () => {
    const { paths } = await startTestHub();
    const bob = await connectClient(paths, { session: 'bob' });
    const { client: alice } = await connectClient(paths, { session: 'alice' });
    await alice.request('mail.send', { to: ['bob'], text: 'already here' });
    const r = await bob.client.request<WaitResult>('mail.wait', { timeoutMs: 20_000 });
    expect(r.messages.map((m) => m.text)).toEqual(['already here']);
  });

  it('times out with an empty list when no mail comes', async () => {
    const { paths } = await startTestHub();
    const bob = await connectClient(paths, { session: 'bob' });
    const started = Date.now();
    const r = await bob.client.request<WaitResult>('mail.wait', { timeoutMs: 200 });
    expect(r).toEqual({ messages: [], timedOut: true, more: false });
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
  });

  it('a connection closed in the middle of a wait does not crash the hub, and its mail is kept', async () => {
    const { hub, paths } = await startTestHub();
    const raw = await RawClient.connect(paths.socketPath);
    await raw.hello({ session: 'bob' });
    const { id, bytes } = raw.frame('mail.wait', { timeoutMs: 20_000 });
    await raw.write(bytes);
    await raw.request('peers.list'); // the wait is parked
    raw.destroy();
    await raw.closed;

    const { client: alice } = await connectClient(paths, { session: 'alice' });
    await expect(alice.request('mail.send', { to: ['bob'], text: 'after the wait died' })).resolves.toBeDefined();
    expect(raw.lines.some((l) => l.json?.id === id)).toBe(false);
    const bob = await connectClient(paths, { session: 'bob' });
    const r = await bob.client.request<WaitResult>('mail.wait', { timeoutMs: 1000 });
    expect(r.messages.map((m) => m.text)).toEqual(['after the wait died']);
    expect(hub.core.sessions.peers().find((p) => p.handle === 'bob')?.online).toBe(true);
  });

  it('a timeoutMs above 30000 is refused with BAD_REQUEST', async () => {
    const { paths } = await startTestHub();
    const bob = await connectClient(paths, { session: 'bob' });
    await expect(bob.client.request('mail.wait', { timeoutMs: 60_000 })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
  });
});
