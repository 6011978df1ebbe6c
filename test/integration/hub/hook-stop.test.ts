// `swb hook stop` (issue #13): an agent's end-of-turn hook, run as the real CLI inside a row (its
// SWB_SESSION/SWB_TOKEN/SWB_SOCKET, a Claude Code Stop-hook JSON on stdin) against a real hub. With
// unread mail it prints Claude Code's block decision naming the ids, records the delivery as "told by
// its hook" (the receipts stay unread), and tells the wake controller that batch is handled; a loop
// guard lets the agent stop after two blocks for the same mail; it is for rows only; and it never
// fails the agent's stop, not even when the hub is gone.
import { afterEach, describe, expect, it } from 'vitest';
import type { ReceiptChanged, ReceiptResult, SendResult } from '../../../src/protocol/methods.js';
import { runCleanups } from '../../helpers/cleanup.js';
import { connectClient, connectOperator, startTestHub, type TestClient } from '../../helpers/hub-harness.js';
import { runSwb, type SwbResult } from '../../helpers/run-swb.js';
import type { TempHome } from '../../helpers/temp-home.js';
import type { RuntimePaths } from '../../../src/hub/runtime-paths.js';
import { waitUntil } from '../../helpers/wait-until.js';

afterEach(runCleanups);

/** What Claude Code writes to a Stop hook's stdin. */
const stopInput = (stopHookActive = false) =>
  `${JSON.stringify({
    session_id: '2b7c3d1e-0000-4000-8000-000000000000',
    transcript_path: '/tmp/nonexistent-transcript.jsonl',
    cwd: '/tmp',
    permission_mode: 'default',
    hook_event_name: 'Stop',
    stop_hook_active: stopHookActive,
  })}\n`;

interface RowCtx {
  home: TempHome;
  paths: RuntimePaths;
  op: TestClient;
  env: Record<string, string>;
}

/** A hub with the operator connected and row `worker` registered (the env its program would get). */
async function hubWithRow(): Promise<RowCtx & { hub: Awaited<ReturnType<typeof startTestHub>>['hub'] }> {
  const { hub, home, paths } = await startTestHub();
  const op = await connectOperator(paths);
  const { token } = await op.client.request<{ token: string }>('session.registerRow', { handle: 'worker' });
  return { hub, home, paths, op, env: { SWB_SESSION: 'worker', SWB_TOKEN: token, SWB_SOCKET: paths.socketPath } };
}

const hookStop = (ctx: Pick<RowCtx, 'home' | 'env'>, extraArgs: string[] = [], input = stopInput()): Promise<SwbResult> =>
  runSwb(['hook', 'stop', ...extraArgs], { home: ctx.home, env: ctx.env, input });

const BLOCK_REASON = (ids: number[]) =>
  `You have ${ids.length} unread message${ids.length === 1 ? '' : 's'} in Switchboard (${ids.map((id) => `#${id}`).join(' ')}). ` +
  'Read them now with the swb inbox tool (mcp__swb__inbox) or `swb inbox`, act on them, and reply where asked.';

/** The hook's stdout as Claude Code reads it: exactly one JSON line. */
function decisionOf(r: SwbResult): { decision: string; reason: string } {
  expect(r.status).toBe(0);
  expect(r.stdout.endsWith('\n')).toBe(true);
  expect(r.stdout.trim().split('\n')).toHaveLength(1);
  return JSON.parse(r.stdout) as { decision: string; reason: string };
}

async function receiptOf(c: TestClient, id: number) {
  return (await c.client.request<ReceiptResult>('receipt.get', { id })).recipients[0]!;
}

