// The page's tools (src/web/page-tools.ts) against a real hub in a temp SWB_HOME, the operator port,
// a real row fleet with real ptys and a real agent supervisor: a send from the page lands in a row's
// inbox as the operator's and its receipts move in the pushes; mail to the operator is pushed (mail,
// note, alert); a read-only page is refused every mutating tool and nothing changes; bad params
// and oversized ones get typed errors; the dashboard's confirmations hold at the server; explain
// gives `swb explain`'s text.
import { afterEach, describe, expect, it } from 'vitest';
import { loadProfiles } from '../../../src/agents/load-profiles.js';
import { fleetDesk } from '../../../src/app/client-desk.js';
import { operatorPort } from '../../../src/hub/operator-port.js';
import type { RowExplainResult } from '../../../src/protocol/methods.js';
import { RowManager } from '../../../src/rows/row-manager.js';
import { followNotifySources } from '../../../src/server/notify-sources.js';
import { AgentAuditTrail } from '../../../src/supervisor/agent-audit-trail.js';
import { AgentSupervisor } from '../../../src/supervisor/agent-supervisor.js';
import { RowFleet } from '../../../src/supervisor/row-fleet.js';
import type { ServerToPage } from '../../../src/web/page-protocol.js';
import { WebPageTools } from '../../../src/web/page-tools.js';
import type { ToolMethodName, ToolPushes } from '../../../src/web/tool-protocol.js';
import { systemClock } from '../../../src/util/clock.js';
import { deferCleanup, runCleanups } from '../../helpers/cleanup.js';
import { connectClient, connectOperator, startTestHub } from '../../helpers/hub-harness.js';
import { waitUntil } from '../../helpers/wait-until.js';

afterEach(runCleanups);

const OPERATOR_PAGE = { handle: 'operator', readOnly: false };
const VIEWER_PAGE = { handle: 'operator', readOnly: true };
const SLEEPER = { file: '/bin/sh', args: ['-c', 'sleep 30'] };
/** A shell-like row: prints a `$ ` prompt and waits (the sh profile reads it as idle). */
const PROMPT_ROW = { file: '/bin/sh', args: ['-c', 'printf "ready$ "; sleep 30'] };

async function setup() {
  const { hub, paths } = await startTestHub();
  const port = operatorPort(hub.core);
  const tokens = new Map<string, string>();
  const rows = new RowManager({
    socketPath: paths.socketPath,
    mintToken: (name) => {
      const r = port.registerRow(name);
      if (!r.ok) throw new Error(r.error.message);
      tokens.set(name, r.token);
      return r.token;
    },
  });
  const agents = new AgentSupervisor({ profiles: loadProfiles({ configDir: '/nonexistent-swb-config' }), mail: port, audit: new AgentAuditTrail(null) });
  const fleet = new RowFleet({ rows, port, agents });
  const desk = fleetDesk(fleet);
  const tools = new WebPageTools({ port, desk, followNotices: (notify) => followNotifySources(notify, { agents, fleet, port, clock: systemClock }) });
  deferCleanup('page tools', () => {
    tools.dispose();
    fleet.dispose();
    agents.dispose();
    rows.dispose();
  });
  const pushes: ServerToPage[] = [];
  const page = tools.follow((m) => pushes.push(m), OPERATOR_PAGE);
  deferCleanup('page', () => page.dispose());
  const pushed = <T extends keyof ToolPushes>(topic: T): ToolPushes[T][] =>
    pushes.flatMap((m) => (m.t === 'push' && m.topic === topic ? [m.data as ToolPushes[T]] : []));
  const call = async (method: ToolMethodName | string, params?: unknown, who = OPERATOR_PAGE) => tools.handle(method, params, who);
  return { hub, paths, port, fleet, agents, desk, tools, tokens, pushes, pushed, call, page };
}

