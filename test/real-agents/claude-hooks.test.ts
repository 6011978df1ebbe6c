// Delivery without typing (issue #13) on REAL Claude Code, driven through the real `swb` dashboard:
// a `claude`-profile row gets swb's own tools at launch (--mcp-config with `swb mcp`, --settings with the
// allow rule and a Stop hook running the rows' hook client (the native one where it was built, else `swb hook stop`); both files 0600 in the runtime dir). The scripted
// model (offline, the Anthropic API stub) reads and answers mail with the mcp__swb__* tools, and mail
// that comes during a turn is read at the end of that turn because the Stop hook blocked the stop:
// nothing is typed into the row, and the receipts say "told by its hook". And the endings Claude's
// screen cannot tell from a pause (issue #37): an Esc before the answer (Claude gives the prompt back as
// a draft: rule draft-returned) and /clear (its SessionStart hook, source "clear") read idle by their
// own signals; an Esc once the answer streams (no hook: Claude writes `[Request interrupted by user]` to
// its transcript) reads idle by that line, well before the screen's quiet time.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ReceiptResult, RowListing } from '../../src/protocol/methods.js';
import { nativeHookClientPath } from '../../src/util/native-addon.js';
import { shellQuote } from '../../src/util/shell-quote.js';
import { writeClaudeConfig } from '../helpers/claude-config.js';
import { writeProfileQuietTime } from '../helpers/profile-quiet-time.js';
import { deferCleanup, runCleanups } from '../helpers/cleanup.js';
import { processFamily } from '../helpers/process-descendants.js';
import { explainRow, firstReceipt, operate } from '../helpers/swb-operator.js';
import { runSwb, spawnSwb } from '../helpers/run-swb.js';
import { createTempHome, type TempHome } from '../helpers/temp-home.js';
import { startSwb, type TerminalHarness } from '../helpers/terminal-harness.js';
import { waitUntil } from '../helpers/wait-until.js';
import { startAnthropicStub, type AnthropicStub, type StubRequest } from '../support/model-api/anthropic-stub.mjs';
import { cliInstalled, CLAUDE_BIN, CLAUDE_API_KEY as API_KEY } from './agent-cli.js';

const SLOW_MS = 6000;
const SWB_TOOLS = ['mcp__swb__coordinate_resource', 'mcp__swb__inbox', 'mcp__swb__peers', 'mcp__swb__read', 'mcp__swb__reply', 'mcp__swb__send', 'mcp__swb__status', 'mcp__swb__wait'];
// The id of tester's message in what the inbox tool returned: Claude Code hands the model an MCP
// tool's structured result as JSON ({"messages":[{"id":1,"from":"tester",...}]}); the text form
// ("#1  from tester ...") is matched too.
const TESTER_MAIL_ID = '(?:#|"id":)(\\d+)(?:\\s+from tester|,"from":"tester")';
// How Claude Code hands the model a Stop hook's block reason: a user message holding only a
// <system-reminder> that ends "Stop hook feedback:\n<reason>".
const HOOK_FEEDBACK = 'Stop hook feedback:\\s*You have \\d+ unread message';

afterEach(runCleanups);

