// The proof on REAL Claude Code, driven through the real `swb` dashboard: Claude runs in a row
// (offline, against the scripted Anthropic API stub). Its busy and idle states and a permission
// question show on the row's header; mail from an external sender (`swb ask --as tester`) is held while
// the question is open and while Claude works, and the wake line is typed only once the prompt is free;
// the scripted model then runs `swb inbox` and `swb reply ID ...` in Claude's Bash tool, and the reply
// reaches the waiting sender.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadProfiles } from '../../src/agents/load-profiles.js';
import { writeClaudeConfig } from '../helpers/claude-config.js';
import { runCleanups } from '../helpers/cleanup.js';
import { askWhileQuestionOpen, explainRow, firstReceipt, operate, typedIntoRows } from '../helpers/swb-operator.js';
import { runSwb } from '../helpers/run-swb.js';
import { createTempHome, type TempHome } from '../helpers/temp-home.js';
import { startSwb, type TerminalHarness } from '../helpers/terminal-harness.js';
import { waitUntil } from '../helpers/wait-until.js';
import { startAnthropicStub, type AnthropicStub } from '../support/model-api/anthropic-stub.mjs';
import { cliInstalled, CLAUDE_BIN, CLAUDE_API_KEY as API_KEY } from './agent-cli.js';

const claude = loadProfiles({ configDir: '/nonexistent-swb-config' }).profiles.get('claude')!;
const WAKE_LINE = claude.wakeLine;
const SLOW_MS = 6000;

afterEach(runCleanups);

describe.skipIf(!cliInstalled(CLAUDE_BIN))('real Claude Code in swb', () => {
  let stub: AnthropicStub;

  beforeAll(async () => {
    stub = await startAnthropicStub({
      script: {
        turns: [
          { match: '^slow', delayMs: SLOW_MS, content: [{ type: 'text', text: 'Slow answer done.' }] },
          {
            match: '^tool please',
            content: [{ type: 'tool_use', name: 'Bash', input: { command: 'touch created-by-stub.txt', description: 'Create a marker file' } }],
            afterTool: 'Created the file.',
          },
          {
            // The wake: read the inbox, reply to the message found there, report.
            match: 'You have new mail',
            content: [
              { type: 'text', text: 'Checking my Switchboard mail.' },
              { type: 'tool_use', name: 'Bash', input: { command: 'swb inbox', description: 'Read Switchboard mail' } },
            ],
            steps: [
              {
                capture: '#(\\d+)\\s+from tester',
                content: [{ type: 'tool_use', name: 'Bash', input: { command: 'swb reply {{1}} "pong from claude"', description: 'Reply to the tester' } }],
              },
              { content: [{ type: 'text', text: 'Replied to the tester.' }] },
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

  /** swb with one row, `claude`, running the real CLI offline (swb's own commands pre-approved). */
  function startDashboard(home: TempHome): TerminalHarness {
    const { config } = writeClaudeConfig(home, {
      bin: CLAUDE_BIN,
      stubUrl: stub.url,
      apiKey: API_KEY,
      args: `--permission-mode default --allowedTools 'Bash(swb:*)'`,
      // This test is about the typed wake; claude-hooks.test.ts covers the native tools.
      row: { nativeTools: false },
    });
    return startSwb({ home, args: ['--config', config], cols: 120, rows: 40 });
  }

  const inputShows = (text: string) => ({ waitFor: (s: string) => new RegExp(`^❯\\s${text}\\s*$`, 'mu').test(s), what: `"${text}" in Claude's input` });

  const wakeRequests = () => stub.requests.filter((r) => r.lastUser === WAKE_LINE);

  it('busy, idle and a permission question on the header; the wake waits for a free prompt; Claude reads and replies with swb', async () => {
    const home = createTempHome();
    const t = startDashboard(home);
    await t.waitForText('claude · idle', { timeoutMs: 60_000 });

    // A permission question reads as waiting.
    await operate(t, ['tool please', inputShows('tool please'), '\r']);
    await t.waitForText('claude · waiting', { timeoutMs: 30_000 });
    expect(await explainRow(home, 'claude')).toMatchObject({ state: 'waiting', rule: 'permission_dialog' });

    // An external sender asks; the question stays open, so nothing is typed.
    // Claude blinks the pending tool's bullet while it asks, so the screen is never still: the wake
    // is held by the open question itself. Watch it stay held well past the quiet time.
    const ask = await askWhileQuestionOpen(t, home, 'claude', {
      quietMs: claude.quietMs,
      held: (e) => e.prompt.reason === 'dialog-open',
      what: 'the wake to be held over the open permission question',
    });
    expect(wakeRequests()).toEqual([]);
    expect(existsSync(join(home.paths.runDir, 'audit.log'))).toBe(false);

    // The operator cancels the question and starts a slow turn: busy, and still nothing typed.
    await operate(t, [
      '\x1b',
      { waitFor: (s) => !s.includes('Do you want to proceed?'), what: 'the question to close' },
      'slow question',
      inputShows('slow question'),
      '\r',
    ]);
    await t.waitForText('claude · busy', { timeoutMs: 20_000 });
    const slow = await waitUntil(() => stub.requests.find((r) => r.lastUser === 'slow question'), { timeoutMs: 10_000, what: 'the slow question to reach the model' });
    expect(await explainRow(home, 'claude')).toMatchObject({ state: 'busy', prompt: { free: false } });
    expect(wakeRequests()).toEqual([]);

    // Once the turn is over and the prompt is free, the wake line is typed once; the model runs
    // `swb inbox`, then `swb reply`, and the reply reaches the sender waiting in `swb ask`.
    const asked = await Promise.race([
      ask.exited,
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no reply within 90 s; stub saw: ${JSON.stringify(stub.requests.map((r) => r.lastUser || r.toolResult?.slice(0, 80)))}\n${t.describe()}`)), 90_000)),
    ]);
    expect(asked.stderr).toBe('');
    expect(asked.status).toBe(0);
    expect(asked.stdout).toMatch(/from claude\s+response re #1/);
    expect(asked.stdout).toContain('pong from claude');

    const wakes = wakeRequests();
    expect(wakes).toHaveLength(1);
    expect(wakes[0]!.at - slow.at).toBeGreaterThanOrEqual(SLOW_MS);
    // What Claude's Bash tool printed, as the model received it: `swb inbox`, then `swb reply`
    // (that result reaches the model just after the reply reached the sender).
    const results = () => stub.requests.map((r) => r.toolResult ?? '').filter(Boolean);
    await waitUntil(() => results().length >= 2, { timeoutMs: 20_000, what: 'the result of swb reply to reach the model' });
    expect(results()).toEqual([
      expect.stringMatching(/^#1 {2}from tester {2}task .*\n {4}ping from tester$/),
      expect.stringContaining('accepted #2 → @tester (re #1)'),
    ]);
    expect(typedIntoRows(home)).toEqual([
      ['claude', WAKE_LINE],
      ['claude', '\r'],
    ]);

    // The receipts tell the story: woken, then replied.
    expect(await firstReceipt(home, 1)).toMatchObject({ to: 'claude', state: 'replied', wokenAt: expect.any(Number), repliedAt: expect.any(Number) });

    await t.waitForText('claude · idle', { timeoutMs: 20_000 });
    const why = await runSwb(['explain', 'claude'], { home });
    expect(why.stdout).toMatch(/^claude: idle \(profile claude\)\n {2}rule: {5}prompt_box → idle\n {2}region: {3}bottom 8 .*\n {2}evidence: .*\n {2}quiet: {4}screen still for/);
  }, 180_000);
});
