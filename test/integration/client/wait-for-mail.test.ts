// waitForMail, the mail.wait loop `swb wait`, `swb ask` and the MCP `wait` tool share, against a real
// hub: it returns what the caller picks, waits on in rounds no longer than the round or the time left,
// moves its cursor past mail it passed over, and gives up at the deadline.
import { afterEach, describe, expect, it } from 'vitest';
import type { HubClient } from '../../../src/client/hub-client.js';
import { waitForMail } from '../../../src/client/wait-for-mail.js';
import type { MailItem } from '../../../src/protocol/methods.js';
import { runCleanups } from '../../helpers/cleanup.js';
import { connectClient, startTestHub } from '../../helpers/hub-harness.js';
import { waitUntil } from '../../helpers/wait-until.js';

afterEach(runCleanups);

/** The real client, with every mail.wait's params noted as it is sent. */
function recordingWaits(client: HubClient): { client: Pick<HubClient, 'request' | 'requestTimeoutMs'>; waits: Array<Record<string, unknown>> } {
  const waits: Array<Record<string, unknown>> = [];
  return {
    waits,
    client: {
      requestTimeoutMs: client.requestTimeoutMs,
      request: <T>(method: string, params: Record<string, unknown> = {}, opts: { timeoutMs?: number } = {}): Promise<T> => {
        if (method === 'mail.wait') waits.push(params);
        return client.request<T>(method, params, opts);
      },
    },
  };
}

describe('waitForMail', () => {
  it('returns the mail that arrives while it waits', async () => {
    const { paths } = await startTestHub();
    const bob = await connectClient(paths, { session: 'bob' });
    const { client: alice } = await connectClient(paths, { session: 'alice' });
    const { client, waits } = recordingWaits(bob.client);
    const got = waitForMail(client, { deadline: Date.now() + 20_000 }, (m) => m);
    await waitUntil(() => waits.length === 1, { what: 'the first mail.wait to be sent' });
    await alice.request('mail.send', { to: ['bob'], text: 'wake up' });
    const messages = await got;
    expect(messages?.map((m) => [m.from, m.text])).toEqual([['alice', 'wake up']]);
  });

  it('gives up at the deadline with undefined, in rounds no longer than roundMs, the last one the time left', async () => {
    const { paths } = await startTestHub();
    const bob = await connectClient(paths, { session: 'bob' });
    const { client, waits } = recordingWaits(bob.client);
    const started = Date.now();
    const got = await waitForMail(client, { deadline: started + 500, roundMs: 200 }, (m) => m);
    expect(got).toBeUndefined();
    expect(Date.now() - started).toBeGreaterThanOrEqual(490);
    const rounds = waits.map((w) => w.timeoutMs as number);
    expect(rounds.length).toBeGreaterThanOrEqual(3);
    expect(rounds.every((ms) => ms >= 0 && ms <= 200)).toBe(true);
    expect(rounds[0]).toBe(200);
    expect(rounds[rounds.length - 1]).toBeLessThan(200);
  });

  it('never asks the hub for a round longer than 30 s, whatever roundMs says', async () => {
    const { paths } = await startTestHub();
    const bob = await connectClient(paths, { session: 'bob' });
    const { client: alice } = await connectClient(paths, { session: 'alice' });
    await alice.request('mail.send', { to: ['bob'], text: 'already here' });
    const { client, waits } = recordingWaits(bob.client);
    const got = await waitForMail(client, { deadline: Infinity, roundMs: 90_000 }, (m) => m);
    expect(got?.map((m) => m.text)).toEqual(['already here']);
    expect(waits).toEqual([{ timeoutMs: 30_000 }]);
  });

  it('with a cursor: passes over mail pick does not want, never offers it again, leaves it unread (peek)', async () => {
    const { paths } = await startTestHub();
    const bob = await connectClient(paths, { session: 'bob' });
    const { client: alice } = await connectClient(paths, { session: 'alice' });
    const { client, waits } = recordingWaits(bob.client);
    const start = (await bob.client.ready).lastSeq;
    const offered: string[] = [];
    const got = waitForMail(client, { deadline: Date.now() + 20_000, after: start, peek: true }, (messages: MailItem[]) => {
      offered.push(...messages.map((m) => m.text));
      return messages.find((m) => m.text === 'the answer');
    });
    await alice.request('mail.send', { to: ['bob'], text: 'unrelated' });
    await waitUntil(() => waits.length >= 2, { what: 'a second round after the unrelated mail' });
    expect(waits[1]).toMatchObject({ peek: true });
    expect(waits[1]!.after as number).toBeGreaterThan(start);
    await alice.request('mail.send', { to: ['bob'], text: 'the answer' });
    const answer = await got;
    expect(answer?.text).toBe('the answer');
    expect(offered).toEqual(['unrelated', 'the answer']);
    const unread = await bob.client.request<{ messages: MailItem[] }>('mail.list', { unreadOnly: true });
    expect(unread.messages.map((m) => m.text)).toEqual(['unrelated', 'the answer']);
  });
});
