// swb's MCP tools on REAL Codex CLI in a swb row (offline, the scripted Responses API stub), in Codex's
// default sandbox, where `swb` run by Codex's shell tool is refused the hub (HUB_DENIED). The codex
// profile's native recipe appends `-c mcp_servers.swb.command="<runDir>/bin/swb" -c
// mcp_servers.swb.args=["mcp"]`; Codex starts `swb mcp` itself, outside its sandbox, and the scripted
// model reads and answers mail with the tools while the shell's `swb` is denied.
// What Codex 0.171 does with them (seen here):
// - It starts the server as a child of its native binary with only a fixed list of variables (seen:
//   HOME, TERM, PATH, LANG, SHELL, PWD): no SWB_*. `swb mcp` still speaks as the row because swb takes
//   a scrubbed command's row from the nearest ancestor's /proc/PID/environ (src/cli/row-identity.ts,
//   Linux only), here Codex's own.
// - It offers an MCP server's tools to the model as one Responses tool of `type: "namespace"` named
//   `mcp__<server>` (here `mcp__swb`) holding functions named as the server names them (`inbox`,
//   `reply`, ...). The model calls one with a function_call carrying `namespace: "mcp__swb"` and
//   `name: "inbox"`; a flat `name: "mcp__swb__inbox"` is refused ("unsupported call").
// - It hands the model the tool's structuredContent as JSON (`{"messages":[{"id":1,"from":"tester",...`),
//   and its screen shows the text content.
// - Every MCP tool call asks the user first: `Allow the swb MCP server to run tool "inbox"?` with
//   1. Allow / 2. Allow for this session / 3. Always allow / 4. Cancel (`enter to submit | esc to
//   cancel`); the title says `[ ! ] Action Required`, so the row reads waiting. "Allow for this session"
//   is remembered per tool. (Under `codex exec`, whose approval policy is never, the same call fails:
//   "MCP tool call requires approval, but approval policy is never".)
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadProfiles } from '../../src/agents/load-profiles.js';
import type { ReceiptResult, RowListing } from '../../src/protocol/methods.js';
import { readProcStat } from '../../src/rows/process-tree.js';
import { runCleanups } from '../helpers/cleanup.js';
import { processFamily } from '../helpers/process-descendants.js';
import { explainRow, firstReceipt, operate, type OperatorStep } from '../helpers/swb-operator.js';
import { runSwb, spawnSwb, type SwbProcess, type SwbResult } from '../helpers/run-swb.js';
import { createTempHome, type TempHome } from '../helpers/temp-home.js';
import type { TerminalHarness } from '../helpers/terminal-harness.js';
import { waitUntil } from '../helpers/wait-until.js';
import { startResponsesStub, type ResponsesStub } from '../support/model-api/openai-responses-stub.mjs';
import { CODEX_JS, cliInstalled, launchAgentRow } from './agent-cli.js';

const codex = loadProfiles({ configDir: '/nonexistent-swb-config' }).profiles.get('codex')!;
const WAKE_LINE = codex.wakeLine;
const SWB_TOOLS = ['coordinate_resource', 'inbox', 'peers', 'read', 'reply', 'send', 'status', 'wait'];
// The id of tester's message in what the inbox tool returned: Codex hands the model the structured
// result as JSON ({"messages":[{"id":1,"from":"tester",...}]}); the text form is matched too.
const TESTER_MAIL_ID = '(?:#|"id":)(\\d+)(?:\\s+from tester|,"from":"tester")';
const mcpCall = (name: string, args: Record<string, unknown>) => ({ type: 'function_call' as const, namespace: 'mcp__swb', name, arguments: args });

afterEach(runCleanups);

