// A federated server's socket listens only once its federation link exists: a script that
// connects the moment the socket appears (say, restarted with its server after a crash) gets its
// handle@node mail queued for the link, never FEDERATION_OFF. No NATS is needed: the link may
// still be connecting (here it never will) and mail waits in the outbox meanwhile.
import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { HubClient } from '../../../src/client/hub-client.js';
import { deferCleanup, runCleanups } from '../../helpers/cleanup.js';
import { spawnSwb } from '../../helpers/run-swb.js';
import { createTempHome } from '../../helpers/temp-home.js';
import { waitUntil } from '../../helpers/wait-until.js';

afterEach(runCleanups);

/** A TCP port nothing listens on (bound, then closed). */
async function deadPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/** Connects as soon as the socket accepts, trying again on every turn of the event loop. */
async function firstConnection(socketPath: string, gaveUp: () => boolean): Promise<HubClient> {
  for (;;) {
    try {
      return await HubClient.open(socketPath);
    } catch (err) {
      if (gaveUp()) throw err;
      await new Promise((r) => setImmediate(r));
    }
  }
}

describe('a federated server starting', () => {
  it('takes mail for handle@node from its very first connection', async () => {
    const home = createTempHome();
    const hub = spawnSwb(['hub', '--federate', `nats://127.0.0.1:${await deadPort()}`, '--node', 'alpha'], { home });
    const client = await firstConnection(home.paths.socketPath, () => hub.hasExited());
    deferCleanup('client', () => client.destroy());
    await client.sayHello({ session: 'script' });
    const sent = await client.request<{ id: string; recipients: { to: string; state: string }[] }>('mail.send', { to: ['bob@beta'], text: 'hello across' });
    expect(sent.recipients).toEqual([expect.objectContaining({ to: 'bob@beta' })]);
    await waitUntil(() => /federation: node alpha/.test(hub.stderr()), { what: 'the hub to log its federation' });
  });
});