describe('swb hook stop', () => {
  it('prints nothing and exits 0 when the row has no unread mail', async () => {
    const ctx = await hubWithRow();
    const r = await hookStop(ctx);
    expect(r).toMatchObject({ status: 0, stdout: '', stderr: '' });
  });

  it('blocks with a reason naming the unread ids; the receipts say told by its hook, still unread; the wake controller hears of it', async () => {
    const ctx = await hubWithRow();
    const told: Array<{ handle: string; maxSeq: number }> = [];
    ctx.hub.core.hooks.onDelivered((e) => told.push(e));
    const sender = await connectClient(ctx.paths, { session: 'tester' }, { subscribe: true });
    const a = await sender.client.request<SendResult>('mail.send', { to: ['worker'], text: 'first' });
    const b = await sender.client.request<SendResult>('mail.send', { to: ['worker'], text: 'second', kind: 'task' });

    const r = await hookStop(ctx);
    expect(r.stderr).toBe('');
    expect(decisionOf(r)).toEqual({ decision: 'block', reason: BLOCK_REASON([a.id, b.id]) });

    // The hook peeked: the mail is neither delivered (listed) nor read, only told of.
    for (const id of [a.id, b.id]) {
      expect(await receiptOf(sender, id)).toMatchObject({
        to: 'worker',
        state: 'accepted',
        deliveredAt: null,
        wokenAt: expect.any(Number),
        wokenBy: 'hook',
        readAt: null,
      });
    }
    expect(told).toEqual([{ handle: 'worker', maxSeq: b.recipients[0]!.seq }]);
    // The sender hears of it as it hears of a typed wake.
    await waitUntil(() => sender.pushes.of<ReceiptChanged>('receipt.changed').filter((c) => c.state === 'woken').length === 2, {
      what: 'receipt.changed (woken) for both messages',
    });

    // `swb status` says how the row was told.
    const status = await runSwb(['status', String(a.id)], { home: ctx.home });
    expect(status.status).toBe(0);
    expect(status.stdout).toMatch(/@worker: accepted\s+\(.*told by its hook /);
    const json = await runSwb(['status', String(a.id), '--json'], { home: ctx.home });
    expect((JSON.parse(json.stdout) as ReceiptResult).recipients[0]).toMatchObject({ wokenBy: 'hook', state: 'accepted' });

    // The row's own `swb inbox` (as the agent is told to run) then delivers it as usual.
    const inbox = await runSwb(['inbox'], { home: ctx.home, env: ctx.env });
    expect(inbox.stdout).toMatch(new RegExp(`#${a.id}\\s+from tester`));
    expect(await receiptOf(sender, a.id)).toMatchObject({ state: 'delivered', wokenBy: 'hook' });
  });

  it('loop guard: blocks twice for the same mail, then lets the agent stop; new mail blocks again; read mail ends it', async () => {
    const ctx = await hubWithRow();
    const told: number[] = [];
    ctx.hub.core.hooks.onDelivered((e) => told.push(e.maxSeq));
    const sender = await connectClient(ctx.paths, { session: 'tester' });
    const first = await sender.client.request<SendResult>('mail.send', { to: ['worker'], text: 'one' });

    expect(decisionOf(await hookStop(ctx))).toEqual({ decision: 'block', reason: BLOCK_REASON([first.id]) });
    // Claude Code says stop_hook_active on the stop that follows a block: the guard does not rely on it.
    expect(decisionOf(await hookStop(ctx, [], stopInput(true)))).toEqual({ decision: 'block', reason: BLOCK_REASON([first.id]) });
    const third = await hookStop(ctx, [], stopInput(true));
    expect(third).toMatchObject({ status: 0, stdout: '', stderr: '' });
    expect(await hookStop(ctx)).toMatchObject({ status: 0, stdout: '' });
    expect(told).toHaveLength(2);
    // The first block recorded the time it told the row; later ones do not move it.
    const wokenAt = (await receiptOf(sender, first.id)).wokenAt;
    expect(wokenAt).toEqual(expect.any(Number));

    // Newer mail is a new batch: blocked for again, naming everything still unread.
    const second = await sender.client.request<SendResult>('mail.send', { to: ['worker'], text: 'two' });
    expect(decisionOf(await hookStop(ctx))).toEqual({ decision: 'block', reason: BLOCK_REASON([first.id, second.id]) });
    expect(decisionOf(await hookStop(ctx))).toEqual({ decision: 'block', reason: BLOCK_REASON([first.id, second.id]) });
    expect(await hookStop(ctx)).toMatchObject({ status: 0, stdout: '' });
    expect(told).toEqual([first.recipients[0]!.seq, first.recipients[0]!.seq, second.recipients[0]!.seq, second.recipients[0]!.seq]);
    expect((await receiptOf(sender, first.id)).wokenAt).toBe(wokenAt);
    expect(await receiptOf(sender, second.id)).toMatchObject({ wokenBy: 'hook', state: 'accepted' });

    // The agent reads its mail: nothing to block for, and the guard starts over.
    const read = await runSwb(['read', String(first.id), String(second.id)], { home: ctx.home, env: ctx.env });
    expect(read.status).toBe(0);
    expect(await hookStop(ctx)).toMatchObject({ status: 0, stdout: '', stderr: '' });
    const third2 = await sender.client.request<SendResult>('mail.send', { to: ['worker'], text: 'three' });
    expect(decisionOf(await hookStop(ctx))).toEqual({ decision: 'block', reason: BLOCK_REASON([third2.id]) });
  });

  it('is for rows only: the operator and a named outsider are refused UNAUTHENTICATED, and the CLI still lets the stop go ahead', async () => {
    const ctx = await hubWithRow();
    const tester = await connectClient(ctx.paths, { session: 'tester' });
    // Both have unread mail, so a refusal is not merely "nothing to say".
    await tester.client.request('mail.send', { to: ['operator'], text: 'for the operator' });
    const outsider = await connectClient(ctx.paths, { session: 'outsider' });
    await tester.client.request('mail.send', { to: ['outsider'], text: 'for the outsider' });
    await expect(outsider.client.request('hook.stop', {})).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
    // Gone, so the CLI may speak as it.
    outsider.client.destroy();
    await waitUntil(
      async () => {
        const { peers } = await ctx.op.client.request<{ peers: Array<{ handle: string; online: boolean }> }>('peers.list', {});
        return peers.some((p) => p.handle === 'outsider' && !p.online);
      },
      { what: 'outsider to be offline' },
    );

    await expect(ctx.op.client.request('hook.stop', {})).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
    await expect(tester.client.request('hook.stop', {})).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });

    // Through the CLI: as the operator (no row env), and with --as.
    for (const [label, r] of [
      ['operator', await hookStop({ home: ctx.home, env: {} })],
      ['--as outsider', await hookStop({ home: ctx.home, env: {} }, ['--as', 'outsider'])],
    ] as const) {
      expect(r.status, label).toBe(0);
      expect(r.stdout, label).toBe('');
      expect(r.stderr, label).toMatch(/^swb hook stop: .*hook\.stop is for a row/);
      expect(r.stderr.trim().split('\n'), label).toHaveLength(1);
    }
  });

  it('never fails the stop: with the hub gone it exits 0 with one line on stderr, and starts no hub', async () => {
    const ctx = await hubWithRow();
    await ctx.hub.stop();
    const r = await hookStop(ctx);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^swb hook stop: \S.*\n$/);
    // autoStart is off: the dead socket stays dead.
    const again = await hookStop(ctx);
    expect(again).toMatchObject({ status: 0, stdout: '' });
    expect(again.stderr).toMatch(/^swb hook stop: /);
  });

  it('a wrong token or junk on stdin never fails the stop either; an unknown hook is a usage error', async () => {
    const ctx = await hubWithRow();
    const bad = await hookStop({ home: ctx.home, env: { ...ctx.env, SWB_TOKEN: 'not-the-token' } });
    expect(bad).toMatchObject({ status: 0, stdout: '' });
    expect(bad.stderr).toMatch(/^swb hook stop: /);
    // The hook's stdin is ignored but for being read: junk there changes nothing.
    expect(await hookStop(ctx, [], 'not json at all')).toMatchObject({ status: 0, stdout: '', stderr: '' });
    const unknown = await runSwb(['hook', 'start'], { home: ctx.home, env: ctx.env });
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toMatch(/unknown hook "start"/);
  });
});
