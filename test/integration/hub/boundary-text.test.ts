// What crosses the socket comes back as it went in (issue #9 item 15): a lone surrogate is one
// replacement character, not three; a frame of exactly the limit ending in CRLF is accepted; one
// full inbox reached through @all skips that recipient and names it, the others get the message.
import { afterEach, describe, expect, it } from 'vitest';
import type { MailItem, SendResult } from '../../../src/protocol/methods.js';
import { runCleanups } from '../../helpers/cleanup.js';
import { connectClient, startTestHub } from '../../helpers/hub-harness.js';
import { RawClient } from '../../helpers/raw-client.js';

afterEach(runCleanups);

describe('text and frames at the boundary', () => {
  it('a lone surrogate is stored and read back as one U+FFFD', async () => {
    const { paths } = await startTestHub();
    const raw = await RawClient.connect(paths.socketPath);
    await raw.hello({ session: 'alice' });
    // Written by hand: JSON.stringify would escape it the same way, but say it plainly.
    await raw.write('{"jsonrpc":"2.0","id":"s","method":"mail.send","params":{"to":["alice"],"text":"a\\ud800b\\udc00c"}}\n');
    const sent = await raw.response('s');
    expect(sent.result).toMatchObject({ recipients: [{ to: 'alice' }] });
    const list = await raw.request('mail.list', {});
    expect((list.result.messages as MailItem[]).map((m) => m.text)).toEqual(['a\uFFFDb\uFFFDc']);
  });

  it('a frame of exactly the frame limit ending in CRLF is accepted', async () => {
    const maxFrameBytes = 4096;
    const { paths } = await startTestHub({ limits: { maxFrameBytes } });
    const raw = await RawClient.connect(paths.socketPath);
    await raw.hello({ session: 'alice' });
    const head = '{"jsonrpc":"2.0","id":"x","method":"mail.send","params":{"to":["alice"],"text":"';
    const tail = '"}}';
    const frame = head + 'z'.repeat(maxFrameBytes - head.length - tail.length) + tail;
    expect(Buffer.byteLength(frame)).toBe(maxFrameBytes);
    await raw.write(`${frame}\r\n`);
    const answer = await raw.response('x');
    expect(answer.error).toBeUndefined();
    expect(answer.result).toMatchObject({ recipients: [{ to: 'alice' }] });
  });

  it('@all skips a full inbox and names it; the others get the message', async () => {
    const { paths } = await startTestHub({ limits: { maxUnread: 2 } });
    const { client: full } = await connectClient(paths, { session: 'full' });
    const { client: other } = await connectClient(paths, { session: 'other' });
    const { client: sender } = await connectClient(paths, { session: 'sender' });
    for (let i = 0; i < 2; i++) await sender.request('mail.send', { to: ['full'], text: `fill ${i}` });
    const r = await sender.request<SendResult>('mail.send', { to: ['all'], text: 'to everyone' });
    expect(r.recipients.map((x) => x.to)).toEqual(['other']);
    expect(r.skipped).toEqual([expect.objectContaining({ to: 'full', code: 'QUEUE_FULL', message: expect.stringContaining('full already has 2 unread') })]);
    expect((await other.request<{ messages: MailItem[] }>('mail.list', {})).messages.map((m) => m.text)).toEqual(['to everyone']);
    expect((await full.request<{ messages: MailItem[] }>('mail.list', {})).messages).toHaveLength(2);
  });
});
