// `npm run bench:states` for Codex CLI (issue #37): how truly swb reads a REAL Codex row's state,
// screen-only (`nativeTools: false`: no hooks, no MCP server) beside fused with its hooks as the profile's
// native recipe wires them: UserPromptSubmit, PermissionRequest, PostToolUse, PreCompact and Stop, all
// passed as one `-c hooks=...` for this launch (src/agents/codex-hook-flags.ts; Codex's `notify` is left
// to the user; docs/AGENTS-REAL.md). The pinned Codex runs in the real dashboard against the offline
// Responses API stand-in: a quick turn, a long turn, an approval answered yes and one refused, an Esc
// mid-turn, a crash. Truths and scoring: state-timeline.ts.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadProfiles } from '../../src/agents/load-profiles.js';
import { runCleanups } from '../../test/helpers/cleanup.js';
import { ls } from '../../test/helpers/swb-ls.js';
import { createTempHome, type TempHome } from '../../test/helpers/temp-home.js';
import { startResponsesStub, type ResponsesStub } from '../../test/support/model-api/openai-responses-stub.mjs';
import { CODEX_JS, cliInstalled, launchAgentRow } from '../../test/real-agents/agent-cli.js';
import { ScriptedSession } from './scripted-session.js';
import { hookFloors, overrideQuietTime, report, score, watchRow, type Session } from './state-timeline.js';

const codex = loadProfiles({ configDir: '/nonexistent-swb-config' }).profiles.get('codex')!;
const APPROVAL = 'Would you like to run the following command?';

afterEach(runCleanups);

describe.skipIf(!cliInstalled(CODEX_JS))('bench:states — Codex CLI', () => {
  let stub: ResponsesStub;
  beforeAll(async () => {
    stub = await startResponsesStub({
      script: {
        turns: [
          { match: '^quick', output: [{ type: 'text', text: 'Quick answer.' }] },
          { match: '^long', delayMs: 7000, output: [{ type: 'text', text: 'A long answer.' }] },
          { match: '^slow', delayMs: 30_000, output: [{ type: 'text', text: 'Slow answer.' }] },
          {
            match: '^tool (please|again)',
            output: [{ type: 'function_call', name: 'exec_command', arguments: { cmd: 'touch created-by-stub.txt', justification: 'Create a marker file', sandbox_permissions: 'require_escalated' } }],
            afterTool: 'Created the file.',
          },
        ],
        default: { output: [{ type: 'text', text: 'Hello from the stub.' }] },
      },
    });
  });
  afterAll(async () => {
    await stub?.close();
  });

  async function session(fused: boolean): Promise<Session> {
    const home: TempHome = createTempHome();
    overrideQuietTime(home, 'codex');
    const { t } = launchAgentRow(home, {
      agent: 'codex',
      stubUrl: stub.url,
      args: ['-c', 'sandbox_workspace_write.network_access=true'],
      row: { wake: 'off', ...(fused ? {} : { nativeTools: false }) },
    });
    await t.waitForText('codex · idle', { timeoutMs: 90_000 });
    // Codex's own markers: "Working (3s • esc to interrupt)", or "Waiting for startup · esc cancel" (a
    // submitted prompt held while its MCP servers start: swb's own in the fused row); its approval question.
    const watch = watchRow(home, 'codex', t, { working: /esc to interrupt|Waiting for startup/, dialog: new RegExp(APPROVAL.replace(/[?]/g, '\\?')) });
    await watch.ready();
    const s = new ScriptedSession(
      t,
      {
        inputShows: (text) => ({ waitFor: (screen: string) => new RegExp(`^›\\s${text}\\s*$`, 'mu').test(screen), what: `"${text}" in Codex's input` }),
        // The pause swb's own wake makes (the profile's submitDelayMs): an Enter right after fast typing
        // may be taken as part of a paste (seen once: the first prompt left in Codex's input).
        submit: [{ pauseMs: codex.submitDelayMs }, '\r'],
        requests: () => stub.requests,
        answered: () => stub.answered,
      },
      watch.looks,
      Date.now(),
    );
    watch.seen.unshift({ at: s.t0 - 1, state: 'idle' });
    await s.standard(APPROVAL, '\r', 'approval', async () => (await ls(home)).rows.find((r) => r.name === 'codex')?.pid);
    const t1 = Date.now();
    watch.stop(`/tmp/bench-states-codex-${fused ? 'fused' : 'screen'}.txt`, s.t0);
    return { truth: s.truth, seen: watch.seen, looks: watch.looks, t0: s.t0, t1, ...(fused ? await hookFloors(home) : { floor: [] }) };
  }

  it('screen-only beside fused (hooks)', async () => {
    const screen = await session(false);
    const fused = await session(true);
    process.stdout.write(
      report('Codex CLI (quick, 7 s turn, approval yes, approval refused, Esc mid-turn, Esc at once, crash)', [
        ['screen-only', screen],
        ['fused (hooks)', fused],
      ]),
    );
    expect(score(screen).samples).toBeGreaterThan(0);
    expect(score(fused).samples).toBeGreaterThan(0);
  });
});
