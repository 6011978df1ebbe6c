// hello decides who a connection is: rows by token, the operator by the operator token,
// everyone else by a free handle held by one live connection at a time (DESIGN §3).
import { statSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { MailItem } from '../../../src/protocol/methods.js';
import { runCleanups } from '../../helpers/cleanup.js';
import { connectClient, openClient, readOperatorToken, startTestHub } from '../../helpers/hub-harness.js';
import { waitUntil } from '../../helpers/wait-until.js';

afterEach(runCleanups);

describe('hello and identity', () => {
  it('a client with a row handle and the token minted for it is that row', async () => {
    const { hub, paths } = await startTestHub();
    const reg = hub.core.sessions.registerRow('builder');
    if (!reg.ok) throw new Error(reg.error.message);
    const { client } = await connectClient(paths, { session: 'builder', token: reg.token });
    expect(client.hello).toMatchObject({ session: 'builder', role: 'row' });
  });

  it('a row handle with a wrong token is refused with UNAUTHENTICATED', async () => {
    const { hub, paths } = await startTestHub();
    expect(hub.core.sessions.registerRow('builder').ok).toBe(true);
    const client = await openClient(paths);
    await expect(client.sayHello({ session: 'builder', token: 'not-the-token' })).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
  });

  it("a tokenless client claiming a row's handle is refused with SESSION_COLLISION", async () => {
    const { hub, paths } = await startTestHub();
    expect(hub.core.sessions.registerRow('builder').ok).toBe(true);
    const client = await openClient(paths);
    await expect(client.sayHello({ session: 'builder' })).rejects.toMatchObject({ code: 'SESSION_COLLISION' });
  });

  it('a free handle is held by its first live connection and freed when it disconnects', async () => {
    const { hub, paths } = await startTestHub();
    const first = await connectClient(paths, { session: 'visitor' });
    const second = await openClient(paths);
    await expect(second.sayHello({ session: 'visitor' })).rejects.toMatchObject({ code: 'SESSION_COLLISION' });

    first.client.close();
    await waitUntil(() => hub.core.sessions.peers().find((p) => p.handle === 'visitor')?.online === false, { what: 'visitor to go offline' });
    await expect(second.sayHello({ session: 'visitor' })).resolves.toMatchObject({ session: 'visitor', role: 'participant' });
  });

  it('the operator session without the operator token is refused with UNAUTHENTICATED', async () => {
    const { paths } = await startTestHub();
    const client = await openClient(paths);
    await expect(client.sayHello({ session: 'operator' })).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
    const again = await openClient(paths);
    await expect(again.sayHello({ session: 'operator', token: 'guess' })).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
  });

  it('the operator token from the 0600 operator.token file makes a client the operator', async () => {
    const { hub, paths } = await startTestHub();
    expect(statSync(paths.operatorTokenFile).mode & 0o777).toBe(0o600);
    const token = readOperatorToken(paths);
    expect(token).toBe(hub.core.sessions.operatorToken);
    const { client } = await connectClient(paths, { session: 'operator', token });
    expect(client.hello).toMatchObject({ session: 'operator', role: 'operator' });
  });

  it('a row may hold two connections at once: one waits for mail while the other sends', async () => {
    const { hub, paths } = await startTestHub();
    const reg = hub.core.sessions.registerRow('builder');
    if (!reg.ok) throw new Error(reg.error.message);
    const waiter = await connectClient(paths, { session: 'builder', token: reg.token });
    const sender = await connectClient(paths, { session: 'builder', token: reg.token });
    const bob = await connectClient(paths, { session: 'bob' });

    const waiting = waiter.client.request<{ messages: MailItem[] }>('mail.wait', { timeoutMs: 10_000 });
    await expect(sender.client.request('mail.send', { to: ['bob'], text: 'from the second connection' })).resolves.toMatchObject({
      recipients: [{ to: 'bob' }],
    });
    await bob.client.request('mail.send', { to: ['builder'], text: 'answer' });
    const { messages } = await waiting;
    expect(messages.map((m) => [m.from, m.text])).toEqual([['bob', 'answer']]);
    expect(hub.core.sessions.peers().find((p) => p.handle === 'builder')).toMatchObject({ online: true, role: 'row' });
  });
});