describe.skipIf(!cliInstalled(CODEX_JS))("real Codex CLI with swb's MCP tools (default sandbox)", () => {
  let stub: ResponsesStub;

  beforeAll(async () => {
    stub = await startResponsesStub({
      script: {
        turns: [
          {
            match: '^sandbox check',
            output: [{ type: 'function_call', name: 'exec_command', arguments: { cmd: 'swb peers' } }],
            afterTool: 'Checked.',
          },
          {
            // Typed by the operator: read the mail with the MCP tool, answer it with the MCP tool.
            match: '^check mail via mcp',
            output: [{ type: 'text', text: 'Checking my Switchboard mail over MCP.' }, mcpCall('inbox', {})],
            steps: [
              { capture: TESTER_MAIL_ID, output: [mcpCall('reply', { id: '{{#1}}', text: 'pong via mcp' })] },
              { output: [{ type: 'text', text: 'Replied over MCP.' }] },
            ],
          },
          {
            // The typed wake: the same, whatever the wake line says about `swb inbox`.
            match: 'You have new mail',
            output: [mcpCall('inbox', {})],
            steps: [
              { capture: TESTER_MAIL_ID, output: [mcpCall('reply', { id: '{{#1}}', text: 'pong {{1}} via mcp' })] },
              { output: [{ type: 'text', text: 'Replied over MCP.' }] },
            ],
          },
        ],
        default: { output: [{ type: 'text', text: 'Hello from the stub.' }] },
      },
    });
  });

  afterAll(async () => {
    await stub?.close();
  });

  /**
   * swb with one row, `codex`, running the real CLI offline as the codex profile starts it, in Codex's
   * default sandbox (no network opt-in); swb appends the profile's MCP arguments itself.
   */
  function startDashboard(home: TempHome, wake: 'auto' | 'off'): TerminalHarness {
    return launchAgentRow(home, { agent: 'codex', stubUrl: stub.url, row: { wake } }).t;
  }

  const inputShows = (text: string) => ({ waitFor: (s: string) => new RegExp(`^›\\s${text}\\s*$`, 'mu').test(s), what: `"${text}" in Codex's input` });
  const approvalText = (tool: string) => `Allow the swb MCP server to run tool "${tool}"?`;
  const approvalShown = (tool: string): OperatorStep => ({ waitFor: (s) => s.includes(approvalText(tool)), what: `Codex to ask to run swb's "${tool}" tool` });
  const approvalGone: OperatorStep = { waitFor: (s) => !s.includes('Allow the swb MCP server'), what: 'the MCP approval question to close' };
  const requestsSoFar = () => stub.requests.map((r) => r.lastUser || r.toolResult?.slice(0, 200));
  const toolResults = () => stub.requests.filter((r) => r.toolResult !== undefined && r.lastUser !== 'sandbox check').map((r) => r.toolResult!);

  const cmdline = (pid: number): string[] => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').slice(0, -1);
    } catch {
      return [];
    }
  };
  const environ = (pid: number): Map<string, string> => {
    try {
      return new Map(
        readFileSync(`/proc/${pid}/environ`, 'utf8')
          .split('\0')
          .filter(Boolean)
          .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)] as [string, string]),
      );
    } catch {
      return new Map();
    }
  };

  async function rowPid(home: TempHome): Promise<number> {
    const ls = await runSwb(['ls', '--json'], { home });
    expect(ls.stderr).toBe('');
    const row = (JSON.parse(ls.stdout) as { rows: RowListing[] }).rows.find((r) => r.name === 'codex');
    expect(row?.pid).toEqual(expect.any(Number));
    return row!.pid!;
  }

  /** The ask's result, or a failure naming what the stub saw and the screen. */
  function answered(t: TerminalHarness, ask: SwbProcess, ms = 90_000): Promise<SwbResult> {
    return Promise.race([
      ask.exited,
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no reply within ${ms / 1000} s; stub saw: ${JSON.stringify(requestsSoFar())}\n${t.describe()}`)), ms)),
    ]);
  }

  it('Codex starts swb mcp as the row, outside its sandbox: with the shell\'s swb denied, the model reads and answers mail with mcp__swb tools, each call approved in the row', async () => {
    const home = createTempHome();
    // No typed wake here: the operator types the prompt that makes Codex check its mail.
    const t = startDashboard(home, 'off');
    await t.waitForText('codex · idle', { timeoutMs: 90_000 });

    // a. The launch carries the profile's MCP server (the row's launcher, `mcp`), and Codex started it
    // as its own child.
    const pid = await rowPid(home);
    const family = () => [pid, ...processFamily(pid)].map((p) => ({ pid: p, argv: cmdline(p) }));
    const codexProc = family().find((p) => p.argv.some((a) => a.startsWith('mcp_servers.swb.command=')));
    expect(codexProc, JSON.stringify(family().map((p) => p.argv))).toBeDefined();
    const launcher = join(home.paths.runDir, 'bin', 'swb');
    expect(codexProc!.argv.slice(-4)).toEqual(['-c', `mcp_servers.swb.command="${launcher}"`, '-c', 'mcp_servers.swb.args=["mcp"]']);
    const mcpServer = await waitUntil(() => family().find((p) => p.argv.at(-1) === 'mcp' && p.argv.some((a) => a.endsWith('swb.js'))), {
      timeoutMs: 20_000,
      what: 'the swb MCP server to run under Codex',
    });
    // Codex hands an MCP server only a fixed list of variables (seen: HOME, TERM, PATH, LANG, SHELL,
    // PWD), so every SWB_* is gone; `swb mcp` finds the row as any scrubbed swb command does, from the
    // nearest ancestor whose environment names it (src/cli/row-identity.ts, Linux /proc): its parent.
    const serverEnv = environ(mcpServer.pid);
    expect(serverEnv.get('PATH')).toEqual(expect.any(String));
    expect([...serverEnv.keys()].filter((k) => k.startsWith('SWB_'))).toEqual([]);
    const parent = readProcStat(mcpServer.pid)!.ppid;
    // (the native codex binary that codex.js started, with the same arguments)
    expect(cmdline(parent)[0]).toMatch(/\/codex$/);
    expect(cmdline(parent).slice(-4)).toEqual(codexProc!.argv.slice(-4));
    expect(environ(parent).get('SWB_SESSION')).toBe('codex');
    expect(environ(parent).get('SWB_TOKEN')).toEqual(expect.any(String));

    // b. In this sandbox, `swb` from Codex's shell tool is refused the hub.
    await operate(t, ['sandbox check', inputShows('sandbox check'), '\r']);
    const denied = await waitUntil(() => stub.requests.find((r) => r.toolResult?.includes('swb peers:'))?.toolResult, { timeoutMs: 30_000, what: 'the output of swb peers' });
    expect(denied).toMatch(/swb peers: HUB_DENIED: .*hub\.sock \(EPERM\)/s);

    // c. Codex offered the model swb's tools as the namespace mcp__swb.
    const checked = stub.requests.find((r) => r.lastUser === 'sandbox check')!;
    expect(checked.tools).toContain('mcp__swb');
    expect(checked.namespaceTools.mcp__swb).toEqual(SWB_TOOLS);

    // d. Mail from an outsider; the wake policy is off, so nothing is typed.
    const ask = spawnSwb(['ask', '--as', 'tester', '@codex', 'ping', '--timeout', '120'], { home });
    await t.waitForText(/codex · idle .*✉ 1/, { timeoutMs: 20_000 });

    // e. The operator asks Codex to check its mail; the model calls mcp__swb inbox. Codex asks first,
    // and the row reads waiting (by the title) while it does.
    await operate(t, ['check mail via mcp', inputShows('check mail via mcp'), '\r', approvalShown('inbox')]);
    await t.waitForText('codex · waiting', { timeoutMs: 20_000 });
    expect(await explainRow(home, 'codex')).toMatchObject({ state: 'waiting', rule: 'title_action_required' });
    // Nothing ran before the approval: the mail is still only accepted.
    expect(await firstReceipt(home, 1)).toMatchObject({ to: 'codex', state: 'accepted' });

    // f. The operator allows it once (the preselected "1. Allow"); the reply call asks again and is allowed too.
    await operate(t, [approvalShown('inbox'), '\r', approvalShown('reply'), '\r', approvalGone]);

    const asked = await answered(t, ask);
    expect(asked.stderr).toBe('');
    expect(asked.status).toBe(0);
    expect(asked.stdout).toMatch(/from codex\s+response re #1/);
    expect(asked.stdout).toContain('pong via mcp');

    // The tools' results as the model got them: the inbox (structured, as JSON), then the reply sent.
    await waitUntil(() => toolResults().length >= 2, { timeoutMs: 20_000, what: 'the reply tool result to reach the model' });
    expect(toolResults()[0]).toMatch(/"id":1,"from":"tester".*"text":"ping"/);
    expect(toolResults()[1]).toMatch(/"id":2.*"to":"tester"/);

    expect(await firstReceipt(home, 1)).toMatchObject({ to: 'codex', state: 'replied', wokenAt: null });
    const reply = await runSwb(['status', '2', '--json'], { home });
    expect(JSON.parse(reply.stdout) as ReceiptResult).toMatchObject({ from: 'codex', kind: 'response', recipients: [{ to: 'tester' }] });
    await t.waitForText('codex · idle', { timeoutMs: 20_000 });
  }, 240_000);

  it('the typed wake leads to the MCP tools; "Allow for this session" is remembered per tool, so the next mail is read and answered with nothing to approve', async () => {
    const home = createTempHome();
    const t = startDashboard(home, 'auto');
    await t.waitForText('codex · idle', { timeoutMs: 90_000 });
    const wakes = () => stub.requests.filter((r) => r.lastUser === WAKE_LINE && r.toolResult === undefined);

    // Round 1: mail to the idle row; swb types the wake; the model calls inbox, and Codex asks.
    const first = spawnSwb(['ask', '--as', 'tester', '@codex', 'ping one', '--timeout', '120'], { home });
    await waitUntil(() => wakes().length === 1, { timeoutMs: 30_000, what: 'the wake line to reach the model' });
    await t.waitForText('codex · waiting', { timeoutMs: 20_000 });

    // "2. Allow for this session" for inbox, then for reply (it asks again: the choice is per tool).
    const sessionChoice: OperatorStep = { waitFor: (s) => /^\s*› 2\. Allow for this session/mu.test(s), what: '"Allow for this session" selected' };
    await operate(t, [
      approvalShown('inbox'), '\x1b[B', sessionChoice, '\r',
      approvalShown('reply'), '\x1b[B', sessionChoice, '\r',
      approvalGone,
    ]);
    const one = await answered(t, first);
    expect(one.status).toBe(0);
    expect(one.stdout).toContain('pong 1 via mcp');
    await t.waitForText('codex · idle', { timeoutMs: 20_000 });

    // Round 2: more mail; the wake is typed again and both calls run without a question.
    const second = spawnSwb(['ask', '--as', 'tester', '@codex', 'ping two', '--timeout', '120'], { home });
    const two = await answered(t, second);
    expect(two.stderr).toBe('');
    expect(two.status).toBe(0);
    expect(two.stdout).toMatch(/from codex\s+response re #3/);
    expect(two.stdout).toContain('pong 3 via mcp');
    expect(wakes()).toHaveLength(2);
    expect(t.screenText().join('\n')).not.toContain('Allow the swb MCP server');

    for (const id of [1, 3]) expect(await firstReceipt(home, id)).toMatchObject({ to: 'codex', state: 'replied', wokenAt: expect.any(Number) });
    await t.waitForText('codex · idle', { timeoutMs: 20_000 });
  }, 240_000);
});
