// `events.subscribe` (swb events): the operator hears mail and receipts as they happen; a row only what
// concerns it; a tokenless participant nothing; and a subscriber that stops reading is dropped by
// its own connection's limits while the hub keeps answering everyone else.
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { runCleanups } from '../../helpers/cleanup.js';
import { connectClient, connectOperator, readOperatorToken, startTestHub } from '../../helpers/hub-harness.js';
import { waitUntil } from '../../helpers/wait-until.js';

afterEach(runCleanups);

describe('the event stream', () => {
  it('gives the operator mail and receipts, and a row its own events only', async () => {
    const { paths } = await startTestHub();
    const op = await connectOperator(paths);
    const reg = (await op.client.request('session.registerRow', { handle: 'worker' })) as { token: string };
    await op.client.request('session.registerRow', { handle: 'other' });
    const worker = await connectClient(paths, { session: 'worker', token: reg.token });
    await op.client.request('events.subscribe', {});
    await worker.client.request('events.subscribe', {});
    await expect(worker.client.request('events.subscribe', { row: 'other' })).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
    const script = await connectClient(paths, { session: 'script' });
    await expect(script.client.request('events.subscribe', {})).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });

    const toWorker = (await script.client.request('mail.send', { to: ['worker'], text: 'hi' })) as { id: number };
    await script.client.request('mail.send', { to: ['other'], text: 'not for worker' });
    await worker.client.request('mail.read', { ids: [toWorker.id] });
    const events = (log: typeof op) => log.pushes.of<Record<string, unknown>>('event');
    await waitUntil(() => events(op).filter((e) => e.kind === 'receipt' && e.state === 'read').length === 1, { what: 'the read receipt event' });
    expect(events(op)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: 'mail', id: toWorker.id, from: 'script', to: ['worker'], mailKind: 'msg' }),
        expect.objectContaining({ kind: 'mail', from: 'script', to: ['other'] }),
        expect.objectContaining({ kind: 'receipt', id: toWorker.id, to: 'worker', state: 'read' }),
      ]),
    );
    // No message text in events: they say what happened, the mail commands read it.
    expect(JSON.stringify(events(op))).not.toContain('not for worker');
    await waitUntil(() => events(worker).some((e) => e.kind === 'receipt'), { what: 'the worker to hear its receipt' });
    expect(events(worker).every((e) => e.to === 'worker' || (Array.isArray(e.to) && e.to.includes('worker')) || e.from === 'worker')).toBe(true);
    expect(events(worker).some((e) => Array.isArray(e.to) && e.to.includes('other'))).toBe(false);
  });

  it('filters by kind', async () => {
    const { paths } = await startTestHub();
    const op = await connectOperator(paths);
    await op.client.request('events.subscribe', { kinds: ['receipt'] });
    const script = await connectClient(paths, { session: 'script' });
    const bob = await connectClient(paths, { session: 'bob' });
    const sent = (await script.client.request('mail.send', { to: ['bob'], text: 'x' })) as { id: number };
    await bob.client.request('mail.read', { ids: [sent.id] });
    await waitUntil(() => op.pushes.of<{ state: string }>('event').some((e) => e.state === 'read'), { what: 'the read receipt' });
    // The mail itself was accepted before the receipt, and is not among the events.
    expect(op.pushes.of<{ kind: string }>('event').map((e) => e.kind)).toEqual(expect.arrayContaining(['receipt']));
    expect(op.pushes.of<{ kind: string }>('event').every((e) => e.kind === 'receipt')).toBe(true);
  });

  it('drops a subscriber that stops reading, and the hub keeps answering', async () => {
    const { paths } = await startTestHub({ limits: { maxConnectionBacklogBytes: 256 * 1024, maxPendingWriteBytes: 16 * 1024, stallTimeoutMs: 300, ratePerSecond: 0, maxUnread: 0 } });
    // A raw socket that says hello, subscribes, and then never reads again.
    const sock = connect(paths.socketPath);
    await new Promise<void>((r) => sock.once('connect', () => r()));
    sock.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'hello', params: { version: 1, session: 'operator', token: readOperatorToken(paths) } })}\n`);
    sock.write(`${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'events.subscribe', params: {} })}\n`);
    await new Promise((r) => setTimeout(r, 50));
    sock.pause();
    let closed = false;
    sock.on('close', () => (closed = true));
    const script = await connectClient(paths, { session: 'flood' });
    await connectClient(paths, { session: 'sink' });
    // Past what the kernel's socket buffer holds, the subscriber's backlog grows in the hub.
    for (let batch = 0; batch < 200 && !closed; batch++) {
      await Promise.all(Array.from({ length: 32 }, () => script.client.request('mail.send', { to: ['sink'], text: 'x' })));
    }
    // Whatever happened to the slow one, everyone else is answered at once.
    const t0 = Date.now();
    await script.client.request('peers.list', {});
    expect(Date.now() - t0).toBeLessThan(1000);
    // Dropped: the hub closed it (its last error is queued behind what it never read).
    sock.resume();
    await waitUntil(() => closed, { timeoutMs: 10_000, what: 'the slow subscriber connection to close' });
    sock.destroy();
  });
});
