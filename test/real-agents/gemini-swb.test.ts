// REAL Gemini CLI driven through the real `swb` dashboard (offline, against the scripted Gemini API
// stub), as claude-swb.test.ts and codex-swb.test.ts do for Claude Code and Codex: busy, idle and a
// tool confirmation on the row's header; mail from an external sender held while the confirmation is
// open and while Gemini works; the wake line typed once the prompt is free; then the scripted model runs
// `swb inbox` and `swb reply` through Gemini's own shell tool (`run_shell_command`), and the reply
// reaches the waiting sender.
// What it found (docs/AGENTS-REAL.md, "Real Gemini CLI in the swb dashboard"): Gemini asks before
// every shell command, `swb inbox` included. swb's own commands run without asking through a user
// policy in the row's HOME (`.gemini/policies/swb.toml`: `run_shell_command` with `commandPrefix =
// "swb"` allowed), and anything else still asks; the deprecated `--allowed-tools
// "run_shell_command(swb)"` / `tools.allowed` would instead deny every other shell command outright.
// Gemini runs commands in a plain `bash -c` with the row's environment (PATH with `swb`, SWB_SESSION,
// SWB_TOKEN) unless its environment variable redaction is on: then SWB_TOKEN is dropped (no setting
// lets a name containing TOKEN through), and swb finds the row through the command's ancestors (the row's
// Gemini process still holds it in its environment) instead of failing or speaking as the operator.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadProfiles } from '../../src/agents/load-profiles.js';
import { runCleanups } from '../helpers/cleanup.js';
import { askWhileQuestionOpen, explainRow, firstReceipt, operate, submitPrompt, typedIntoRows, type OperatorStep } from '../helpers/swb-operator.js';
import { createTempHome, type TempHome } from '../helpers/temp-home.js';
import type { TerminalHarness } from '../helpers/terminal-harness.js';
import { waitUntil } from '../helpers/wait-until.js';
import { startGeminiStub, type GeminiStub } from '../support/model-api/gemini-stub.mjs';
import { GEMINI_JS, cliInstalled, launchAgentRow } from './agent-cli.js';

const gemini = loadProfiles({ configDir: '/nonexistent-swb-config' }).profiles.get('gemini')!;
const WAKE_LINE = gemini.wakeLine;
const SLOW_MS = 6000;

/** A user policy (Gemini's policy engine, user tier): swb's own commands run without asking. */
const SWB_POLICY = ['[[rule]]', 'toolName = "run_shell_command"', 'commandPrefix = "swb"', 'decision = "allow"', 'priority = 100', ''].join('\n');

afterEach(runCleanups);

