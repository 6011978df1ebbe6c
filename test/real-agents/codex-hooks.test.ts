// Codex's own hooks fused with the screen on the REAL Codex CLI 0.171 (issue #37), driven through the
// real `swb` dashboard against the offline Responses API stand-in. The codex profile's native recipe
// passes Codex its hooks as one `-c hooks=...` with each hook's trust recorded for the launch (Codex
// runs no untrusted hook): a turn's start (UserPromptSubmit) and end (Stop, reported as turn-end) are
// heard from the hooks — the row's state changes with `source: hook` — and an approval question reads
// `waiting (permission)` from PermissionRequest. The user's own Codex config gets nothing of swb's.
import { readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RowListing } from '../../src/protocol/methods.js';
import { runCleanups } from '../helpers/cleanup.js';
import { expectAtTheHooksPace, followStates, type StateEvent } from '../helpers/follow-states.js';
import { hookFloorMs } from '../helpers/hook-clients.js';
import { explainRow, operate } from '../helpers/swb-operator.js';
import { runSwb } from '../helpers/run-swb.js';
import { createTempHome } from '../helpers/temp-home.js';
import { waitUntil } from '../helpers/wait-until.js';
import { startResponsesStub, type ResponsesStub } from '../support/model-api/openai-responses-stub.mjs';
import { CODEX_JS, cliInstalled, launchAgentRow } from './agent-cli.js';

const SLOW_MS = 4000;

afterEach(runCleanups);

describe.skipIf(!cliInstalled(CODEX_JS))('real Codex CLI: its hooks fused with the screen', () => {
  let stub: ResponsesStub;

  beforeAll(async () => {
    stub = await startResponsesStub({
      script: {
        turns: [
          { match: '^slow', delayMs: SLOW_MS, output: [{ type: 'text', text: 'Slow answer done.' }] },
          {
            match: '^tool please',
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

  const inputShows = (text: string) => ({ waitFor: (s: string) => new RegExp(`^›\\s${text}\\s*$`, 'mu').test(s), what: `"${text}" in Codex's input` });

  it("a turn's start and end are heard from Codex's hooks; an approval reads waiting (permission); its config.toml is untouched", async () => {
    const home = createTempHome();
    const { t, agentConfig: codexConfig } = launchAgentRow(home, { agent: 'codex', stubUrl: stub.url, row: { wake: 'off' } });
    const configBefore = readFileSync(codexConfig, 'utf8');
    await t.waitForText('codex · idle', { timeoutMs: 90_000 });
    const states: StateEvent[] = [];
    followStates(home, 'codex', states);
    const floor = await hookFloorMs(home, 'rows');

    // 1. A slow turn: busy from the UserPromptSubmit hook, idle from the Stop hook.
    const before = states.length;
    await operate(t, ['slow one', inputShows('slow one'), '\r']);
    const asked = await waitUntil(() => stub.requests.find((r) => r.lastUser === 'slow one'), { timeoutMs: 30_000, what: 'the prompt at the model' });
    // The turn's start, while the model is still answering: busy, decided by the UserPromptSubmit hook.
    const started = await waitUntil(
      async () => {
        const e = await explainRow(home, 'codex');
        return e.signals?.hook?.event === 'UserPromptSubmit' && e;
      },
      { timeoutMs: SLOW_MS, intervalMs: 100, what: "the UserPromptSubmit hook's report" },
    );
    expect(started).toMatchObject({ state: 'busy', signals: { hook: { kind: 'turn-start' } } });
    const idle = await waitUntil(() => states.slice(before).find((s) => s.state === 'idle' && s.at > asked.at + SLOW_MS - 500), {
      timeoutMs: 30_000,
      what: 'idle after the slow turn',
    }).catch((err: Error) => {
      throw new Error(`${err.message}\nstates: ${JSON.stringify(states.slice(before))}\n${t.describe()}`);
    });
    const turn = states.slice(before);
    process.stdout.write(`codex-hooks: states of the slow turn ${JSON.stringify(turn.map((s) => [s.state, s.source, s.rule, s.at - asked.at]))}\n`);
    // The turn's end came from the Stop hook (reported as turn-end), not the screen's quiet time.
    expect(idle.source).toBe('hook');
    // Both at the hooks' pace: read within 100 ms of Codex starting the hook.
    // (A start the screen read first, before any hook said so, needs no hook to be prompt.)
    const start = turn.find((s) => s.state === 'busy');
    const startLag = start?.source === 'screen' ? null : expectAtTheHooksPace(start, floor, "the turn's start (UserPromptSubmit)");
    const endLag = expectAtTheHooksPace(idle, floor, "the turn's end (Stop)");
    process.stdout.write(`codex-hooks: start read ${startLag === null ? 'by the screen first' : `${startLag.toFixed(0)} ms after Codex started its hook`}, end ${endLag.toFixed(0)} ms after (hook floor ${floor.toFixed(0)} ms)\n`);
    const why = await explainRow(home, 'codex');
    expect(why.signals?.hook).toMatchObject({ event: 'turn-end', kind: 'turn-end' });

    // 2. An approval question: waiting (permission), heard from the PermissionRequest hook.
    await operate(t, ['tool please', inputShows('tool please'), '\r']);
    await t.waitForText('codex · waiting (permission)', { timeoutMs: 30_000 }).catch((err: Error) => {
      throw new Error(`${err.message}\nstates: ${JSON.stringify(states.slice(before))}\n${t.describe()}`);
    });
    const ls = await runSwb(['ls', '--json'], { home });
    expect((JSON.parse(ls.stdout) as { rows: RowListing[] }).rows.find((r) => r.name === 'codex')).toMatchObject({ state: 'waiting', reason: 'permission' });
    const waiting = await explainRow(home, 'codex');
    expect(waiting.signals?.hook).toMatchObject({ event: 'PermissionRequest', kind: 'waiting', reason: 'permission' });

    // Approved: the tool runs and the turn ends; idle again. The header can read waiting from the
    // PermissionRequest hook before Codex has drawn its question (a 'y' typed then goes to the input,
    // and the question waits forever): the operator answers the question once it is on the screen,
    // and again only while it still is (a key it did not take).
    const ran = () => stub.requests.some((r) => r.toolResult !== undefined);
    const question = (s: string) => s.includes('Would you like to run the following command?') && s.includes('esc to cancel');
    await operate(t, [{ waitFor: question, what: "Codex's approval question" }]);
    for (let tries = 0; !ran() && tries < 10; tries++) {
      if (question(t.screenText().join('\n'))) await operate(t, ['y']);
      await waitUntil(ran, { timeoutMs: 3_000, what: 'the tool result at the model' }).catch(() => undefined);
    }
    await waitUntil(ran, { timeoutMs: 30_000, what: 'the tool result at the model' }).catch((err: Error) => {
      throw new Error(`${err.message}\nrequests: ${JSON.stringify(stub.requests.map((r) => r.lastUser || r.toolResult))}\n${t.describe()}`);
    });
    await t.waitForText('codex · idle', { timeoutMs: 30_000 });

    // Nothing of swb's in the user's Codex config (Codex itself adds notes of its own there): the hooks
    // and their trust lived in the launch's -c flags.
    const after = readFileSync(codexConfig, 'utf8');
    for (const line of configBefore.trim().split('\n')) expect(after).toContain(line);
    expect(after).not.toMatch(/hooks|trusted_hash|notify|mcp_servers/);
  }, 240_000);
});
