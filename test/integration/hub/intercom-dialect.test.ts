// The Intercom compatibility dialect (DESIGN §4): envelope clients share the socket and the store
// with JSON-RPC clients.
import { afterEach, describe, expect, it } from 'vitest';
import type { MailItem, SendResult } from '../../../src/protocol/methods.js';
import { runCleanups } from '../../helpers/cleanup.js';
import { connectClient, startTestHub } from '../../helpers/hub-harness.js';
import { openMailDbReadOnly } from '../../helpers/mail-db.js';
import { RawClient } from '../../helpers/raw-client.js';
import type { RuntimePaths } from '../../../src/hub/runtime-paths.js';

afterEach(runCleanups);

function envelope(fields: Record<string, unknown>) {
  return { id: null, type: 'chat', from_session: null, to_session: null, channel: null, reply_to: null, payload: null, timestamp: new Date().toISOString(), ...fields };
}

async function registerIntercom(paths: RuntimePaths, session: string) {
  const ic = await RawClient.connect(paths.socketPath);
  await ic.sendObject(envelope({ id: `reg-${session}`, type: 'register', from_session: session }));
  const reply = await ic.waitFor((j) => j.type === 'welcome' || j.type === 'error');
  return { ic, reply };
}

describe('intercom dialect', () => {
  it('register is answered with welcome listing the peers', async () => {
    const { paths } = await startTestHub();
    await connectClient(paths, { session: 'bob' });
    const { reply } = await registerIntercom(paths, 'legacy');
    expect(reply).toMatchObject({ type: 'welcome', to_session: 'legacy', reply_to: 'reg-legacy', payload: { session: 'legacy' } });
    const peers = (reply.payload.peers as Array<{ handle: string; online: boolean }>).map((p) => [p.handle, p.online]);
    expect(peers).toEqual(expect.arrayContaining([['bob', true], ['legacy', true]]));
  });

  it('a chat to a handle lands in the store and its JSON-RPC recipient sees it with mail.list', async () => {
    const { paths } = await startTestHub();
    const bob = await connectClient(paths, { session: 'bob' });
    const { ic } = await registerIntercom(paths, 'legacy');
    await ic.sendObject(envelope({ id: 'c-1', from_session: 'legacy', to_session: 'bob', channel: 'task', payload: { text: 'build it' } }));
    const ack = await ic.waitFor((j) => j.type === 'ack' && j.reply_to === 'c-1');
    expect(ack.payload).toMatchObject({ state: 'accepted', recipients: [{ to: 'bob' }] });
    const { messages } = await bob.client.request<{ messages: MailItem[] }>('mail.list', {});
    expect(messages).toMatchObject([{ id: ack.payload.id, from: 'legacy', kind: 'task', text: 'build it' }]);
    expect(openMailDbReadOnly(paths).countMessages({ sender: 'legacy' })).toBe(1);
  });

  it('a chat to * reaches every live session but the sender', async () => {
    const { paths } = await startTestHub();
    const bob = await connectClient(paths, { session: 'bob' });
    const carol = await connectClient(paths, { session: 'carol' });
    const { ic } = await registerIntercom(paths, 'legacy');
    await ic.sendObject(envelope({ id: 'b-1', to_session: '*', payload: 'hello all' }));
    const ack = await ic.waitFor((j) => j.type === 'ack' && j.reply_to === 'b-1');
    expect((ack.payload.recipients as Array<{ to: string }>).map((r) => r.to).sort()).toEqual(['bob', 'carol']);
    for (const c of [bob, carol]) {
      const { messages } = await c.client.request<{ messages: MailItem[] }>('mail.list', {});
      expect(messages.map((m) => [m.from, m.text])).toEqual([['legacy', 'hello all']]);
    }
    expect(ic.lines.some((l) => l.json?.type === 'chat')).toBe(false);
  });

  it('register with a handle held by a live session is answered with an error envelope: SESSION_COLLISION', async () => {
    const { paths } = await startTestHub();
    await connectClient(paths, { session: 'bob' });
    const { reply } = await registerIntercom(paths, 'bob');
    expect(reply).toMatchObject({ type: 'error', reply_to: 'reg-bob', payload: { code: 'SESSION_COLLISION' } });
  });

  it("register with a token-holding row's handle is refused with SESSION_COLLISION even while the row is offline", async () => {
    const { hub, paths } = await startTestHub();
    expect(hub.core.sessions.registerRow('builder').ok).toBe(true);
    const { reply } = await registerIntercom(paths, 'builder');
    expect(reply).toMatchObject({ type: 'error', payload: { code: 'SESSION_COLLISION' } });
  });

  it('mail for an Intercom client is pushed to it as a chat envelope', async () => {
    const { paths } = await startTestHub();
    const { ic } = await registerIntercom(paths, 'legacy');
    const { client: bob } = await connectClient(paths, { session: 'bob' });
    const sent = await bob.request<SendResult>('mail.send', { to: ['legacy'], text: 'for the old client', kind: 'data' });
    const chat = await ic.waitFor((j) => j.type === 'chat');
    expect(chat).toMatchObject({
      id: String(sent.id),
      type: 'chat',
      from_session: 'bob',
      to_session: 'legacy',
      channel: 'data',
      payload: { text: 'for the old client', kind: 'data', messageId: sent.messageId },
    });
    expect(sent.recipients).toMatchObject([{ to: 'legacy', state: 'delivered' }]);
  });

  it('a JSON-RPC frame on an Intercom connection is answered with an error envelope', async () => {
    const { paths } = await startTestHub();
    const { ic } = await registerIntercom(paths, 'legacy');
    await ic.sendObject({ jsonrpc: '2.0', id: 1, method: 'peers.list' });
    expect(await ic.waitFor((j) => j.type === 'error')).toMatchObject({ payload: { code: 'BAD_FRAME' } });
  });
});