describe.skipIf(!cliInstalled(GEMINI_JS))('real Gemini CLI in swb', () => {
  let stub: GeminiStub;

  beforeAll(async () => {
    stub = await startGeminiStub({
      script: {
        turns: [
          { match: '^slow', delayMs: SLOW_MS, parts: [{ text: 'Slow answer done.' }] },
          {
            match: '^tool please',
            parts: [{ functionCall: { name: 'run_shell_command', args: { command: 'touch created-by-stub.txt', description: 'Create a marker file' } } }],
            afterTool: 'Created the file.',
          },
          {
            match: '^peers check',
            parts: [{ functionCall: { name: 'run_shell_command', args: { command: 'swb peers', description: 'List Switchboard peers' } } }],
            afterTool: 'Checked.',
          },
          {
            // The wake: read the inbox, reply to the message found there, report.
            match: 'You have new mail',
            parts: [
              { text: 'Checking my Switchboard mail.' },
              { functionCall: { name: 'run_shell_command', args: { command: 'swb inbox', description: 'Read Switchboard mail' } } },
            ],
            steps: [
              {
                capture: '#(\\d+)\\s+from tester',
                parts: [{ functionCall: { name: 'run_shell_command', args: { command: 'swb reply {{1}} "pong from gemini"', description: 'Reply to the tester' } } }],
              },
              { parts: [{ text: 'Replied to the tester.' }] },
            ],
          },
        ],
        default: { parts: [{ text: 'Hello from the stub.' }] },
      },
    });
  });

  afterAll(async () => {
    await stub?.close();
  });

  /**
   * swb with one row, `gemini`, running the real CLI offline against the stub in a trusted project,
   * swb's own commands allowed by a user policy; `security` adds to the settings' `security` object.
   */
  function startDashboard(home: TempHome, { security = {} }: { security?: Record<string, unknown> } = {}): TerminalHarness {
    return launchAgentRow(home, { agent: 'gemini', stubUrl: stub.url, security, policies: { 'swb.toml': SWB_POLICY } }).t;
  }

  const inputShows = (text: string) => ({ waitFor: (s: string) => new RegExp(`^\\s*>\\s${text}\\s*$`, 'mu').test(s), what: `"${text}" in Gemini's input` });
  // Gemini takes an Enter right after fast typing as part of a paste (a newline, not a submit).
  const SUBMIT: OperatorStep[] = [{ pauseMs: gemini.submitDelayMs }, '\r'];

  const wakeRequests = () => stub.requests.filter((r) => !r.side && r.lastUser === WAKE_LINE && r.toolResult === undefined);

  it('busy, idle and a tool confirmation on the header; the wake waits for a free prompt; Gemini reads and replies with swb', async () => {
    const home = createTempHome();
    const t = startDashboard(home);
    await t.waitForText('gemini · idle', { timeoutMs: 90_000 });

    // A tool confirmation reads as waiting.
    // (Submitted until the model has it: on a loaded machine Gemini has taken the Enter after the
    // pause as part of the typing, and the prompt stayed in its input.)
    const before = stub.requests.length;
    await submitPrompt(t, 'tool please', {
      inputShows: inputShows('tool please').waitFor,
      submit: SUBMIT,
      taken: () => stub.requests.slice(before).some((r) => !r.side && r.lastUser === 'tool please'),
      what: '"tool please" to reach the model',
    });
    await t.waitForText('gemini · waiting', { timeoutMs: 30_000 });
    expect(await explainRow(home, 'gemini')).toMatchObject({ state: 'waiting', prompt: { free: false } });

    // An external sender asks; the confirmation stays open, so nothing is typed.
    // Held by the open confirmation itself, and still held well past the quiet time.
    const ask = await askWhileQuestionOpen(t, home, 'gemini', { quietMs: gemini.quietMs, what: 'the wake to be held over the open tool confirmation' });
    expect(wakeRequests()).toEqual([]);
    expect(existsSync(join(home.paths.runDir, 'audit.log'))).toBe(false);

    // The operator declines (Esc) and starts a slow turn: busy, and still nothing typed.
    await operate(t, [
      '\x1b',
      { waitFor: (s) => !s.includes('Allow execution'), what: 'the confirmation to close' },
      'slow question',
      inputShows('slow question'),
      ...SUBMIT,
    ]);
    await t.waitForText('gemini · busy', { timeoutMs: 20_000 });
    const slow = await waitUntil(() => stub.requests.find((r) => !r.side && r.lastUser === 'slow question'), { timeoutMs: 10_000, what: 'the slow question to reach the model' });
    expect(await explainRow(home, 'gemini')).toMatchObject({ state: 'busy', prompt: { free: false } });
    expect(wakeRequests()).toEqual([]);

    // Once the turn is over and the prompt is free, the wake line is typed once; the model runs
    // `swb inbox`, then `swb reply`, and the reply reaches the sender waiting in `swb ask`.
    const asked = await Promise.race([
      ask.exited,
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error(`no reply within 90 s; stub saw: ${JSON.stringify(stub.requests.filter((r) => !r.side).map((r) => r.toolResult?.slice(0, 300) ?? r.lastUser))}\n${t.describe()}`)), 90_000),
      ),
    ]);
    expect(asked.stderr).toBe('');
    expect(asked.status).toBe(0);
    expect(asked.stdout).toMatch(/from gemini\s+response re #1/);
    expect(asked.stdout).toContain('pong from gemini');

    const wakes = wakeRequests();
    expect(wakes).toHaveLength(1);
    expect(wakes[0]!.at - slow.at).toBeGreaterThanOrEqual(SLOW_MS);
    // What Gemini's shell tool printed, as the model received it: `swb inbox`, then `swb reply`.
    const results = () => stub.requests.filter((r) => !r.side && r.lastUser === WAKE_LINE).map((r) => r.toolResult ?? '').filter(Boolean);
    await waitUntil(() => results().length >= 2, { timeoutMs: 20_000, what: 'the result of swb reply to reach the model' });
    expect(results()).toEqual([
      expect.stringMatching(/#1 {2}from tester {2}task .*\n {4}ping from tester\n/),
      expect.stringContaining('accepted #2 → @tester (re #1)'),
    ]);
    // swb typed into the row exactly twice: the wake line, then (after submitDelayMs) Enter.
    expect(typedIntoRows(home)).toEqual([
      ['gemini', WAKE_LINE],
      ['gemini', '\r'],
    ]);

    expect(await firstReceipt(home, 1)).toMatchObject({ to: 'gemini', state: 'replied', wokenAt: expect.any(Number), repliedAt: expect.any(Number) });
    await t.waitForText('gemini · idle', { timeoutMs: 20_000 });
    expect(await explainRow(home, 'gemini')).toMatchObject({ state: 'idle', rule: 'prompt_box' });
  }, 240_000);

  it("with Gemini's environment variable redaction on, SWB_TOKEN is dropped, and swb still speaks as the row (found through its ancestors), never as the operator", async () => {
    const home = createTempHome();
    // `allowed` cannot bring it back: Gemini drops allowed names that contain TOKEN, KEY, AUTH, ...
    const t = startDashboard(home, { security: { environmentVariableRedaction: { enabled: true, allowed: ['SWB_TOKEN'] } } });
    await t.waitForText('gemini · idle', { timeoutMs: 90_000 });
    await operate(t, ['peers check', inputShows('peers check'), ...SUBMIT]);
    const result = await waitUntil(() => stub.requests.find((r) => r.toolResult?.includes('(you)'))?.toolResult, { timeoutMs: 30_000, what: 'the output of swb peers' });
    expect(result).toMatch(/gemini\b[^\n]*\(you\)/);
    expect(result).not.toMatch(/operator\b[^\n]*\(you\)/);
  }, 240_000);
});