const okOf = <T = Record<string, unknown>>(r: { ok: unknown } | { error: unknown }): T => {
  if (!('ok' in r)) throw new Error(`expected ok, got ${JSON.stringify(r)}`);
  return r.ok as T;
};
const codeOf = (r: { ok: unknown } | { error: { code: string } }) => ('error' in r ? r.error.code : 'ok');

describe('page tools: mail', () => {
  it('a send from the page lands in the row’s inbox from the operator, and its receipts move in the pushes', async () => {
    const t = await setup();
    t.fleet.add({ name: 'worker', command: SLEEPER }, { cols: 40, rows: 5 });
    const sent = okOf<{ id: number; recipients: Array<{ to: string; state: string }> }>(await t.call('mail.send', { to: ['worker'], text: 'please build', kind: 'task' }));
    expect(sent.recipients).toEqual([expect.objectContaining({ to: 'worker', state: 'accepted' })]);
    // In the row's inbox, from the operator: the row itself reads it with its own token.
    const worker = await connectClient(t.paths, { session: 'worker', token: t.tokens.get('worker')! });
    const inbox = await worker.client.request<{ messages: Array<{ id: number; from: string; text: string; kind: string }> }>('mail.list', {});
    expect(inbox.messages).toEqual([expect.objectContaining({ id: sent.id, from: 'operator', text: 'please build', kind: 'task' })]);
    await worker.client.request('mail.read', { ids: [sent.id] });
    await waitUntil(() => t.pushed('receipt').some((r) => r.id === sent.id && r.to === 'worker' && r.state === 'read'), { what: 'the read receipt pushed' });
    // The page's own send is pushed as mail too (the mail view lists it), and its receipts read back.
    expect(t.pushed('mail').find((m) => m.id === sent.id)).toMatchObject({ from: 'operator', to: ['worker'], receipts: [{ to: 'worker', woken: false }] });
    const receipts = okOf<{ recipients: Array<{ to: string; state: string }> }>(await t.call('mail.receipts', { id: sent.id }));
    expect(receipts.recipients).toEqual([expect.objectContaining({ to: 'worker', state: 'read' })]);
    const history = okOf<{ items: Array<{ id: number; receipts: unknown[] }>; more: boolean }>(await t.call('mail.history', { limit: 10 }));
    expect(history.items[0]).toMatchObject({ id: sent.id, receipts: [{ to: 'worker', state: 'read', woken: false }] });
  });

  it('mail to the operator is pushed as mail, as a note of the list and as an alert; marking it read is the mail view’s rule', async () => {
    const t = await setup();
    const bot = await connectClient(t.paths, { session: 'bot' });
    const r = await bot.client.request<{ id: number }>('mail.send', { to: ['operator'], text: 'build \x1b[31mfailed\x07\nsecond line', kind: 'task' });
    await waitUntil(() => t.pushed('mail').some((m) => m.id === r.id), { what: 'the mail pushed' });
    expect(t.pushed('mail')[0]).toMatchObject({ from: 'bot', to: ['operator'], kind: 'task', text: 'build \x1b[31mfailed\x07\nsecond line' });
    // The dashboard's own note, worded as the dashboard words it.
    await waitUntil(() => t.pushed('note').length > 0, { what: 'a note pushed' });
    expect(t.pushed('note')[0]).toMatchObject({ kind: 'mail', text: '@bot → @operator [task] build ␛failed␇ (+1 line)', mailId: r.id });
    expect(okOf<{ notes: Array<{ text: string }> }>(await t.call('notes')).notes.map((n) => n.text)).toContain('@bot → @operator [task] build ␛failed␇ (+1 line)');
    await waitUntil(() => t.pushed('alert').some((a) => a.kind === 'mail'), { what: 'an alert' });
    expect(t.pushed('alert').find((a) => a.kind === 'mail')).toMatchObject({ row: 'bot', text: '@bot → you: build ␛failed␇' });
    const read = okOf<{ updated: number; for: string[] }>(await t.call('mail.markRead', { id: r.id }));
    expect(read).toEqual({ updated: 1, for: ['operator'] });
    await waitUntil(() => t.pushed('receipt').some((x) => x.id === r.id && x.state === 'read'), { what: 'read receipt' });
    expect(okOf(await t.call('mail.markRead', { id: r.id }))).toEqual({ updated: 0, for: [] });
  });

  it('peers are answered and their changes pushed once per burst', async () => {
    const t = await setup();
    await connectClient(t.paths, { session: 'alice' });
    await waitUntil(() => t.pushed('peers').some((p) => p.peers.some((x) => x.handle === 'alice' && x.online)), { what: 'peers pushed' });
    expect(okOf<{ peers: Array<{ handle: string }> }>(await t.call('peers')).peers.map((p) => p.handle)).toContain('alice');
  });

  it('the hub’s refusals pass through with their codes; sizes are bounded before anything runs', async () => {
    const t = await setup();
    expect(codeOf(await t.call('mail.send', { to: ['nobody'], text: 'hi' }))).toBe('UNKNOWN_PEER');
    expect(codeOf(await t.call('mail.send', { to: ['operator'], text: 'x'.repeat(64 * 1024) }))).toBe('MESSAGE_TOO_LARGE');
    expect(codeOf(await t.call('mail.send', { to: Array.from({ length: 257 }, (_, i) => `r${i}`), text: 'hi' }))).toBe('BAD_REQUEST');
    expect(codeOf(await t.call('mail.history', { limit: 201 }))).toBe('BAD_REQUEST');
    expect(codeOf(await t.call('row.new', { name: '', what: 'x'.repeat(5000), cwd: '' }))).toBe('BAD_REQUEST');
    expect(codeOf(await t.call('mail.markRead', { id: 2 ** 60 }))).toBe('BAD_REQUEST');
    expect(codeOf(await t.call('mail.receipts', { id: 999 }))).toBe('NOT_FOUND');
  });
});

