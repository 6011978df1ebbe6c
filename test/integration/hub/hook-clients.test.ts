// Both hook clients (issue #37) - `swb hook` in node and the native one (native/hook-client.c) - run as
// real processes, as a row's agent runs them (its SWB_SESSION/SWB_TOKEN/SWB_SOCKET, the payload on
// stdin or Codex's argument), against a real hub, through the same cases: what the hub hears (the
// event, the payload's fields, the hook's start), a hostile payload and an oversized one, Stop blocking
// for mail, a wrong token, no hub, a hub that never answers, a wrong command line, and a row found among
// the ancestors when the agent scrubbed SWB_TOKEN (the native client reads the agent's own environment
// itself, and hands deeper walks to the node one).
// And a property: for any payload bytes the native client passes the hub the fields node reads from them.
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { hookPayloadFields } from '../../../src/agents/hook-payload-fields.js';
import type { HookReport } from '../../../src/agents/hook-signal.js';
import { HOOK_PROMPT_MAX_CHARS } from '../../../src/protocol/limits.js';
import type { SendResult } from '../../../src/protocol/methods.js';
import { deferCleanup, runCleanups } from '../../helpers/cleanup.js';
import { HOOK_CLIENTS, hookClientArgv, runHook, type HookClient } from '../../helpers/hook-clients.js';
import { connectClient, connectOperator, startTestHub } from '../../helpers/hub-harness.js';
import { runSwb } from '../../helpers/run-swb.js';
import { waitUntil } from '../../helpers/wait-until.js';

afterEach(runCleanups);

/** A hub with row `worker` registered, the env its agent's hooks get, and every report the hub hears. */
async function hubWithRow() {
  const { hub, home, paths } = await startTestHub();
  const op = await connectOperator(paths);
  const { token } = await op.client.request<{ token: string }>('session.registerRow', { handle: 'worker' });
  const reports: HookReport[] = [];
  hub.core.hooks.onReport((r) => {
    if (r.handle === 'worker') reports.push(r.report);
  });
  return { hub, home, paths, reports, env: { SWB_SESSION: 'worker', SWB_TOKEN: token, SWB_SOCKET: paths.socketPath } };
}

/** A payload no agent would send: invalid UTF-8, escapes of every kind, a decoy field inside a nested value. */
function hostilePayload(): Buffer {
  return Buffer.concat([
    Buffer.from('{"session_id":"s\\"1\\\\","tool_input":{"tool_name":"Decoy","deep":[[[{"notification_type":"x"}]]],"s":"}\\"{"},'),
    Buffer.from('"notification_type":"perm\\u0000ission\\n\\ud83d\\ude00\\ud800 '),
    Buffer.from([0xff, 0xe2, 0x82, 0xed, 0xa0, 0x80, 0xc0, 0xaf]),
    Buffer.from('é","tool_name":"Ba\\"sh\\\\\\/'),
    Buffer.from([0xf0, 0x9f, 0x98]),
    Buffer.from('\u2028","":"","x":1e5,"y":[true,null,{"a":"b"}]}'),
  ]);
}