describe.skipIf(!cliInstalled(CLAUDE_BIN))('real Claude Code with swb native tools (MCP server and Stop hook)', () => {
  let stub: AnthropicStub;

  beforeAll(async () => {
    stub = await startAnthropicStub({
      script: {
        turns: [
          { match: '^slow', delayMs: SLOW_MS, content: [{ type: 'text', text: 'Slow answer done.' }] },
          { match: '^stream', streamMs: 20_000, content: [{ type: 'text', text: 'A long streamed answer, a few words at a time. '.repeat(20) }] },
          {
            // Typed by the operator: read the mail with the MCP tool, answer it with the MCP tool.
            match: '^check mail via mcp',
            content: [
              { type: 'text', text: 'Checking my Switchboard mail over MCP.' },
              { type: 'tool_use', name: 'mcp__swb__inbox', input: {} },
            ],
            steps: [
              { capture: TESTER_MAIL_ID, content: [{ type: 'tool_use', name: 'mcp__swb__reply', input: { id: '{{1}}', text: 'pong via mcp' } }] },
              { content: [{ type: 'text', text: 'Replied over MCP.' }] },
            ],
          },
          {
            // The Stop hook blocked the end of a turn: read the mail it names, answer it, stop.
            matchReminder: HOOK_FEEDBACK,
            content: [
              { type: 'text', text: 'The hook says I have mail.' },
              { type: 'tool_use', name: 'mcp__swb__inbox', input: {} },
            ],
            steps: [
              { capture: TESTER_MAIL_ID, content: [{ type: 'tool_use', name: 'mcp__swb__reply', input: { id: '{{1}}', text: 'read it at the end of my turn' } }] },
              { content: [{ type: 'text', text: 'Answered the mail the hook told me about.' }] },
            ],
          },
        ],
        default: { content: [{ type: 'text', text: 'Hello from the stub.' }] },
      },
    });
  });

  afterAll(async () => {
    await stub?.close();
  });

  /** swb with one row, `claude`, running the real CLI offline, its native tools left on. */
  function startDashboard(home: TempHome, opts: { wake?: 'auto' | 'notify' | 'off'; stubUrl?: string } = {}): TerminalHarness {
    const { config } = writeClaudeConfig(home, {
      bin: CLAUDE_BIN,
      stubUrl: opts.stubUrl ?? stub.url,
      apiKey: API_KEY,
      // No --allowedTools: the mcp__swb__* tools must be allowed by swb's own --settings.
      args: '--permission-mode default',
      ...(opts.wake ? { row: { wake: opts.wake } } : {}),
    });
    return startSwb({ home, args: ['--config', config], cols: 120, rows: 40 });
  }

  const inputShows = (text: string) => ({ waitFor: (s: string) => new RegExp(`^❯\\s${text}\\s*$`, 'mu').test(s), what: `"${text}" in Claude's input` });
  const requestsSoFar = () => stub.requests.map((r) => r.lastUser || r.toolResult?.slice(0, 120) || r.userTexts.at(-1)?.slice(-160));
  const isHookFeedback = (r: StubRequest) => r.userTexts.some((x) => new RegExp(HOOK_FEEDBACK).test(x));

  async function rowPid(home: TempHome): Promise<number> {
    const ls = await runSwb(['ls', '--json'], { home });
    expect(ls.stderr).toBe('');
    const row = (JSON.parse(ls.stdout) as { rows: RowListing[] }).rows.find((r) => r.name === 'claude');
    expect(row?.pid).toEqual(expect.any(Number));
    return row!.pid!;
  }

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
  const argAfter = (argv: readonly string[], flag: string): string | undefined => {
    const i = argv.indexOf(flag);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const mode = (path: string) => statSync(path).mode & 0o777;

  it("Claude is launched with swb's --mcp-config and --settings (0600 files: the swb server, the allow rule, the Stop hook), and reads and answers mail with the MCP tools", async () => {
    const home = createTempHome();
    // No typed wake in this test: the operator types the prompt that makes Claude check its mail.
    const t = startDashboard(home, { wake: 'off' });
    await t.waitForText('claude · idle', { timeoutMs: 60_000 });

    // a. The launch: the row's program (or the process it execs) carries both flags with the files.
    const pid = await rowPid(home);
    const claudeProc = await waitUntil(
      () => [pid, ...processFamily(pid)].map((p) => ({ pid: p, argv: cmdline(p) })).find((p) => p.argv.includes('--mcp-config')),
      { timeoutMs: 10_000, what: "a process of the row with --mcp-config in its argv" },
    ).catch((err: Error) => {
      throw new Error(`${err.message}; the row's processes: ${JSON.stringify([pid, ...processFamily(pid)].map((p) => cmdline(p)))}`);
    });
    const rowDir = join(home.paths.runDir, 'rows', 'claude');
    const mcpFile = argAfter(claudeProc.argv, '--mcp-config');
    const settingsFile = argAfter(claudeProc.argv, '--settings');
    expect(mcpFile).toBe(join(rowDir, 'mcp.json'));
    expect(settingsFile).toBe(join(rowDir, 'settings.json'));
    // The user's own flags are kept; swb's come after them.
    expect(claudeProc.argv.slice(1, 3)).toEqual(['--permission-mode', 'default']);
    expect(claudeProc.argv.indexOf('--settings')).toBeGreaterThan(claudeProc.argv.indexOf('--permission-mode'));
    expect(mode(rowDir)).toBe(0o700);
    expect(mode(mcpFile!)).toBe(0o600);
    expect(mode(settingsFile!)).toBe(0o600);

    const mcp = JSON.parse(readFileSync(mcpFile!, 'utf8')) as { mcpServers: Record<string, { type: string; command: string; args: string[] }> };
    expect(Object.keys(mcp.mcpServers)).toEqual(['swb']);
    const server = mcp.mcpServers.swb!;
    expect(server).toEqual({ type: 'stdio', command: expect.stringMatching(/\/swb$/), args: ['mcp'] });
    // The launcher the rows run (on their PATH), an executable script.
    expect(mode(server.command) & 0o100).toBe(0o100);
    expect(environ(claudeProc.pid).get('PATH')?.split(':')).toContain(dirname(server.command));

    const settings = JSON.parse(readFileSync(settingsFile!, 'utf8')) as {
      permissions: { allow: string[] };
      hooks: { Stop: Array<{ hooks: Array<{ type: string; command: string; timeout?: number }> }> };
    };
    // The MCP tools, and the one command the wake line asks for (issue #31.15).
    expect([...settings.permissions.allow].sort()).toEqual(['Bash(swb inbox:*)', ...SWB_TOOLS]);
    // The rows' hook client: the native one where it was built (it hands anything it does not do to the launcher), else `swb hook`.
    const native = nativeHookClientPath();
    const stopCommand = native ? `${shellQuote(native)} ${shellQuote(server.command)} stop` : `${shellQuote(server.command)} hook stop`;
    expect(settings.hooks.Stop).toEqual([{ hooks: [{ type: 'command', command: stopCommand, timeout: 30 }] }]);
    // Nothing of the user's own Claude config was touched.
    expect(existsSync(join(home.home, 'claude-home', '.claude', 'settings.json'))).toBe(false);

    // Claude started the MCP server as its child, and it speaks as the row (the row's env, passed on).
    const mcpServer = await waitUntil(
      () =>
        processFamily(claudeProc.pid)
          .map((p) => ({ pid: p, argv: cmdline(p) }))
          .find((p) => p.argv.at(-1) === 'mcp' && p.argv.some((a) => a.endsWith('swb.js'))),
      { timeoutMs: 20_000, what: 'the swb MCP server to run under Claude' },
    );
    expect(environ(mcpServer.pid).get('SWB_SESSION')).toBe('claude');
    expect(environ(mcpServer.pid).get('SWB_TOKEN')).toEqual(expect.any(String));

    // b. Mail from an outsider while Claude is idle; the wake policy is off, so nothing is typed.
    const ask = spawnSwb(['ask', '--as', 'tester', '@claude', 'ping', '--timeout', '120'], { home });
    await t.waitForText(/claude · idle .*✉ 1/, { timeoutMs: 20_000 });

    // Claude connects its MCP servers in the background, and a prompt sent before swb's is connected
    // goes to the model without its tools (seen on a loaded machine, where `swb mcp` takes seconds to
    // start): the operator first sees in Claude's /mcp that swb is connected with its tools.
    await operate(t, [
      '/mcp',
      inputShows('/mcp'),
      '\r',
      { waitFor: (s) => new RegExp(`✔ swb\\s+${SWB_TOOLS.length} tools`).test(s), what: "Claude's /mcp to list swb connected with its tools" },
      '\x1b',
      { waitFor: (s) => !s.includes('MCP servers'), what: 'the /mcp dialog to close' },
    ]);
    // The operator asks Claude to check its mail; the model uses mcp__swb__inbox, then mcp__swb__reply.
    await operate(t, ['check mail via mcp', inputShows('check mail via mcp'), '\r']);
    const typed = await waitUntil(() => stub.requests.find((r) => r.lastUser === 'check mail via mcp'), {
      timeoutMs: 20_000,
      what: 'the typed prompt to reach the model',
    });
    // Claude learned the tools from swb's MCP server (it offers MCP tools to the model by name, deferred).
    expect(typed.mcpTools).toEqual(SWB_TOOLS);

    const asked = await Promise.race([
      ask.exited,
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error(`no reply within 90 s; stub saw: ${JSON.stringify(requestsSoFar())}\n${t.describe()}`)), 90_000),
      ),
    ]);
    expect(asked.stderr).toBe('');
    expect(asked.status).toBe(0);
    expect(asked.stdout).toMatch(/from claude\s+response re #1/);
    expect(asked.stdout).toContain('pong via mcp');

    // The tools' results as the model got them: the inbox with tester's message, then the reply sent.
    const results = () => stub.requests.map((r) => r.toolResult ?? '').filter(Boolean);
    await waitUntil(() => results().length >= 2, { timeoutMs: 20_000, what: 'the reply tool result to reach the model' });
    expect(results()[0]).toMatch(/"from":"tester"/);
    expect(results()[0]).toContain('ping');
    expect(results()[1]).toMatch(/"to":"tester"/);

    const status = await runSwb(['status', '1'], { home });
    expect(status.stdout).toMatch(/@claude: replied\s+\(accepted .*, delivered .*, replied .*\)/);
    const receipt = await firstReceipt(home, 1);
    expect(receipt).toMatchObject({ to: 'claude', state: 'replied', wokenAt: null, wokenBy: null });
    const reply = await runSwb(['status', '2', '--json'], { home });
    expect(JSON.parse(reply.stdout) as ReceiptResult).toMatchObject({ from: 'claude', kind: 'response', recipients: [{ to: 'tester' }] });

    // The turn ended with nothing unread: the Stop hook let it stop (no feedback reached the model).
    await t.waitForText('claude · idle', { timeoutMs: 20_000 });
    expect(stub.requests.filter(isHookFeedback)).toEqual([]);
    // swb typed nothing into the row.
    expect(existsSync(join(home.paths.runDir, 'audit.log'))).toBe(false);
  }, 180_000);

  it('mail that comes during a turn is read at the end of it: the Stop hook blocks the stop, nothing is typed, the receipt says told by its hook', async () => {
    const home = createTempHome();
    const t = startDashboard(home); // wake policy auto: the hook must make the typed wake unnecessary
    await t.waitForText('claude · idle', { timeoutMs: 60_000 });

    await operate(t, ['slow question', inputShows('slow question'), '\r']);
    await t.waitForText('claude · busy', { timeoutMs: 20_000 });
    const slow = await waitUntil(() => stub.requests.find((r) => r.lastUser === 'slow question'), {
      timeoutMs: 10_000,
      what: 'the slow question to reach the model',
    });

    // Mail during the turn: the wake waits (busy), and the turn's end is where the hook tells Claude.
    const sent = await runSwb(['send', '--as', 'tester', '@claude', 'during the turn'], { home });
    expect(sent.stderr).toBe('');
    expect(sent.stdout).toMatch(/accepted #1 → @claude/);
    const held = await waitUntil(
      async () => {
        const e = await explainRow(home, 'claude');
        return e.wake?.phase === 'pending' && e;
      },
      { timeoutMs: 5000, intervalMs: 100, what: 'the wake to be pending' },
    );
    expect(held).toMatchObject({ state: 'busy', wake: { policy: 'auto', phase: 'pending' } });

    const feedback = await waitUntil(() => stub.requests.find(isHookFeedback), {
      timeoutMs: 40_000,
      what: "the Stop hook's block reason to reach the model",
    }).catch((err: Error) => {
      throw new Error(`${err.message}; stub saw: ${JSON.stringify(requestsSoFar())}\n${t.describe()}`);
    });
    // It came at the end of the slow turn, and is exactly the hook's reason.
    expect(feedback.at - slow.at).toBeGreaterThanOrEqual(SLOW_MS);
    const reminder = feedback.userTexts.find((x) => x.includes('Stop hook feedback'))!;
    expect(reminder).toContain(
      'Stop hook feedback:\nYou have 1 unread message in Switchboard (#1). Read them now with the swb inbox tool (mcp__swb__inbox) or `swb inbox`, act on them, and reply where asked.',
    );
    expect(feedback.lastUser).toBe(''); // nothing typed: the reminder is all the message holds

    // The model read the mail with the MCP tool and answered it; the sender has the answer.
    await waitUntil(async () => (await firstReceipt(home, 1))?.state === 'replied', {
      timeoutMs: 40_000,
      intervalMs: 300,
      what: 'the mail to be answered',
    }).catch((err: Error) => {
      throw new Error(`${err.message}; stub saw: ${JSON.stringify(requestsSoFar())}\n${t.describe()}`);
    });
    const receipt = await firstReceipt(home, 1);
    expect(receipt).toMatchObject({ to: 'claude', state: 'replied', wokenAt: expect.any(Number), wokenBy: 'hook', repliedAt: expect.any(Number) });
    expect(receipt!.wokenAt!).toBeLessThanOrEqual(receipt!.repliedAt!);
    const status = await runSwb(['status', '1'], { home });
    expect(status.stdout).toMatch(/@claude: replied\s+\(accepted .*, told by its hook .*, replied .*\)/);
    const theirs = await runSwb(['inbox', '--as', 'tester'], { home });
    expect(theirs.stdout).toMatch(/#2\s+from claude\s+response re #1/);
    expect(theirs.stdout).toContain('read it at the end of my turn');

    // Claude finishes; the second stop finds nothing unread and goes ahead: one block only.
    await waitUntil(() => stub.requests.some((r) => (r.toolResult ?? '').includes('"to":"tester"')), {
      timeoutMs: 20_000,
      what: 'the reply tool result to reach the model',
    });
    await t.waitForText('claude · idle', { timeoutMs: 30_000 });
    expect(stub.requests.filter(isHookFeedback)).toHaveLength(1);

    // The wake controller dropped its pending wake when the hook told Claude: swb typed nothing.
    const why = await explainRow(home, 'claude');
    expect(why.wake).toMatchObject({ policy: 'auto', phase: 'done', reason: 'told by its own hook at the end of its turn: nothing typed' });
    expect(existsSync(join(home.paths.runDir, 'audit.log'))).toBe(false);
    expect(stub.requests.filter((r) => r.lastUser.startsWith('You have new mail'))).toEqual([]);
  }, 180_000);

  it('loop guard: an agent that does not read its mail is blocked twice for it, then let stop, and the typed wake tells it once more', async () => {
    // A model that acknowledges the hook but never reads the mail.
    const stubborn = await startAnthropicStub({
      script: {
        turns: [
          { match: '^slow', delayMs: SLOW_MS, content: [{ type: 'text', text: 'Slow answer done.' }] },
          { matchReminder: HOOK_FEEDBACK, content: [{ type: 'text', text: 'I will look at the mail later.' }] },
        ],
        default: { content: [{ type: 'text', text: 'Hello from the stub.' }] },
      },
    });
    deferCleanup('stubborn stub', () => stubborn.close());
    const home = createTempHome();
    const t = startDashboard(home, { stubUrl: stubborn.url });
    await t.waitForText('claude · idle', { timeoutMs: 60_000 });

    await operate(t, ['slow question', inputShows('slow question'), '\r']);
    await waitUntil(() => stubborn.requests.find((r) => r.lastUser === 'slow question'), { timeoutMs: 20_000, what: 'the slow question to reach the model' });
    const sent = await runSwb(['send', '--as', 'tester', '@claude', 'during the turn'], { home });
    expect(sent.stdout).toMatch(/accepted #1 → @claude/);

    // Two blocks (the model answered each without reading), then the third stop goes ahead.
    const feedbacks = () => stubborn.requests.filter(isHookFeedback);
    await waitUntil(() => feedbacks().length >= 2, { timeoutMs: 40_000, what: 'two Stop hook blocks' }).catch((err: Error) => {
      throw new Error(`${err.message}; stub saw: ${JSON.stringify(stubborn.requests.map((r) => r.lastUser || r.userTexts.at(-1)?.slice(-160)))}\n${t.describe()}`);
    });
    await t.waitForText('claude · idle', { timeoutMs: 30_000 });
    // The hook gave up: the typed wake takes over once, when Claude's prompt is free.
    await waitUntil(() => stubborn.requests.some((r) => r.lastUser.startsWith('You have new mail')), { timeoutMs: 30_000, what: 'the typed wake after the hook gave up' });
    await t.waitForText('claude · idle', { timeoutMs: 30_000 });
    const settledAt = stubborn.requests.length;
    // Idle and still: no third round (Claude did not loop, swb let it stop).
    await waitUntil(
      async () => {
        const e = await explainRow(home, 'claude');
        return e.state === 'idle' && e.stillForMs > 3000 && e;
      },
      { timeoutMs: 20_000, intervalMs: 300, what: 'Claude to stay idle' },
    );
    expect(feedbacks()).toHaveLength(2);
    expect(stubborn.requests.filter((r) => r.lastUser.startsWith('You have new mail'))).toHaveLength(1);
    expect(stubborn.requests.slice(settledAt).filter((r) => r.tools.length > 0)).toEqual([]);
    for (const f of feedbacks()) expect(f.userTexts.join('\n')).toContain('You have 1 unread message in Switchboard (#1).');

    // The mail is still unread, told of by the hook first (the receipt keeps the first telling).
    expect(await firstReceipt(home, 1)).toMatchObject({ to: 'claude', state: 'accepted', wokenBy: 'hook', readAt: null });
  }, 180_000);

  it('an Esc before the answer reads idle by the prompt Claude gives back (draft-returned), and /clear by its SessionStart(clear) hook', async () => {
    const home = createTempHome();
    const t = startDashboard(home, { wake: 'off' });
    await t.waitForText('claude · idle', { timeoutMs: 60_000 });

    // A slow turn (the stand-in holds its answer 6 s): busy, and its UserPromptSubmit heard.
    const from = Date.now();
    await operate(t, ['slow question', inputShows('slow question'), '\r']);
    await waitUntil(() => stub.requests.find((r) => r.lastUser === 'slow question'), { timeoutMs: 20_000, what: 'the slow question to reach the model' });
    await waitUntil(
      async () => {
        const e = await explainRow(home, 'claude');
        return e.state === 'busy' && e.signals?.hook?.event === 'UserPromptSubmit' && e.detected === 'busy' && e;
      },
      { timeoutMs: 20_000, intervalMs: 200, what: 'busy, by the UserPromptSubmit hook and the screen' },
    );
    // Esc: Claude drops the turn (no hook, nothing in its transcript) and gives the prompt back.
    await operate(t, ['\x1b', inputShows('slow question')]);
    const esc = await waitUntil(
      async () => {
        const e = await explainRow(home, 'claude');
        return e.state === 'idle' && e;
      },
      { timeoutMs: 10_000, intervalMs: 100, what: 'idle after the Esc' },
    ).catch((err: Error) => {
      throw new Error(`${err.message}\n${t.describe()}`);
    });
    expect(esc.signals).toMatchObject({ rule: 'draft-returned', won: 'both', hook: { event: 'Esc: prompt given back', kind: 'turn-end' } });
    // The header says so too; then the operator erases the draft and it stays idle.
    await t.waitForText('claude · idle', { timeoutMs: 5000 });
    await operate(t, ['\x7f'.repeat('slow question'.length), { waitFor: (s) => !/^❯\s+slow question/mu.test(s), what: 'the draft erased' }]);
    expect((await explainRow(home, 'claude')).state).toBe('idle');

    // /clear: Claude runs SessionEnd, clears, then SessionStart with source "clear".
    await operate(t, ['/clear', inputShows('/clear'), '\r']);
    // Idle with that hook as the turn's last news. Not at the first look that hears the hook: Claude may
    // still be drawing the clear then (the screen read busy after the hook started: rule screen-newer,
    // seen once in a loaded CI run), and the screen's next reading agrees.
    const cleared = await waitUntil(
      async () => {
        const e = await explainRow(home, 'claude');
        return e.signals?.hook?.event === 'SessionStart(clear)' && e.state === 'idle' && e;
      },
      { timeoutMs: 20_000, intervalMs: 200, what: 'idle, with the SessionStart(clear) hook heard' },
    ).catch((err: Error) => {
      throw new Error(`${err.message}\n${t.describe()}`);
    });
    expect(cleared).toMatchObject({ state: 'idle', signals: { hook: { kind: 'turn-end' } } });
    await t.waitForText('claude · idle', { timeoutMs: 5000 });
    // Nothing reached the model for either: the interrupted prompt was never answered, /clear asks nothing.
    expect(stub.requests.filter((r) => r.at >= from && r.lastUser === 'slow question')).toHaveLength(1);
    expect(stub.requests.filter((r) => r.at >= from && r.lastUser === '/clear')).toEqual([]);
  }, 180_000);

  it('an Esc mid-answer reads idle by the transcript line (Esc (transcript)), well before the quiet time', async () => {
    const home = createTempHome();
    // A 3 s quiet time: the screen alone reads idle no sooner than that after its redrawn prompt.
    const quietMs = 3000;
    writeProfileQuietTime(home, 'claude', quietMs);
    const t = startDashboard(home, { wake: 'off' });
    await t.waitForText('claude · idle', { timeoutMs: 60_000 });

    // A turn whose answer streams for 20 s: busy by its hook and its screen, and the answer begun.
    await operate(t, ['stream question', inputShows('stream question'), '\r']);
    await waitUntil(() => stub.answering.find((a) => a.lastUser === 'stream question'), { timeoutMs: 20_000, what: 'the answer to begin streaming' });
    await waitUntil(
      async () => {
        const e = await explainRow(home, 'claude');
        return e.state === 'busy' && e.detected === 'busy' && e;
      },
      { timeoutMs: 20_000, intervalMs: 200, what: 'busy, by the hook and the screen' },
    );
    // Attached (the attached view's status line names the row's state too), the Esc, then detached.
    t.write('\r');
    await t.waitForNoText(/enter attach/);
    const esc = Date.now();
    t.write('\x1b');
    await t.waitForText('claude · idle', { timeoutMs: 10_000 }).catch((err: Error) => {
      throw new Error(`${err.message}\n${t.describe()}`);
    });
    const tookMs = Date.now() - esc;
    t.write('\x1c');
    await t.waitForText(/enter attach/);
    const e = await explainRow(home, 'claude');
    expect(e.signals?.hook).toMatchObject({ event: 'Esc (transcript)', kind: 'turn-end' });
    // Claude writes the line ~0.1 s after the key and swb reads it ~30 ms after it is written.
    expect(tookMs).toBeLessThan(quietMs / 2);
    const conversation = /row claude: usage from (\S+\.jsonl)/.exec(readFileSync(join(home.paths.runDir, 'server.log'), 'utf8'))?.[1];
    expect(readFileSync(conversation ?? '', 'utf8')).toContain('"text":"[Request interrupted by user]"');
  }, 180_000);
});
