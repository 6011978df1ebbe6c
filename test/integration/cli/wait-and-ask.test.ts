// The blocking commands: `swb wait` until mail or timeout, `swb ask` until the reply comes.
import { afterEach, describe, expect, it } from 'vitest';
import type { MailArrived } from '../../../src/protocol/methods.js';
import { runCleanups } from '../../helpers/cleanup.js';
import { connectClient, startTestHub } from '../../helpers/hub-harness.js';
import { runSwb, spawnSwb } from '../../helpers/run-swb.js';
import { waitUntil } from '../../helpers/wait-until.js';

afterEach(runCleanups);

describe('swb wait', () => {
  it('`swb wait --timeout 1` with no mail exits 1 and says TIMEOUT', async () => {
    const { home } = await startTestHub();
    const r = await runSwb(['wait', '--timeout', '1'], { home });
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/TIMEOUT/);
  });

  it('`swb wait` blocks until mail arrives, then prints it and exits 0', async () => {
    const { hub, home, paths } = await startTestHub();
    const waiting = spawnSwb(['wait', '--as', 'carol', '--timeout', '20'], { home });
    await waitUntil(() => hub.core.sessions.peers().some((p) => p.handle === 'carol' && p.online), { what: '`swb wait` to connect as carol' });
    expect(waiting.hasExited()).toBe(false);
    const { client: bob } = await connectClient(paths, { session: 'bob' });
    await bob.request('mail.send', { to: ['carol'], text: 'your turn' });
    const r = await waiting.exited;
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/from bob/);
    expect(r.stdout).toContain('your turn');
  });
});

describe('swb ask', () => {
  it('`swb ask @bob --timeout 10 question` prints the reply bob sends', async () => {
    const { home, paths } = await startTestHub();
    const bob = await connectClient(paths, { session: 'bob' }, { subscribe: true });
    bob.client.onPush(({ method, params }) => {
      if (method !== 'mail.arrived') return;
      const { message } = params as MailArrived;
      void bob.client.request('mail.send', { to: [message.from], text: `answer to "${message.text}": 42`, replyTo: message.id });
    });
    const r = await runSwb(['ask', '@bob', '--timeout', '10', 'what is 6 x 7?'], { home });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('answer to "what is 6 x 7?": 42');
    expect(r.stdout).toMatch(/from bob/);
  });

  it('`swb ask` leaves other mail that arrives meanwhile unseen (not marked delivered)', async () => {
    const { hub, home, paths } = await startTestHub();
    const { client: carol } = await connectClient(paths, { session: 'carol' });
    const earlier = await carol.request<{ id: number }>('mail.send', { to: ['operator'], text: 'already waiting' });
    const bob = await connectClient(paths, { session: 'bob' }, { subscribe: true });
    bob.client.onPush(({ method, params }) => {
      if (method !== 'mail.arrived') return;
      const { message } = params as MailArrived;
      void (async () => {
        await carol.request('mail.send', { to: ['operator'], text: 'arrives during the ask' });
        await bob.client.request('mail.send', { to: [message.from], text: 'the answer', replyTo: message.id });
      })();
    });
    const r = await runSwb(['ask', '@bob', '--timeout', '10', 'question'], { home });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('the answer');
    const unread = hub.store.list('operator', { unreadOnly: true, peek: true }).items;
    expect(unread.map((m) => [m.text, m.state])).toEqual([
      ['already waiting', 'accepted'],
      ['arrives during the ask', 'accepted'],
    ]);
    expect(hub.store.receipts(earlier.id)!.recipients[0]!.state).toBe('accepted');
  });
});

