// Junk handles cannot grow the hub without bound (issue #9 item 10): hello no longer returns every
// handle ever seen (peers.list pages them), new tokenless names are rate-limited, tokenless senders
// share one rate bucket (rotating names does not multiply the rate), and tokenless handles nobody
// used for participantTtlHours (and with no unread mail) are forgotten.
import { afterEach, describe, expect, it } from 'vitest';
import type { PeerInfo } from '../../../src/protocol/methods.js';
import { runCleanups } from '../../helpers/cleanup.js';
import { connectClient, openClient, startTestHub } from '../../helpers/hub-harness.js';

afterEach(runCleanups);

describe('handle hygiene', () => {
  it('hello stays small however many handles the hub has seen; peers.list pages them', async () => {
    const { paths } = await startTestHub({ limits: { newHandlesPerMinute: 0 } });
    for (let i = 0; i < 600; i++) {
      const c = await openClient(paths);
      await c.sayHello({ session: `junk-${String(i).padStart(4, '0')}` });
      c.destroy();
    }
    const { client } = await connectClient(paths, { session: 'me' });
    expect(JSON.stringify(client.hello).length).toBeLessThan(2000);
    expect(client.hello).not.toHaveProperty('peers');
    const first = await client.request<{ peers: PeerInfo[]; next: string | null }>('peers.list', {});
    expect(first.peers).toHaveLength(500);
    expect(first.next).toBe(first.peers[499]!.handle);
    const second = await client.request<{ peers: PeerInfo[]; next: string | null }>('peers.list', { after: first.next });
    expect(second.next).toBeNull();
    expect(first.peers.length + second.peers.length).toBe(602); // 600 junk, me, operator
    expect(new Set([...first.peers, ...second.peers].map((p) => p.handle)).size).toBe(602);
  });

  it('new tokenless names beyond newHandlesPerMinute are RATE_LIMITED; known names still say hello', async () => {
    const { paths } = await startTestHub({ limits: { newHandlesPerMinute: 5 } });
    for (let i = 0; i < 5; i++) {
      const c = await openClient(paths);
      await c.sayHello({ session: `n${i}` });
      c.destroy();
    }
    const sixth = await openClient(paths);
    await expect(sixth.sayHello({ session: 'n5' })).rejects.toMatchObject({ code: 'RATE_LIMITED', message: expect.stringContaining('new session names') });
    // The refused hello did not bind or remember the name...
    const again = await openClient(paths);
    await expect(again.sayHello({ session: 'n0' })).resolves.toMatchObject({ session: 'n0' });
  });

  it('rotating tokenless names does not multiply the send rate: they share one bucket', async () => {
    const rate = 5;
    const { paths } = await startTestHub({ limits: { ratePerSecond: rate, newHandlesPerMinute: 0 } });
    const { client: target } = await connectClient(paths, { session: 'target' });
    let accepted = 0;
    let limited = 0;
    const started = Date.now();
    // Each name sends once: per-name buckets alone would accept all 200.
    for (let i = 0; i < 200; i++) {
      const { client } = await connectClient(paths, { session: `rot-${i}` });
      try {
        await client.request('mail.send', { to: ['target'], text: `x${i}` });
        accepted++;
      } catch (err) {
        expect(err).toMatchObject({ code: 'RATE_LIMITED' });
        limited++;
      }
      client.destroy();
    }
    const seconds = (Date.now() - started) / 1000;
    expect(limited).toBeGreaterThan(0);
    // The shared bucket: 4x one sender's rate, two seconds of burst, plus what refilled meanwhile.
    expect(accepted).toBeLessThanOrEqual(Math.ceil(rate * 4 * 2 + rate * 4 * seconds) + 1);
    target.close();
  });

  it('a retry of an accepted message is answered with its receipt, never RATE_LIMITED', async () => {
    const { paths } = await startTestHub({ limits: { ratePerSecond: 1 } });
    const { client } = await connectClient(paths, { session: 'alice' });
    const first = await client.request<{ id: number }>('mail.send', { to: ['alice'], text: 'once', messageId: 'keep-1' });
    await client.request('mail.send', { to: ['alice'], text: 'burst', messageId: 'keep-2' });
    await expect(client.request('mail.send', { to: ['alice'], text: 'over', messageId: 'keep-3' })).rejects.toMatchObject({ code: 'RATE_LIMITED' });
    await expect(client.request('mail.send', { to: ['alice'], text: 'once', messageId: 'keep-1' })).resolves.toMatchObject({ id: first.id, duplicate: true });
  });
});
