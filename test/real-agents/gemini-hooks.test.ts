// Gemini CLI's own hooks fused with the screen on the REAL Gemini CLI 0.61 (issue #37), driven through
// the real `swb` dashboard against the offline Gemini API stand-in. The gemini profile's native recipe
// gives each row a settings file of its own, named by GEMINI_CLI_SYSTEM_DEFAULTS_PATH (the lowest scope:
// the user's settings, which the test writes, stay as they are and still apply), whose hooks run
// `swb hook` in the background: a turn's start (BeforeAgent) and end (AfterAgent) are heard from them,
// and a tool confirmation reads `waiting (permission)` from the Notification hook (ToolPermission).
// With Gemini's environment variable redaction on (SWB_TOKEN stripped from a hook's environment) the
// hook still finds its row, through the Gemini pid the recipe passes (SWB_HOOK_PARENT), and at the same
// pace: the native client reads Gemini's own environment rather than handing the hook to node.
import { readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadProfiles } from '../../src/agents/load-profiles.js';
import type { RowListing } from '../../src/protocol/methods.js';
import { runCleanups } from '../helpers/cleanup.js';
import { expectAtTheHooksPace, followStates, type StateEvent } from '../helpers/follow-states.js';
import { hookFloorMs } from '../helpers/hook-clients.js';
import { explainRow, operate, type OperatorStep } from '../helpers/swb-operator.js';
import { runSwb } from '../helpers/run-swb.js';
import { createTempHome, type TempHome } from '../helpers/temp-home.js';
import type { TerminalHarness } from '../helpers/terminal-harness.js';
import { waitUntil } from '../helpers/wait-until.js';
import { startGeminiStub, type GeminiStub } from '../support/model-api/gemini-stub.mjs';
import { GEMINI_JS, cliInstalled, launchAgentRow } from './agent-cli.js';

const gemini = loadProfiles({ configDir: '/nonexistent-swb-config' }).profiles.get('gemini')!;
const SLOW_MS = 6000;

afterEach(runCleanups);

describe.skipIf(!cliInstalled(GEMINI_JS))("real Gemini CLI: its hooks fused with the screen", () => {
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
        ],
        default: { parts: [{ text: 'Hello from the stub.' }] },
      },
    });
  });

  afterAll(async () => {
    await stub?.close();
  });

  function startDashboard(home: TempHome, security: Record<string, unknown> = {}): { t: TerminalHarness; userSettings: string } {
    const { t, agentConfig } = launchAgentRow(home, { agent: 'gemini', stubUrl: stub.url, security, row: { wake: 'off' } });
    return { t, userSettings: agentConfig };
  }

  const inputShows = (text: string) => ({ waitFor: (s: string) => new RegExp(`^\\s*>\\s${text}\\s*$`, 'mu').test(s), what: `"${text}" in Gemini's input` });
  // Gemini takes an Enter right after fast typing as part of a paste (a newline, not a submit).
  const SUBMIT: OperatorStep[] = [{ pauseMs: gemini.submitDelayMs }, '\r'];

  /** The floor is the start-to-exit of the hook command the rows run (the native client where it was built, as in both cases here). */
  async function turnHeardFromHooks(t: TerminalHarness, home: TempHome, prompt: string): Promise<void> {
    const states: StateEvent[] = [];
    followStates(home, 'gemini', states);
    const floor = await hookFloorMs(home, 'rows');
    await operate(t, [prompt, inputShows(prompt), ...SUBMIT]);
    const asked = await waitUntil(() => stub.requests.find((r) => !r.side && r.lastUser === prompt), { timeoutMs: 90_000, what: 'the prompt at the model' });
    // The turn's start, while the model still answers: busy, decided by the BeforeAgent hook.
    const started = await waitUntil(
      async () => {
        const e = await explainRow(home, 'gemini');
        return e.signals?.hook?.event === 'UserPromptSubmit' && e;
      },
      { timeoutMs: SLOW_MS, intervalMs: 100, what: "the BeforeAgent hook's report" },
    ).catch((err: Error) => {
      throw new Error(`${err.message}\nstates: ${JSON.stringify(states)}\n${t.describe()}`);
    });
    expect(started).toMatchObject({ state: 'busy', signals: { hook: { kind: 'turn-start' } } });
    // Its end, from the AfterAgent hook (turn-end), not the screen's quiet time.
    const idle = await waitUntil(() => states.find((s) => s.state === 'idle' && s.at > asked.at + SLOW_MS - 500), { timeoutMs: 30_000, what: 'idle after the slow turn' }).catch(
      (err: Error) => {
        throw new Error(`${err.message}\nstates: ${JSON.stringify(states)}\n${t.describe()}`);
      },
    );
    process.stdout.write(`gemini-hooks: turn end seen ${idle.at - asked.at - SLOW_MS} ms after the answer's delay (by ${idle.source}, rule ${idle.rule})\n`);
    expect(idle.source).toBe('hook');
    expect((await explainRow(home, 'gemini')).signals?.hook).toMatchObject({ event: 'turn-end', kind: 'turn-end' });
    // Both at the hooks' pace: read within 100 ms of Gemini starting the hook.
    // (A start the screen read first, before any hook said so, needs no hook to be prompt.)
    const start = states.find((s) => s.state === 'busy');
    const startLag = start?.source === 'screen' ? null : expectAtTheHooksPace(start, floor, "the turn's start (BeforeAgent)");
    const endLag = expectAtTheHooksPace(idle, floor, "the turn's end (AfterAgent)");
    process.stdout.write(`gemini-hooks: start read ${startLag === null ? 'by the screen first' : `${startLag.toFixed(0)} ms after Gemini started its hook`}, end ${endLag.toFixed(0)} ms after (hook floor ${floor.toFixed(0)} ms)\n`);
  }

  it("a turn's start and end are heard from Gemini's hooks; a tool confirmation reads waiting (permission); the user's settings are untouched", async () => {
    const home = createTempHome();
    const { t, userSettings } = startDashboard(home);
    const before = readFileSync(userSettings, 'utf8');
    await t.waitForText('gemini · idle', { timeoutMs: 90_000 });

    await turnHeardFromHooks(t, home, 'slow one');

    // A tool confirmation: waiting (permission), heard from the Notification hook (ToolPermission).
    await operate(t, ['tool please', inputShows('tool please'), ...SUBMIT]);
    await t.waitForText('gemini · waiting (permission)', { timeoutMs: 30_000 }).catch((err: Error) => {
      throw new Error(`${err.message}\n${t.describe()}`);
    });
    const ls = await runSwb(['ls', '--json'], { home });
    expect((JSON.parse(ls.stdout) as { rows: RowListing[] }).rows.find((r) => r.name === 'gemini')).toMatchObject({ state: 'waiting', reason: 'permission' });
    await waitUntil(async () => (await explainRow(home, 'gemini')).signals?.hook?.event === 'Notification(ToolPermission)', {
      timeoutMs: 10_000,
      intervalMs: 100,
      what: 'the Notification hook to be the newest hook',
    });
    expect(readFileSync(userSettings, 'utf8')).toBe(before);
  }, 240_000);

  it('with environment variable redaction on (SWB_TOKEN stripped from the hooks), the hooks still speak as the row', async () => {
    const home = createTempHome();
    const { t } = startDashboard(home, { environmentVariableRedaction: { enabled: true } });
    await t.waitForText('gemini · idle', { timeoutMs: 90_000 });
    await turnHeardFromHooks(t, home, 'slow two');
  }, 240_000);
});
