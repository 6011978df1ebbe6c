// The operator port, the one seam above the mail core: for the agent runtime unread mail is peeked
// (looking never marks it delivered), a wake is recorded beside the receipts, and new mail or a read
// tells which rows changed; for the views, marking read publishes its own receipt changes and a
// store failure comes back typed instead of thrown.
import { afterEach, describe, expect, it } from 'vitest';
import { operatorPort } from '../../../src/hub/operator-port.js';
import type { ReceiptResult } from '../../../src/protocol/methods.js';
import { runCleanups } from '../../helpers/cleanup.js';
import { connectClient, startTestHub } from '../../helpers/hub-harness.js';
import { waitUntil } from '../../helpers/wait-until.js';

afterEach(runCleanups);

describe('operatorPort', () => {
  it('lists a row’s unread mail without delivering it, records wakes, and reports which rows changed', async () => {
    const { hub, paths } = await startTestHub();
    const reg = hub.core.sessions.registerRow('agent');
    if (!reg.ok) throw new Error(reg.error.message);
    const port = operatorPort(hub.core);
    const changed: string[][] = [];
    port.onUnreadMaybeChanged((h) => changed.push([...h]));
    expect(port.unreadOf('agent')).toEqual({ messageIds: [], maxSeq: 0 });

    const tester = await connectClient(paths, { session: 'tester' });
    const a = await tester.client.request<{ id: number }>('mail.send', { to: ['agent'], text: 'one' });
    const b = await tester.client.request<{ id: number }>('mail.send', { to: ['agent'], text: 'two' });
    await waitUntil(() => changed.length >= 2, { what: 'two mail events' });
    expect(changed.slice(0, 2)).toEqual([['agent'], ['agent']]);
    expect(port.unreadOf('agent')).toEqual({ messageIds: [String(a.id), String(b.id)], maxSeq: 2 });
    const receipt = () => tester.client.request<ReceiptResult>('receipt.get', { id: a.id });
    expect((await receipt()).recipients[0]).toMatchObject({ state: 'accepted', wokenAt: null });

    port.recordWake('agent', [String(a.id), String(b.id)]);
    expect((await receipt()).recipients[0]).toMatchObject({ state: 'accepted', wokenAt: expect.any(Number) });

    const row = await connectClient(paths, { session: 'agent', token: reg.token });
    await row.client.request('mail.read', { ids: [a.id] });
    await waitUntil(() => port.unreadOf('agent').messageIds.length === 1, { what: 'one unread left' });
    expect(changed.at(-1)).toEqual(['agent']);
  });

  it('marks read for the operator and publishes the receipt change itself', async () => {
    const { hub, paths } = await startTestHub();
    const port = operatorPort(hub.core);
    const { client: alice } = await connectClient(paths, { session: 'alice' }, { subscribe: true });
    const pushes: unknown[] = [];
    alice.onPush((p) => pushes.push(p));
    const sent = await port.send({ to: ['alice'], text: 'hi' });
    if ('error' in sent) throw new Error(sent.error.message);
    const reply = await alice.request<{ id: number }>('mail.send', { to: ['operator'], text: 'back', replyTo: sent.ok.id });
    const receipts: string[] = [];
    port.onReceipt((r) => receipts.push(`${r.id}:${r.to}:${r.state}`));
    expect(await port.markRead(['operator'], reply.id)).toEqual({ ok: { updated: 1 } });
    expect(receipts).toEqual([`${reply.id}:operator:read`]);
    await waitUntil(() => pushes.some((p) => (p as { method: string }).method === 'receipt.changed'), { what: 'alice to hear her reply was read' });
  });

  it('answers a store failure with a typed value, not an exception', async () => {
    const { hub } = await startTestHub();
    const port = operatorPort(hub.core);
    hub.store.close();
    const page = port.history({});
    expect(page).toMatchObject({ error: { code: 'INTERNAL', message: expect.stringContaining('The mail history could not be read') } });
    expect(port.receipts(1)).toBeUndefined();
    expect(await port.markRead(['operator'], 1)).toMatchObject({ error: { code: 'INTERNAL' } });
  });
});
