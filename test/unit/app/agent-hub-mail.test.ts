// The agent wiring's view of the embedded hub: unread mail is peeked (looking never marks it
// delivered), a wake is recorded beside the receipts, and new mail or a read tells which rows changed.
import { afterEach, describe, expect, it } from 'vitest';
import { hubAgentMail } from '../../../src/app/agent-hub-mail.js';
import type { ReceiptResult } from '../../../src/protocol/methods.js';
import { runCleanups } from '../../helpers/cleanup.js';
import { connectClient, startTestHub } from '../../helpers/hub-harness.js';
import { waitUntil } from '../../helpers/wait-until.js';

afterEach(runCleanups);

describe('hubAgentMail', () => {
  it('lists a row’s unread mail without delivering it, records wakes, and reports which rows changed', async () => {
    const { hub, paths } = await startTestHub();
    const reg = hub.registerRow('agent');
    if (!reg.ok) throw new Error(reg.error.message);
    const port = hubAgentMail(hub);
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
});
