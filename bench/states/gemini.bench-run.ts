// `npm run bench:states` for Gemini CLI (issue #37): how truly swb reads a REAL Gemini CLI row's state,
// screen-only (`nativeTools: false`: no hooks, no MCP server) beside fused with its hooks as the profile's
// native recipe wires them: BeforeAgent, AfterAgent, AfterTool and Notification (ToolPermission), in a
// settings file of the row's own named by GEMINI_CLI_SYSTEM_DEFAULTS_PATH, each running `swb hook` in the
// background (docs/AGENTS-REAL.md). The pinned Gemini CLI runs in the real dashboard against the offline
// Gemini API stand-in: a quick turn, a long turn, a shell command's confirmation answered yes and one
// refused, an Esc mid-turn, a crash. Truths and scoring: state-timeline.ts.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadProfiles } from '../../src/agents/load-profiles.js';
import { runCleanups } from '../../test/helpers/cleanup.js';
import { ls } from '../../test/helpers/swb-ls.js';
import { createTempHome, type TempHome } from '../../test/helpers/temp-home.js';
import { startGeminiStub, type GeminiStub } from '../../test/support/model-api/gemini-stub.mjs';
import { GEMINI_JS, cliInstalled, launchAgentRow } from '../../test/real-agents/agent-cli.js';
import { ScriptedSession } from './scripted-session.js';
import { hookFloors, overrideQuietTime, report, score, watchRow, type Session } from './state-timeline.js';

const gemini = loadProfiles({ configDir: '/nonexistent-swb-config' }).profiles.get('gemini')!;

afterEach(runCleanups);

describe.skipIf(!cliInstalled(GEMINI_JS))('bench:states — Gemini CLI', () => {
  let stub: GeminiStub;
  beforeAll(async () => {
    stub = await startGeminiStub({
      script: {
        turns: [
          { match: '^quick', parts: [{ text: 'Quick answer.' }] },
          { match: '^long', delayMs: 7000, parts: [{ text: 'A long answer.' }] },
          { match: '^slow', delayMs: 30_000, parts: [{ text: 'Slow answer.' }] },
          {
            match: '^tool (please|again)',
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

  async function session(fused: boolean): Promise<Session> {
    const home: TempHome = createTempHome();
    overrideQuietTime(home, 'gemini');
    const { t } = launchAgentRow(home, { agent: 'gemini', stubUrl: stub.url, row: { wake: 'off', ...(fused ? {} : { nativeTools: false }) } });
    await t.waitForText('gemini · idle', { timeoutMs: 90_000 });
    // Gemini's own markers: "⠏ Thinking... (esc to cancel, 3s)"; its confirmation "Allow execution of [Shell]?".
    const watch = watchRow(home, 'gemini', t, { working: /\(esc to cancel/, dialog: /Allow execution/ });
    await watch.ready();
    const s = new ScriptedSession(
      t,
      {
        inputShows: (text) => ({ waitFor: (screen: string) => new RegExp(`^\\s*>\\s${text}\\s*$`, 'mu').test(screen), what: `"${text}" in Gemini's input` }),
        // Gemini takes an Enter right after fast typing as part of a paste (a newline, not a submit).
        submit: [{ pauseMs: gemini.submitDelayMs }, '\r'],
        requests: () => stub.requests.filter((r) => !r.side),
        answered: () => stub.answered,
      },
      watch.looks,
      Date.now(),
    );
    watch.seen.unshift({ at: s.t0 - 1, state: 'idle' });
    await s.standard('Allow execution', '\r', 'confirmation', async () => (await ls(home)).rows.find((r) => r.name === 'gemini')?.pid);
    const t1 = Date.now();
    watch.stop(`/tmp/bench-states-gemini-${fused ? 'fused' : 'screen'}.txt`, s.t0);
    return { truth: s.truth, seen: watch.seen, looks: watch.looks, t0: s.t0, t1, ...(fused ? await hookFloors(home) : { floor: [] }) };
  }

  it('screen-only beside fused (hooks)', async () => {
    const screen = await session(false);
    const fused = await session(true);
    process.stdout.write(
      report('Gemini CLI (quick, 7 s turn, confirmation yes, confirmation refused, Esc mid-turn, Esc at once, crash)', [
        ['screen-only', screen],
        ['fused (hooks)', fused],
      ]),
    );
    expect(score(screen).samples).toBeGreaterThan(0);
    expect(score(fused).samples).toBeGreaterThan(0);
  });
});
