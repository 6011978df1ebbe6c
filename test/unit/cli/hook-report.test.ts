// The small `swb hook` program (src/cli/hook-report.ts) against a real Unix socket that answers as the
// hub would: the frames it writes (hello with the row's token, then one request with the payload's
// fields and its start time), the stop decision it prints, the payload read from a file descriptor,
// and the callers it leaves to the CLI (flags, no row).
import { closeSync, mkdtempSync, openSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hookPayloadFields } from '../../../src/agents/hook-payload-fields.js';
import { runHookReport } from '../../../src/cli/hook-report.js';
import { HOOK_PROMPT_MAX_CHARS } from '../../../src/protocol/limits.js';

const servers: Server[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
});

interface Frame {
  id: number;
  method: string;
  params: Record<string, unknown>;
}

/** A socket that records each request and answers it with `answer(frame)` (undefined: no answer). */
async function fakeHub(answer: (f: Frame) => unknown): Promise<{ path: string; frames: Frame[] }> {
  const path = join(mkdtempSync(join(tmpdir(), 'swb-hook-report-')), 'hub.sock');
  const frames: Frame[] = [];
  const server = createServer((c) => {
    let buf = '';
    c.setEncoding('utf8');
    c.on('data', (d: string) => {
      buf += d;
      for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
        const f = JSON.parse(buf.slice(0, nl)) as Frame;
        buf = buf.slice(nl + 1);
        frames.push(f);
        const a = answer(f);
        if (a !== undefined) c.write(`${JSON.stringify({ jsonrpc: '2.0', id: f.id, ...(a as object) })}\n`);
      }
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(path, r));
  return { path, frames };
}

/** A file holding `text`, opened for reading (its fd stands in for the hook's stdin). */
function payloadFd(text: string): number {
  const file = join(mkdtempSync(join(tmpdir(), 'swb-hook-payload-')), 'payload.json');
  writeFileSync(file, text);
  return openSync(file, 'r');
}

function run(argv: string[], env: NodeJS.ProcessEnv, stdinText = '') {
  const out: string[] = [];
  const err: string[] = [];
  const fd = payloadFd(stdinText);
  const done = runHookReport({ argv, env, stdinFd: fd, stdout: (t) => out.push(t), stderr: (t) => err.push(t) }).finally(() => closeSync(fd));
  return { done, out, err };
}

const rowEnv = (socket: string) => ({ SWB_SESSION: 'worker', SWB_TOKEN: 'tok-1', SWB_SOCKET: socket });

describe('swb hook, the small program', () => {
  it('writes hello with the row token, then hook.event with the payload fields and its start time, and prints nothing', async () => {
    const hub = await fakeHub((f) => ({ result: f.method === 'hello' ? { session: 'worker' } : { reported: true } }));
    const before = Date.now();
    const r = run(['pre-tool-use'], rowEnv(hub.path), JSON.stringify({ session_id: 's', tool_name: 'AskUserQuestion', tool_input: { q: 1 } }));
    expect(await r.done).toBe(0);
    expect(r.out).toEqual([]);
    expect(r.err).toEqual([]);
    expect(hub.frames.map((f) => f.method)).toEqual(['hello', 'hook.event']);
    expect(hub.frames[0]!.params).toEqual({ version: 1, session: 'worker', token: 'tok-1', client: 'hook' });
    const ev = hub.frames[1]!.params;
    expect(ev).toMatchObject({ event: 'pre-tool-use', toolName: 'AskUserQuestion' });
    // Its own start: before this test asked for it, never after.
    expect(ev.startedAt).toBeLessThanOrEqual(before + 1);
    expect(ev.startedAt).toBeGreaterThan(before - 600_000);
  });

  it("reads Codex's notify JSON from its argument, and Gemini's notification type from stdin", async () => {
    const hub = await fakeHub(() => ({ result: {} }));
    expect(await run(['turn-end', '{"type":"agent-turn-complete","turn-id":"1"}'], rowEnv(hub.path), 'ignored').done).toBe(0);
    expect(await run(['notification'], rowEnv(hub.path), '{"hook_event_name":"Notification","notification_type":"ToolPermission"}').done).toBe(0);
    const events = hub.frames.filter((f) => f.method === 'hook.event').map((f) => f.params);
    expect(events[0]).toMatchObject({ event: 'turn-end' });
    expect(events[0]).not.toHaveProperty('notificationType');
    expect(events[1]).toMatchObject({ event: 'notification', notificationType: 'ToolPermission' });
  });

  it("stop asks hook.stop and prints Claude's block decision only when the hub says block", async () => {
    let block = true;
    const hub = await fakeHub((f) => ({ result: f.method === 'hello' ? {} : { block, reason: 'You have 1 unread message.' } }));
    const blocked = run(['stop'], rowEnv(hub.path), '{}');
    expect(await blocked.done).toBe(0);
    expect(blocked.out.join('')).toBe(`${JSON.stringify({ decision: 'block', reason: 'You have 1 unread message.' })}\n`);
    block = false;
    const free = run(['stop'], rowEnv(hub.path), '{}');
    expect(await free.done).toBe(0);
    expect(free.out).toEqual([]);
    expect(hub.frames.filter((f) => f.id === 2).map((f) => f.method)).toEqual(['hook.stop', 'hook.stop']);
  });

  it('never fails the agent: a refused hello, a closed socket and no hub at all are one line on stderr and exit 0', async () => {
    const refusing = await fakeHub((f) => (f.method === 'hello' ? { error: { code: 'UNAUTHENTICATED', message: 'wrong token' } } : undefined));
    const refused = run(['user-prompt-submit'], rowEnv(refusing.path));
    expect(await refused.done).toBe(0);
    expect(refused.err.join('')).toMatch(/^swb hook user-prompt-submit: UNAUTHENTICATED: wrong token\n$/);
    const gone = run(['stop'], rowEnv(join(tmpdir(), 'no-such-dir-swb', 'hub.sock')));
    expect(await gone.done).toBe(0);
    expect(gone.out).toEqual([]);
    expect(gone.err.join('')).toMatch(/^swb hook stop: cannot reach the hub at .* \(ENOENT\)\n$/);
  });

  it('a wrong command line is a usage error (2); flags and a caller outside any row are left to the CLI (null)', async () => {
    const hub = await fakeHub(() => ({ result: {} }));
    const unknown = run(['start'], rowEnv(hub.path));
    expect(await unknown.done).toBe(2);
    expect(unknown.err.join('')).toMatch(/unknown hook "start"; the hooks are: stop, /);
    expect(await run(['stop', '{}', 'extra'], rowEnv(hub.path)).done).toBe(2);
    expect(await run(['stop', '--as', 'outsider'], rowEnv(hub.path)).done).toBeNull();
    // No SWB_* here and (in this test process) no ancestor that is a row.
    expect(await run(['stop'], { PATH: '/usr/bin' }).done).toBeNull();
    expect(hub.frames).toEqual([]);
  });

  it('reads only the fields it needs from the payload, bounded, and junk is no fields', () => {
    expect(hookPayloadFields('not json')).toEqual({});
    expect(hookPayloadFields('[1,2]')).toEqual({});
    expect(hookPayloadFields(JSON.stringify({ notification_type: 'x'.repeat(500), tool_name: 'y'.repeat(500) }))).toEqual({ notificationType: 'x'.repeat(64), toolName: 'y'.repeat(128) });
  });

  it("passes on Claude's SessionStart source, a compaction's trigger and a submitted prompt's first line (bounded), for the endings only they tell", () => {
    expect(hookPayloadFields(JSON.stringify({ hook_event_name: 'SessionStart', source: 'clear' }))).toEqual({ source: 'clear' });
    expect(hookPayloadFields(JSON.stringify({ hook_event_name: 'PostCompact', trigger: 'manual', compact_summary: 'a long summary' }))).toEqual({ trigger: 'manual' });
    expect(hookPayloadFields(JSON.stringify({ prompt: '  fix the parser\nand the tests too\n' }))).toEqual({ prompt: 'fix the parser' });
    expect(hookPayloadFields(JSON.stringify({ prompt: 'p'.repeat(5000), source: 's'.repeat(100), trigger: 't'.repeat(100) }))).toEqual({ prompt: 'p'.repeat(HOOK_PROMPT_MAX_CHARS), source: 's'.repeat(32), trigger: 't'.repeat(32) });
    // A blank prompt, or one of the wrong type, is none.
    expect(hookPayloadFields(JSON.stringify({ prompt: ' \n\n ' }))).toEqual({});
    expect(hookPayloadFields(JSON.stringify({ prompt: 42, source: null }))).toEqual({});
    // They become part of an event's name: a word, or nothing.
    expect(hookPayloadFields(JSON.stringify({ source: 'clear\u001b[2J', trigger: 'man ual' }))).toEqual({});
  });
});