describe('page tools: the sources followed only while a page is open', () => {
  it('the last page gone, mail is pushed to nobody and no notes are kept; the next page starts them again', async () => {
    const t = await setup();
    const bot = await connectClient(t.paths, { session: 'bot' });
    await bot.client.request('mail.send', { to: ['operator'], text: 'one' });
    await waitUntil(() => t.pushed('note').length === 1, { what: 'the first note' });
    t.page.dispose();
    await bot.client.request('mail.send', { to: ['operator'], text: 'two' });
    await waitUntil(() => t.port.unreadCount('operator') === 2, { what: 'the second mail accepted' });
    expect(t.pushed('mail').map((m) => m.text)).toEqual(['one']);
    expect(okOf<{ notes: unknown[] }>(await t.call('notes')).notes).toEqual([]);
    const again: ServerToPage[] = [];
    const next = t.tools.follow((m) => again.push(m), OPERATOR_PAGE);
    await bot.client.request('mail.send', { to: ['operator'], text: 'three' });
    await waitUntil(() => again.some((m) => m.t === 'push' && m.topic === 'mail' && (m.data as { text: string }).text === 'three'), { what: 'the next page hears mail' });
    next.dispose();
  });
});

describe('page tools: every request checked first', () => {
  const everyMethod = (t: Awaited<ReturnType<typeof setup>>) =>
    ['peers', 'mail.send', 'mail.history', 'mail.receipts', 'mail.markRead', 'notes', 'explain', 'desk', 'wake.set', 'row.new', 'row.restart', 'row.close', 'row.reopen', 'row.review', 'worktree.remove', 'parked.redeliver', 'parked.discard', 'budget.grant'].map(
      (m) => [m, t.tools.mutates(m)] as const,
    );

  it('a read-only page is refused every tool that changes something, and nothing changes', async () => {
    const t = await setup();
    t.fleet.add({ name: 'worker', command: SLEEPER, profile: 'sh' }, { cols: 40, rows: 5 });
    const mutating = everyMethod(t).filter(([, m]) => m).map(([name]) => name);
    expect(mutating.sort()).toEqual(['budget.grant', 'mail.markRead', 'mail.send', 'parked.discard', 'parked.redeliver', 'row.close', 'row.new', 'row.reopen', 'row.restart', 'wake.set', 'worktree.remove']);
    // Well-formed params for each, so only the read-only rule can refuse them.
    const params: Record<string, unknown> = {
      'budget.grant': { a: 'worker', b: 'operator' },
      'mail.markRead': { id: 1 },
      'mail.send': { to: ['worker'], text: 'from a viewer' },
      'parked.discard': { row: 'worker' },
      'parked.redeliver': { row: 'worker' },
      'row.close': { row: 'worker', confirm: true },
      'row.new': { name: 'extra', what: 'sh', cwd: '/' },
      'row.reopen': { row: 'worker' },
      'row.restart': { row: 'worker', confirm: true },
      'wake.set': { row: 'worker', policy: 'off' },
      'worktree.remove': { row: 'worker', confirm: true },
    };
    for (const method of mutating) {
      const r = await t.call(method, params[method], VIEWER_PAGE);
      expect([method, codeOf(r)]).toEqual([method, 'READ_ONLY']);
    }
    expect(t.port.unreadCount('worker')).toBe(0);
    expect(t.fleet.list().map((r) => r.name)).toEqual(['worker']);
    expect(t.fleet.get('worker')!.incarnation).toBe(1);
    expect(t.agents.policyOf('worker')).toBe('notify');
    // What only reads is answered to a viewer.
    for (const [method] of everyMethod(t).filter(([, m]) => !m)) {
      const p = method === 'explain' || method === 'row.review' ? { row: 'worker' } : method === 'mail.receipts' ? { id: 1 } : {};
      expect([method, codeOf(await t.call(method, p, VIEWER_PAGE))]).not.toEqual([method, 'READ_ONLY']);
    }
  });

  it('bad params get BAD_REQUEST naming the field; unknown methods, other credentials and prototype names are refused', async () => {
    const t = await setup();
    for (const [method] of everyMethod(t)) {
      const r = await t.call(method, { surplus: 1 });
      expect([method, codeOf(r)]).toEqual([method, 'BAD_REQUEST']);
    }
    const typed = await t.call('mail.send', { to: 'worker', text: 'hi' });
    expect(typed).toEqual({ error: { code: 'BAD_REQUEST', message: expect.stringMatching(/^mail\.send: to: /) } });
    expect(await t.call('wake.set', { row: '-bad', policy: 'auto' })).toEqual({ error: { code: 'BAD_REQUEST', message: expect.stringContaining('a handle is 1-64') } });
    for (const name of ['mail.delete', '__proto__', 'constructor', 'toString', 'x'.repeat(10_000)]) expect(codeOf(await t.call(name, {}))).toBe('UNKNOWN_METHOD');
    expect(t.tools.mutates('__proto__')).toBe(false);
    expect(codeOf(await t.call('peers', {}, { handle: 'worker', readOnly: false }))).toBe('FORBIDDEN');
    const rowPushes: unknown[] = [];
    t.tools.follow((m) => rowPushes.push(m), { handle: 'worker', readOnly: false }).dispose();
  });
});

