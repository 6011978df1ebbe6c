// The receiving side of the CLI: inbox lists, read marks read, reply threads back to the sender,
// status shows the receipts (DESIGN §4, §5).
import { afterEach, describe, expect, it } from 'vitest';
import type { MailItem, ReceiptResult, SendResult } from '../../../src/protocol/methods.js';
import { runCleanups } from '../../helpers/cleanup.js';
import { connectClient, startTestHub } from '../../helpers/hub-harness.js';
import { runSwb } from '../../helpers/run-swb.js';

afterEach(runCleanups);

describe('swb inbox, read, reply and status', () => {
  it('mail from bob is listed by `swb inbox`, marked read by `swb read`, answered by `swb reply`, and `swb status` shows replied', async () => {
    const { home, paths } = await startTestHub();
    const bob = await connectClient(paths, { session: 'bob' });
    const sent = await bob.client.request<SendResult>('mail.send', { to: ['operator'], text: 'please review #42' });

    const inbox = await runSwb(['inbox'], { home });
    expect(inbox.status).toBe(0);
    expect(inbox.stdout).toMatch(new RegExp(`#${sent.id}\\s+from bob`));
    expect(inbox.stdout).toContain('please review #42');
    // Listing delivered it; only `swb read` marks it read.
    expect((await bob.client.request<ReceiptResult>('receipt.get', { id: sent.id })).recipients[0]?.state).toBe('delivered');

    const read = await runSwb(['read', `#${sent.id}`], { home });
    expect(read.status).toBe(0);
    expect(read.stdout).toMatch(/marked 1 read/);
    expect((await bob.client.request<ReceiptResult>('receipt.get', { id: sent.id })).recipients[0]?.state).toBe('read');

    const reply = await runSwb(['reply', String(sent.id), 'looks', 'good'], { home });
    expect(reply.stderr).toBe('');
    expect(reply.status).toBe(0);
    const { messages } = await bob.client.request<{ messages: MailItem[] }>('mail.list', {});
    expect(messages).toMatchObject([{ from: 'operator', text: 'looks good', replyTo: sent.id, kind: 'response' }]);

    const status = await runSwb(['status', String(sent.id)], { home });
    expect(status.status).toBe(0);
    expect(status.stdout).toMatch(/@operator: replied\s+\(accepted .*, delivered .*, read .*, replied .*\)/);
  });

  it('`swb read` of an id that is not yours exits 1 with NOT_FOUND, and a malformed id exits 2', async () => {
    const { home } = await startTestHub();
    const r = await runSwb(['read', '999'], { home });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/NOT_FOUND/);
    expect((await runSwb(['read', 'abc'], { home })).status).toBe(2);
  });
});
