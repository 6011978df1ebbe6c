// Answers that list mail are paged to fit one frame (issue #9 item 14): a page stops at
// maxReplyBytes with `more: true`, only what it returned is marked delivered, and `swb inbox`
// follows the pages instead of waiting on an answer too large to read.
import { afterEach, describe, expect, it } from 'vitest';
import type { MailItem } from '../../../src/protocol/methods.js';
import { runCleanups } from '../../helpers/cleanup.js';
import { connectClient, startTestHub } from '../../helpers/hub-harness.js';
import { runSwb } from '../../helpers/run-swb.js';

afterEach(runCleanups);

const BIG = 'y'.repeat(16 * 1024 - 64);

describe('paged answers', () => {
  it('a page stops at maxReplyBytes, says more, and marks only what it returned delivered', async () => {
    const { hub, paths } = await startTestHub({ limits: { ratePerSecond: 0, maxUnread: 0, maxReplyBytes: 128 * 1024 } });
    const { client } = await connectClient(paths, { session: 'bob' });
    for (let i = 0; i < 40; i++) await client.request('mail.send', { to: ['bob'], text: `${i} ${BIG}` });
    const page = await client.request<{ messages: MailItem[]; more: boolean }>('mail.list', { limit: 1000 });
    expect(page.more).toBe(true);
    expect(page.messages.length).toBeGreaterThan(0);
    expect(JSON.stringify(page).length).toBeLessThanOrEqual(128 * 1024);
    const states = (id: number) => hub.store.receipts(id)!.recipients[0]!.state;
    const last = page.messages[page.messages.length - 1]!;
    expect(states(last.id)).toBe('delivered');
    expect(states(last.id + 1)).toBe('accepted');
    const rest = await client.request<{ messages: MailItem[]; more: boolean }>('mail.list', { limit: 1000, after: last.seq });
    expect(rest.messages[0]!.id).toBe(last.id + 1);
  });

  it('swb inbox --limit 800 gets all 300 messages of 16 KB through the pages', async () => {
    const { paths, home } = await startTestHub({ limits: { ratePerSecond: 0, maxUnread: 0 } });
    (await connectClient(paths, { session: 'reader' })).client.close(); // known, so mail is kept for it
    const { client } = await connectClient(paths, { session: 'filler' });
    for (let i = 0; i < 300; i++) await client.request('mail.send', { to: ['reader'], text: `${i} ${BIG}` });
    const r = await runSwb(['inbox', '--as', 'reader', '--limit', '800', '--json'], { home, env: { SWB_SOCKET: paths.socketPath }, timeoutMs: 20_000 });
    expect(r.stderr).toBe('');
    const { messages } = JSON.parse(r.stdout) as { messages: MailItem[] };
    expect(messages.map((m) => Number(m.text.split(' ')[0]))).toEqual([...Array(300).keys()]);
  });
});
