// The reply budget between rows (issue #16): rows that mail each other in a loop stop at the budget
// with REPLY_BUDGET and nothing stored; the operator's message to either row starts a new
// continuation; a replyTo chain among rows deeper than the limit is refused; 0 means unlimited;
// the count survives a restart; the operator can grant another budget.
import { afterEach, describe, expect, it } from 'vitest';
import type { HubClient } from '../../../src/client/hub-client.js';
import { Hub, type BudgetHeld } from '../../../src/hub/hub.js';
import type { RuntimePaths } from '../../../src/hub/runtime-paths.js';
import type { HubLimits } from '../../../src/protocol/limits.js';
import type { SendResult } from '../../../src/protocol/methods.js';
import { deferCleanup, runCleanups } from '../../helpers/cleanup.js';
import { connectClient, readOperatorToken, startTestHub } from '../../helpers/hub-harness.js';
import { runSwb } from '../../helpers/run-swb.js';

afterEach(runCleanups);

async function rows(hub: Hub, paths: RuntimePaths, ...names: string[]): Promise<HubClient[]> {
  const out: HubClient[] = [];
  for (const name of names) {
    const reg = hub.core.sessions.registerRow(name);
    if (!reg.ok) throw new Error(reg.error.message);
    out.push((await connectClient(paths, { session: name, token: reg.token })).client);
  }
  return out;
}

/** a and b mail each other in turns until a send is refused; returns how many were accepted and the refusal. */
async function loop(a: HubClient, b: HubClient, max = 100): Promise<{ accepted: number; refusal: { code: string; message: string; details?: unknown } }> {
  for (let i = 0; i < max; i++) {
    const [from, to] = i % 2 === 0 ? [a, 'b'] : [b, 'a'];
    try {
      await from.request<SendResult>('mail.send', { to: [to], text: `turn ${i}` });
    } catch (err) {
      return { accepted: i, refusal: err as { code: string; message: string; details?: unknown } };
    }
  }
  throw new Error(`no refusal in ${max} messages`);
}

async function start(limits: Partial<HubLimits> = {}) {
  const t = await startTestHub({ limits: { ratePerSecond: 0, ...limits } });
  const [a, b] = await rows(t.hub, t.paths, 'a', 'b');
  const { client: operator } = await connectClient(t.paths, { session: 'operator', token: readOperatorToken(t.paths) });
  return { ...t, a: a!, b: b!, operator };
}