describe('page tools: rows', () => {
  it('close and restart ask first when a program would end (CONFIRM_REQUIRED, nothing changed), then act; reopen brings a row back', async () => {
    const t = await setup();
    t.fleet.add({ name: 'worker', command: SLEEPER }, { cols: 40, rows: 5 });
    expect(codeOf(await t.call('row.close', { row: 'worker' }))).toBe('CONFIRM_REQUIRED');
    expect(codeOf(await t.call('row.restart', { row: 'worker' }))).toBe('CONFIRM_REQUIRED');
    expect(t.fleet.get('worker')!.incarnation).toBe(1);
    expect(okOf(await t.call('row.restart', { row: 'worker', confirm: true }))).toMatchObject({ row: 'worker', resumed: false, said: '@worker restarted' });
    expect(t.fleet.get('worker')!.incarnation).toBe(2);
    expect(okOf(await t.call('row.close', { row: 'worker', confirm: true }))).toMatchObject({ said: '@worker closed' });
    expect(t.fleet.has('worker')).toBe(false);
    expect(okOf<{ closed: Array<{ name: string }> }>(await t.call('desk')).closed.map((c) => c.name)).toEqual(['worker']);
    expect(codeOf(await t.call('row.close', { row: 'worker', confirm: true }))).toBe('NOT_FOUND');
    expect(okOf(await t.call('row.reopen', { row: 'worker' }))).toMatchObject({ said: '@worker reopened' });
    expect(t.fleet.has('worker')).toBe(true);
    // An exited row closes without a question (nothing would end), as on the dashboard.
    t.fleet.add({ name: 'brief', command: { file: '/bin/sh', args: ['-c', 'exit 3'] } }, { cols: 40, rows: 5 });
    await waitUntil(() => t.fleet.get('brief')!.state === 'exited', { what: 'brief exits' });
    await waitUntil(() => t.pushed('alert').some((a) => a.kind === 'exited' && a.row === 'brief'), { what: 'an exit alert' });
    expect(t.pushed('alert').find((a) => a.kind === 'exited')!.text).toBe('@brief exited with status 3');
    expect(okOf(await t.call('row.close', { row: 'brief' }))).toMatchObject({ said: '@brief closed' });
    // What the page did is in the notification list too.
    await waitUntil(() => t.pushed('note').some((n) => n.text === '@worker reopened'), { what: 'the page’s own note' });
  });

  it('explain is `swb explain`’s text; the wake policy is set and pushed; a row without a profile says so', async () => {
    const t = await setup();
    t.fleet.add({ name: 'sh1', command: PROMPT_ROW, profile: 'sh' }, { cols: 40, rows: 5 });
    t.fleet.add({ name: 'plain', command: SLEEPER }, { cols: 40, rows: 5 });
    await waitUntil(() => t.agents.stateOf('sh1')?.state === 'idle', { what: 'sh1 idle' });
    const explained = okOf<{ text: string }>(await t.call('explain', { row: 'sh1' }));
    expect(explained.text).toMatch(/^sh1: idle \(profile sh\)\n {2}rule: {5}prompt_at_cursor → idle/);
    // The same text the hub's rows.explain gives `swb explain --verbose`.
    t.port.setExplainProvider((row, verbose) => t.agents.explain(row, verbose));
    const operator = await connectOperator(t.paths);
    const cli = await operator.client.request<RowExplainResult>('rows.explain', { row: 'sh1', verbose: true });
    // (The ages in it move between the two asks: compared without them.)
    const ageless = (text: string) => text.replace(/\d+(\.\d+)? s\b/g, 'N s');
    expect(ageless(explained.text)).toBe(ageless(cli.text));
    expect(okOf<{ text: string }>(await t.call('explain', { row: 'plain' })).text).toMatch(/^plain has no agent profile/);
    expect(codeOf(await t.call('explain', { row: 'ghost' }))).toBe('NOT_FOUND');

    expect(okOf(await t.call('wake.set', { row: 'sh1', policy: 'auto' }))).toMatchObject({ policy: 'auto' });
    expect(t.agents.policyOf('sh1')).toBe('auto');
    await waitUntil(() => t.pushed('wake').some((w) => w.row === 'sh1' && w.policy === 'auto'), { what: 'wake pushed' });
    expect(codeOf(await t.call('wake.set', { row: 'plain', policy: 'auto' }))).toBe('UNAVAILABLE');
    expect(codeOf(await t.call('row.review', { row: 'sh1' }))).toBe('UNAVAILABLE');
    expect(codeOf(await t.call('worktree.remove', { row: 'sh1', confirm: true }))).toBe('UNAVAILABLE');
    expect(codeOf(await t.call('row.new', { name: 'n', what: 'sh', cwd: '/' }))).toBe('UNAVAILABLE');
  });
});
