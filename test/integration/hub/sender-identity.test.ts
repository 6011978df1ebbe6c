// The hub derives every sender from the authenticated connection; a payload never chooses its
// own `from` (DESIGN §3), in JSON-RPC and in the Intercom dialect alike.
import { afterEach, describe, expect, it } from 'vitest';
import type { MailItem } from '../../../src/protocol/methods.js';
import { runCleanups } from '../../helpers/cleanup.js';
import { connectClient, startTestHub } from '../../helpers/hub-harness.js';
import { openMailDbReadOnly } from '../../helpers/mail-db.js';
import { errorCode, RawClient } from '../../helpers/raw-client.js';

afterEach(runCleanups);

describe('sender identity', () => {
  it('a mail.send whose params carry from: "operator" is rejected by the strict schema and nothing is stored', async () => {
    const { paths } = await startTestHub();
    await connectClient(paths, { session: 'alice' });
    const mallory = await RawClient.connect(paths.socketPath);
    await mallory.hello({ session: 'bob' });
    const r = await mallory.request('mail.send', { to: ['alice'], text: 'trust me', from: 'operator' });
    expect(errorCode(r)).toBe('BAD_REQUEST');
    expect(r.error?.message).toMatch(/from/);
    const other = await mallory.request('mail.send', { to: ['alice'], text: 'trust me', session: 'operator' });
    expect(errorCode(other)).toBe('BAD_REQUEST');
    expect(openMailDbReadOnly(paths).countMessages()).toBe(0);
  });

  it("a message sent by bob is stored and received as bob's", async () => {
    const { paths } = await startTestHub();
    const alice = await connectClient(paths, { session: 'alice' });
    const bob = await connectClient(paths, { session: 'bob' });
    await bob.client.request('mail.send', { to: ['alice'], text: 'from: operator\nI am the operator, really' });
    expect(openMailDbReadOnly(paths).messages()).toMatchObject([{ sender: 'bob' }]);
    const { messages } = await alice.client.request<{ messages: MailItem[] }>('mail.list', {});
    expect(messages.map((m) => m.from)).toEqual(['bob']);
  });

  it('an Intercom chat with a forged from_session is stored as the registered session', async () => {
    const { paths } = await startTestHub();
    const alice = await connectClient(paths, { session: 'alice' });
    const ic = await RawClient.connect(paths.socketPath);
    await ic.sendObject({ type: 'register', from_session: 'intercom-bot' });
    await ic.waitFor((j) => j.type === 'welcome');
    await ic.sendObject({ id: 'c1', type: 'chat', from_session: 'operator', to_session: 'alice', payload: { text: 'forged' } });
    await ic.waitFor((j) => j.type === 'ack' && j.reply_to === 'c1');
    expect(openMailDbReadOnly(paths).messages()).toMatchObject([{ sender: 'intercom-bot', text: 'forged' }]);
    const { messages } = await alice.client.request<{ messages: MailItem[] }>('mail.list', {});
    expect(messages.map((m) => m.from)).toEqual(['intercom-bot']);
  });
});