describe.each(HOOK_CLIENTS)('the %s hook client against a real hub', (client: HookClient) => {
  it('reports the event with the payload fields the hub reads and its own start; prints nothing', async () => {
    const ctx = await hubWithRow();
    const before = Date.now();
    const payload = { session_id: 's', hook_event_name: 'PreToolUse', tool_name: 'AskUserQuestion', tool_input: { questions: [{ question: 'Which?' }] } };
    const r = await runHook(client, ['pre-tool-use'], { home: ctx.home, env: ctx.env, input: JSON.stringify(payload) });
    expect(r).toMatchObject({ status: 0, stdout: '', stderr: '' });
    expect(ctx.reports).toHaveLength(1);
    expect(ctx.reports[0]).toMatchObject({ event: 'pre-tool-use', toolName: 'AskUserQuestion' });
    expect(ctx.reports[0]).not.toHaveProperty('notificationType');
    // The kernel's start of the process (10 ms ticks): not after it ran, not long before.
    expect(ctx.reports[0]!.startedAt).toBeGreaterThan(before - 1000);
    expect(ctx.reports[0]!.startedAt).toBeLessThanOrEqual(Date.now());
  });

  it("reads Codex's argument instead of stdin, and Gemini's notification type from stdin", async () => {
    const ctx = await hubWithRow();
    expect(await runHook(client, ['turn-end', '{"type":"agent-turn-complete","tool_name":"FromArg"}'], { home: ctx.home, env: ctx.env, input: '{"tool_name":"FromStdin"}' })).toMatchObject({ status: 0, stderr: '' });
    expect(await runHook(client, ['notification'], { home: ctx.home, env: ctx.env, input: '{"hook_event_name":"Notification","notification_type":"ToolPermission"}' })).toMatchObject({ status: 0, stderr: '' });
    expect(ctx.reports).toEqual([
      { event: 'turn-end', toolName: 'FromArg', startedAt: expect.any(Number) },
      { event: 'notification', notificationType: 'ToolPermission', startedAt: expect.any(Number) },
    ]);
  });

  it('a hostile payload: exit 0, and the hub hears the same fields node reads from it', async () => {
    const ctx = await hubWithRow();
    const payload = hostilePayload();
    const expected = hookPayloadFields(payload.toString('utf8'));
    // The case is only worth something if node reads fields from it at all.
    expect(expected.toolName).toMatch(/^Ba"sh\\\//);
    expect(expected.notificationType).toMatch(/^perm\u0000ission\n/);
    const r = await runHook(client, ['notification'], { home: ctx.home, env: ctx.env, input: payload });
    expect(r).toMatchObject({ status: 0, stdout: '', stderr: '' });
    expect(ctx.reports).toEqual([{ event: 'notification', ...expected, startedAt: expect.any(Number) }]);
    // A long field the hub reads is passed whole up to the hub's own cut (128 characters of three bytes each, and escapes).
    const long = JSON.stringify({ prompt: 'p'.repeat(5000), tool_name: `${'界'.repeat(100)}${'\u0001'.repeat(40)}` });
    expect(await runHook(client, ['pre-tool-use'], { home: ctx.home, env: ctx.env, input: long })).toMatchObject({ status: 0, stderr: '' });
    // The prompt (a field the hub reads too: its first line, up to its own cut) does not crowd out the tool's name.
    expect(ctx.reports.pop()).toEqual({ event: 'pre-tool-use', ...hookPayloadFields(long), startedAt: expect.any(Number) });
    expect(hookPayloadFields(long).toolName).toHaveLength(128);
    expect(hookPayloadFields(long).prompt).toHaveLength(HOOK_PROMPT_MAX_CHARS);
    // Junk, an array, and a payload that is not JSON at all are no fields.
    for (const junk of ['not json', '[1,2]', '{"tool_name":', Buffer.from([0x7b, 0x22, 0xff, 0x22])]) {
      expect(await runHook(client, ['post-tool-use'], { home: ctx.home, env: ctx.env, input: junk })).toMatchObject({ status: 0, stderr: '' });
    }
    expect(ctx.reports.slice(1)).toEqual(Array(4).fill({ event: 'post-tool-use', startedAt: expect.any(Number) }));
  });

  it('an oversized payload (2 MiB) is read up to its bound; the report still goes, and the fields before the cut are kept', async () => {
    const ctx = await hubWithRow();
    const huge = JSON.stringify({ session_id: 's', tool_name: 'Write', tool_input: { content: 'x'.repeat(2 * 1024 * 1024) } });
    const r = await runHook(client, ['pre-tool-use'], { home: ctx.home, env: ctx.env, input: huge });
    expect(r).toMatchObject({ status: 0, stdout: '', stderr: '' });
    // Node parses the whole (cut) payload and reads nothing; the native client scans its top level.
    expect(ctx.reports).toEqual([{ event: 'pre-tool-use', ...(client === 'native' ? { toolName: 'Write', sessionId: 's' } : {}), startedAt: expect.any(Number) }]);
  });

  it("stop prints Claude Code's block decision when the row has unread mail, and nothing when it has none", async () => {
    const ctx = await hubWithRow();
    const stopInput = JSON.stringify({ session_id: 's', hook_event_name: 'Stop', stop_hook_active: false });
    expect(await runHook(client, ['stop'], { home: ctx.home, env: ctx.env, input: stopInput })).toMatchObject({ status: 0, stdout: '', stderr: '' });
    const sender = await connectClient(ctx.paths, { session: 'tester' });
    const sent = await sender.client.request<SendResult>('mail.send', { to: ['worker'], text: 'a "quoted" line\nand é' });
    const r = await runHook(client, ['stop'], { home: ctx.home, env: ctx.env, input: stopInput });
    expect(r.status).toBe(0);
    expect(r.stderr).toBe('');
    const reason = `You have 1 unread message in Switchboard (#${sent.id}). Read them now with the swb inbox tool (mcp__swb__inbox) or \`swb inbox\`, act on them, and reply where asked.`;
    expect(r.stdout).toBe(`${JSON.stringify({ decision: 'block', reason })}\n`);
    expect(ctx.reports.map((x) => x.event)).toEqual(['stop', 'stop-blocked']);
  });

  it('never fails the agent: a wrong token, no hub, and a hub that never answers are one line on stderr and exit 0', async () => {
    const ctx = await hubWithRow();
    const bad = await runHook(client, ['stop'], { home: ctx.home, env: { ...ctx.env, SWB_TOKEN: 'not-the-token' }, input: '{}' });
    expect(bad).toMatchObject({ status: 0, stdout: '', stderr: 'swb hook stop: -32004: The token does not match session worker.\n' });
    const gonePath = join(mkdtempSync(join(tmpdir(), 'swb-no-hub-')), 'hub.sock');
    const gone = await runHook(client, ['user-prompt-submit'], { home: ctx.home, env: { ...ctx.env, SWB_SOCKET: gonePath }, input: '{}' });
    expect(gone).toMatchObject({ status: 0, stdout: '', stderr: `swb hook user-prompt-submit: cannot reach the hub at ${gonePath} (ENOENT)\n` });

    // A socket that takes the connection and never says a word.
    const silentPath = join(mkdtempSync(join(tmpdir(), 'swb-silent-hub-')), 'hub.sock');
    const held: Socket[] = [];
    const silent = createServer((c) => held.push(c));
    await new Promise<void>((resolve) => silent.listen(silentPath, resolve));
    deferCleanup('the silent hub', () => {
      for (const c of held) c.destroy();
      silent.close();
    });
    const start = performance.now();
    const mute = await runHook(client, ['post-tool-use'], { home: ctx.home, env: { ...ctx.env, SWB_SOCKET: silentPath }, input: '{}' });
    const tookMs = performance.now() - start;
    expect(mute).toMatchObject({ status: 0, stdout: '', stderr: `swb hook post-tool-use: the hub at ${silentPath} did not answer hook.event within 5 s\n` });
    expect(tookMs).toBeGreaterThanOrEqual(4900);
    expect(tookMs).toBeLessThan(9000);
  });

  it('a wrong command line is a usage error (2) with the CLI\'s words', async () => {
    const ctx = await hubWithRow();
    const unknown = await runHook(client, ['start'], { home: ctx.home, env: ctx.env });
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toMatch(/unknown hook "start"; the hooks are: stop, /);
    expect((await runHook(client, ['stop', '{}', 'extra'], { home: ctx.home, env: ctx.env })).status).toBe(2);
    expect(ctx.reports).toEqual([]);
  });

  it('without SWB_TOKEN (an agent that scrubs *TOKEN*), the row is found from SWB_HOOK_PARENT, the agent, as before', async () => {
    const ctx = await hubWithRow();
    // The "agent": a process whose environment holds the row's identity, as a row's program's does.
    const agent = spawn('sleep', ['30'], { env: { ...process.env, ...ctx.env }, stdio: 'ignore' });
    deferCleanup('the stand-in agent', () => {
      agent.kill('SIGKILL');
    });
    await waitUntil(() => agent.pid !== undefined, { what: 'the stand-in agent to start' });
    const env = { SWB_SESSION: 'worker', SWB_SOCKET: ctx.paths.socketPath, SWB_HOOK_PARENT: String(agent.pid) };
    const r = await runHook(client, ['notification'], { home: ctx.home, env, input: '{"notification_type":"idle_prompt"}' });
    expect(r).toMatchObject({ status: 0, stdout: '', stderr: '' });
    expect(ctx.reports).toEqual([{ event: 'notification', notificationType: 'idle_prompt', startedAt: expect.any(Number) }]);
  });
});

describe.skipIf(process.platform !== 'linux')('the native hook client without SWB_TOKEN', () => {
  /** A stand-in agent: a process started with `env`, as Gemini CLI is started with its row's. */
  async function agentWith(env: Record<string, string>): Promise<number> {
    const agent = spawn('sleep', ['30'], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: 'ignore' });
    deferCleanup('the stand-in agent', () => {
      agent.kill('SIGKILL');
    });
    await waitUntil(() => agent.pid !== undefined, { what: 'the stand-in agent to start' });
    return agent.pid!;
  }
  // The launcher it would hand over to does not exist: whatever is heard, it heard without node.
  const native = hookClientArgv('native')[0]!;
  const via = [native, '/nonexistent/swb-launcher'];

  it("reads the row from the agent's own environment (SWB_HOOK_PARENT) and reports without handing over", async () => {
    const ctx = await hubWithRow();
    const agent = await agentWith(ctx.env);
    // Gemini's redaction left SWB_SESSION and SWB_SOCKET; the socket the agent was given wins, as in node.
    const env = { SWB_SESSION: 'worker', SWB_SOCKET: '/nonexistent/hub.sock', SWB_HOOK_PARENT: String(agent) };
    const r = await runSwb(['turn-end'], { home: ctx.home, env, input: '{}', via });
    expect(r).toMatchObject({ status: 0, stdout: '', stderr: '' });
    expect(ctx.reports).toEqual([{ event: 'turn-end', startedAt: expect.any(Number) }]);
  });

  it("hands over to the node hook when the agent's environment names another row, has no token, or SWB_HOOK_PARENT is no agent", async () => {
    const ctx = await hubWithRow();
    const other = await agentWith({ ...ctx.env, SWB_SESSION: 'someone-else' });
    const tokenless = await agentWith({ SWB_SESSION: 'worker', SWB_SOCKET: ctx.paths.socketPath });
    for (const parent of [String(other), String(tokenless), '1', '0', 'x', '']) {
      const env = { SWB_SESSION: 'worker', SWB_SOCKET: ctx.paths.socketPath, SWB_HOOK_PARENT: parent };
      const r = await runSwb(['turn-end'], { home: ctx.home, env, input: '{}', via });
      expect(r.status, parent).toBe(0);
      expect(r.stderr, parent).toMatch(/swb hook turn-end: cannot run \/nonexistent\/swb-launcher \(ENOENT/);
    }
    expect(ctx.reports).toEqual([]);
  });
});

describe('the native hook client, for any payload bytes', () => {
  it('the hub hears exactly the fields node reads from the same bytes (or none where node reads none), and the agent never fails', async () => {
    const ctx = await hubWithRow();
    const text = fc.string({ unit: fc.constantFrom('a', '"', '\\', '\n', '\u0001', 'é', '😀', '\ud800', '/', '\u2028', '{', '}', ',', ':') , maxLength: 12 });
    const value = fc.oneof(text, fc.integer(), fc.constant(null), fc.dictionary(fc.constantFrom('tool_name', 'notification_type', 'x'), text), fc.array(text, { maxLength: 3 }));
    const payload = fc.record({ session_id: value, tool_name: fc.oneof(text, value), notification_type: fc.oneof(text, value), tool_input: value }, { requiredKeys: [] });
    // Some cases with bytes changed at random: invalid UTF-8, broken syntax.
    const bytes = fc.tuple(payload, fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 2 })).map(([p, edits]) => {
      const b = Buffer.from(JSON.stringify(p));
      for (const [at, byte] of edits) if (b.length > 0) b[at % b.length] = byte;
      return b;
    });
    await fc.assert(
      fc.asyncProperty(bytes, async (input) => {
        ctx.reports.length = 0;
        const r = await runHook('native', ['pre-tool-use'], { home: ctx.home, env: ctx.env, input });
        expect(r).toMatchObject({ status: 0, stdout: '', stderr: '' });
        let nodeReads: object;
        try {
          JSON.parse(input.toString('utf8'));
          nodeReads = hookPayloadFields(input.toString('utf8'));
        } catch {
          // Not JSON to node: it reads nothing; the native client may still read the fields before the break.
          return;
        }
        expect(ctx.reports).toEqual([{ event: 'pre-tool-use', ...nodeReads, startedAt: expect.any(Number) }]);
      }),
      { numRuns: 60 },
    );
  }, 120_000);
});
