// A row's handle belongs to the row across hub restarts (issue #9 items 4, 5): after a restart no
// row token is known yet, and a tokenless hello must not take the handle and read its mail; a row
// that registers again revokes the connections of its old token; the operator releases a handle.
import { afterEach, describe, expect, it } from 'vitest';
import { Hub } from '../../../src/hub/hub.js';
import { deferCleanup, runCleanups } from '../../helpers/cleanup.js';
import { connectClient, openClient, readOperatorToken, startTestHub } from '../../helpers/hub-harness.js';
import { waitUntil } from '../../helpers/wait-until.js';

afterEach(runCleanups);

describe('row handles across restarts', () => {
  it("after a restart a tokenless hello cannot take a row's handle or read its mail, until the operator releases it", async () => {
    const first = await startTestHub();
    const reg = first.hub.core.sessions.registerRow('row1');
    if (!reg.ok) throw new Error(reg.error.message);
    const { client: sender } = await connectClient(first.paths, { session: 'script' });
    await sender.request('mail.send', { to: ['row1'], text: 'for row1 only' });
    sender.close();
    await first.hub.stop();

    const hub = await Hub.start({ paths: first.paths });
    deferCleanup('hub', () => hub.stop());
    const squatter = await openClient(first.paths);
    await expect(squatter.sayHello({ session: 'row1' })).rejects.toMatchObject({
      code: 'SESSION_COLLISION',
      message: expect.stringContaining('swb release row1'),
    });
    // The row registers again (the dashboard relaunching it) and reads its mail with the new token.
    const again = hub.core.sessions.registerRow('row1');
    if (!again.ok) throw new Error(again.error.message);
    const { client: row } = await connectClient(first.paths, { session: 'row1', token: again.token });
    const inbox = await row.request<{ messages: Array<{ text: string }> }>('mail.list', {});
    expect(inbox.messages.map((m) => m.text)).toEqual(['for row1 only']);
    row.close();

    // The operator releases it: its token stops working and a tokenless client may take the name.
    const { client: operator } = await connectClient(first.paths, { session: 'operator', token: readOperatorToken(first.paths) });
    expect(await operator.request('session.release', { handle: 'row1' })).toEqual({ released: true });
    const visitor = await openClient(first.paths);
    await expect(visitor.sayHello({ session: 'row1' })).resolves.toMatchObject({ session: 'row1', role: 'participant' });
    const stale = await openClient(first.paths);
    await expect(stale.sayHello({ session: 'row1', token: again.token })).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
  });

  it("registering a row again closes the connections that proved its old token, with a final error", async () => {
    const { hub, paths } = await startTestHub();
    const old = hub.core.sessions.registerRow('row1');
    if (!old.ok) throw new Error(old.error.message);
    const { client: oldConn } = await connectClient(paths, { session: 'row1', token: old.token });
    const closed = new Promise<void>((resolve) => oldConn.onClose(() => resolve()));
    const fresh = hub.core.sessions.registerRow('row1');
    if (!fresh.ok) throw new Error(fresh.error.message);
    await closed;
    await expect(oldConn.request('peers.list')).rejects.toMatchObject({ code: 'UNAUTHENTICATED', message: expect.stringContaining('registered again') });
    // The old token cannot come back; the new one works.
    const retry = await openClient(paths);
    await expect(retry.sayHello({ session: 'row1', token: old.token })).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
    const { client } = await connectClient(paths, { session: 'row1', token: fresh.token });
    expect(client.hello).toMatchObject({ session: 'row1', role: 'row' });
  });

  it('the old connection stops being the row at once: mail for the row no longer reaches it', async () => {
    const { hub, paths } = await startTestHub();
    const old = hub.core.sessions.registerRow('row1');
    if (!old.ok) throw new Error(old.error.message);
    const { client: oldConn } = await connectClient(paths, { session: 'row1', token: old.token }, { subscribe: true });
    hub.core.sessions.registerRow('row1');
    await waitUntil(() => oldConn.isClosed, { what: 'the revoked connection to close' });
    expect(hub.core.sessions.peers().find((p) => p.handle === 'row1')?.online).toBe(false);
  });
});