describe('the reply budget between rows', () => {
  it('stops a loop at the budget with REPLY_BUDGET, stores nothing refused, and tells the operator which pair', async () => {
    const { hub, a, b } = await start({ automaticReplies: 8 });
    const held: BudgetHeld[] = [];
    hub.core.sends.onHeld((h) => held.push(h));
    const r = await loop(a, b);
    expect(r.accepted).toBe(8);
    expect(r.refusal).toMatchObject({
      code: 'REPLY_BUDGET',
      message: expect.stringContaining('ask the operator to continue'),
      details: { reason: 'budget', pair: ['a', 'b'], used: 8, limit: 8, newlyHeld: true },
    });
    expect(hub.store.history({}).items).toHaveLength(8);
    // Retries are refused too, but the operator is told once per hold.
    for (const retry of [a, b]) await expect(retry.request('mail.send', { to: [retry === a ? 'b' : 'a'], text: 'again' })).rejects.toMatchObject({ code: 'REPLY_BUDGET' });
    expect(held).toEqual([expect.objectContaining({ a: 'a', b: 'b', used: 8 })]);
    expect(hub.core.sessions.peers().find((p) => p.handle === 'a')?.heldWith).toEqual(['b']);
  });

  it("the operator's message to either row resets the pair and the loop goes on to the next budget", async () => {
    const { a, b, operator } = await start({ automaticReplies: 4 });
    expect((await loop(a, b)).accepted).toBe(4);
    await operator.request('mail.send', { to: ['b'], text: 'go on' });
    expect((await loop(a, b)).accepted).toBe(4);
    // New threads or replies, either direction: all count.
    const fresh = await start({ automaticReplies: 2 });
    const first = await fresh.a.request<SendResult>('mail.send', { to: ['b'], text: 'new thread 1' });
    await fresh.b.request('mail.send', { to: ['a'], text: 'new thread 2' });
    await expect(fresh.b.request('mail.send', { to: ['a'], text: 'reply', replyTo: first.id })).rejects.toMatchObject({ code: 'REPLY_BUDGET' });
  });

  it('a retry of a stored message is not counted again', async () => {
    const { a } = await start({ automaticReplies: 2 });
    for (let i = 0; i < 5; i++) await a.request('mail.send', { to: ['b'], text: 'same', messageId: 'once' });
    await a.request('mail.send', { to: ['b'], text: 'second' });
    await expect(a.request('mail.send', { to: ['b'], text: 'third' })).rejects.toMatchObject({ code: 'REPLY_BUDGET' });
  });

  it('a replyTo chain among rows deeper than maxReplyDepth is refused, even with an unlimited budget', async () => {
    const { a, b } = await start({ automaticReplies: 0, maxReplyDepth: 3 });
    let parent = (await a.request<SendResult>('mail.send', { to: ['b'], text: 'depth 0' })).id;
    const clients = [b, a];
    for (let depth = 1; depth <= 3; depth++) {
      parent = (await clients[(depth - 1) % 2]!.request<SendResult>('mail.send', { to: [depth % 2 === 1 ? 'a' : 'b'], text: `depth ${depth}`, replyTo: parent })).id;
    }
    await expect(b.request('mail.send', { to: ['a'], text: 'depth 4', replyTo: parent })).rejects.toMatchObject({
      code: 'REPLY_BUDGET',
      details: { reason: 'depth', depth: 4, limit: 3 },
    });
  });

  it('0 means unlimited', async () => {
    const { hub, a, b } = await start({ automaticReplies: 0 });
    for (let i = 0; i < 40; i++) await (i % 2 ? b : a).request('mail.send', { to: [i % 2 ? 'a' : 'b'], text: `${i}` });
    expect(hub.store.history({}).items).toHaveLength(40);
    expect(hub.core.mail.heldPairs()).toEqual([]);
  });

  it('mail from or to a script is outside the budget, unless budgetParticipants is set', async () => {
    const { a, paths } = await start({ automaticReplies: 2 });
    const { client: script } = await connectClient(paths, { session: 'script' });
    for (let i = 0; i < 6; i++) {
      await a.request('mail.send', { to: ['script'], text: `${i}` });
      await script.request('mail.send', { to: ['a'], text: `${i}` });
    }
    const strict = await start({ automaticReplies: 2, budgetParticipants: true });
    const { client: s2 } = await connectClient(strict.paths, { session: 'script' });
    await strict.a.request('mail.send', { to: ['script'], text: '1' });
    await s2.request('mail.send', { to: ['a'], text: '2' });
    await expect(strict.a.request('mail.send', { to: ['script'], text: '3' })).rejects.toMatchObject({ code: 'REPLY_BUDGET' });
  });

  it('the count survives a restart, and swb grant gives the pair another budget', async () => {
    const { hub, paths, home, a, b } = await start({ automaticReplies: 3 });
    expect((await loop(a, b)).accepted).toBe(3);
    a.close();
    b.close();
    await hub.stop();

    const again = await Hub.start({ paths, limits: { ratePerSecond: 0, automaticReplies: 3 } });
    deferCleanup('hub', () => again.stop());
    const [a2, b2] = await rows(again, paths, 'a', 'b');
    await expect(b2!.request('mail.send', { to: ['a'], text: 'after restart' })).rejects.toMatchObject({ code: 'REPLY_BUDGET' });
    const status = await runSwb(['status'], { home, env: { SWB_SOCKET: paths.socketPath } });
    expect(status.stdout).toMatch(/^held: @a ↔ @b, 3 messages \(budget 3\) since .*; swb grant a b, or write to either/);

    const granted = await runSwb(['grant', '@a', '@b'], { home, env: { SWB_SOCKET: paths.socketPath } });
    expect(granted.stderr).toBe('');
    expect(granted.stdout).toContain('@a ↔ @b: a new budget of 3 messages');
    expect((await loop(a2!, b2!)).accepted).toBe(3);
  });
});
