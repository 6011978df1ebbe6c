// Hooks fused with the screen on REAL Claude Code (issue #37), driven through the real `swb` dashboard
// against the offline model stand-in: the row's native settings run its hook client (the native one
// where it was built, else `swb hook <event>`) for the turn's
// events, and the row's state (`swb events --kinds state`, with the server's time of each change)
// follows them: a turn's start and end are seen about when the stand-in knows they happen (the floor
// is the hook process itself: measured here and printed), a permission prompt reads
// `waiting (permission)` in the row header and `swb ls --json`, and an Esc interrupt — no hook fires
// for it — comes back to idle through the screen.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RowListing } from '../../src/protocol/methods.js';
import { runCleanups } from '../helpers/cleanup.js';
import { operate } from '../helpers/swb-operator.js';
import { expectAtTheHooksPace, followStates, type StateEvent } from '../helpers/follow-states.js';
import { hookFloorMs } from '../helpers/hook-clients.js';
import { runSwb } from '../helpers/run-swb.js';
import { createTempHome } from '../helpers/temp-home.js';
import { waitUntil } from '../helpers/wait-until.js';
import { startAnthropicStub, type AnthropicStub } from '../support/model-api/anthropic-stub.mjs';
import { CLAUDE_BIN, cliInstalled, launchAgentRow } from './agent-cli.js';


afterEach(runCleanups);


describe.skipIf(!cliInstalled(CLAUDE_BIN))('real Claude Code: hooks fused with the screen', () => {
  let stub: AnthropicStub;

  beforeAll(async () => {
    stub = await startAnthropicStub({
      script: {
        turns: [
          { match: '^quick', content: [{ type: 'text', text: 'Quick answer.' }] },
          { match: '^slow', delayMs: 20_000, content: [{ type: 'text', text: 'Slow answer.' }] },
          { match: '^run it', content: [{ type: 'tool_use', name: 'Bash', input: { command: "python3 -c 'print(42*1000+7)'", description: 'Compute a number' } }], afterTool: 'Ran it.' },
        ],
        default: { content: [{ type: 'text', text: 'Hello from the stub.' }] },
      },
    });
  });

  afterAll(async () => {
    await stub?.close();
  });



  const inputShows = (text: string) => ({ waitFor: (s: string) => new RegExp(`^❯\\s${text}\\s*$`, 'mu').test(s), what: `"${text}" in Claude's input` });


  it("a turn's start and end are seen at the hooks' pace; a permission prompt reads waiting (permission); Esc goes back to idle", async () => {
    const home = createTempHome();
    const { t } = launchAgentRow(home, { agent: 'claude', stubUrl: stub.url, row: { wake: 'off' } });
    const states: StateEvent[] = [];
    await t.waitForText('claude · idle', { timeoutMs: 60_000 });
    followStates(home, 'claude', states);
    await waitUntil(() => true);
    const floor = await hookFloorMs(home, 'rows');
    const nodeFloor = await hookFloorMs(home, 'node');

    // 1. A quick turn: start (the prompt reaches the model) and end (its answer finished streaming).
    const before = states.length;
    await operate(t, ['quick one', inputShows('quick one'), '\r']);
    const asked = await waitUntil(() => stub.requests.find((r) => r.lastUser === 'quick one'), { timeoutMs: 30_000, what: 'the prompt to reach the model' });
    const answered = await waitUntil(() => stub.answered.find((a) => a.lastUser === 'quick one'), { timeoutMs: 30_000, what: 'the answer' });
    const idle = await waitUntil(() => states.slice(before).find((s) => s.state === 'idle'), { timeoutMs: 30_000, what: 'idle after the turn' });
    const busy = states.slice(before).find((s) => s.state === 'busy');
    expect(busy).toBeDefined();
    const startLag = busy!.at - asked.at;
    const endLag = idle.at - answered.at;
    // swb's own part of the end: from the Stop hook's start (the agent runs it when it likes) to the state.
    const endAfterHook = idle.signalAt === undefined ? NaN : idle.at - idle.signalAt;
    process.stdout.write(
      `claude-states: hook floor (the rows' hook command's start-to-exit, median of 5) ${floor.toFixed(0)} ms (\`swb hook\` in node ${nodeFloor.toFixed(0)} ms); turn start seen ${startLag} ms after the model got the prompt (by ${busy!.source}); ` +
        `turn end seen ${endLag} ms after the answer finished (by ${idle.source}, rule ${idle.rule}), ${endAfterHook.toFixed(0)} ms after Claude started that hook; the screen alone waits out its quiet time after Claude's redraw\n`,
    );
    // The start is seen before the model even has the prompt (Claude draws its spinner first; the
    // UserPromptSubmit hook agrees). The end is the Stop hook's: Claude starts it after the answer, then
    // the hook's own process (the floor above: 30-120 ms for the native client here, 150-400 ms for
    // node's). Not asserted within 100 ms: on this loaded machine this first turn's end was seen
    // 181-596 ms after the answer (five runs) while the hook process took 31-117 ms, so most of it is
    // Claude's own time before it starts its Stop hook (bench:states' later turns: 33-100 ms for most).
    // From the hook's start it is asserted: within 100 ms, or the hook process's own start-to-exit
    // measured above plus 50 ms where this loaded machine makes that longer (the goal's floor).
    // The screen alone could not say idle before its quiet time had passed.
    expect(startLag).toBeLessThanOrEqual(100);
    expect(idle.source).toBe('hook');
    expectAtTheHooksPace(idle, floor, "the turn's end (Stop)");
    expect(endLag).toBeLessThan(1500);

    // 2. A permission prompt: waiting (permission) in the header and in `swb ls --json`.
    const answeredBeforeTool = stub.answered.length;
    await operate(t, ['run it', inputShows('run it'), '\r']);
    await t.waitForText('claude · waiting (permission)', { timeoutMs: 30_000 }).catch((err: Error) => {
      throw new Error(`${err.message}\nstates: ${JSON.stringify(states.slice(before))}\n${t.describe()}`);
    });
    const ls = await runSwb(['ls', '--json'], { home });
    const row = (JSON.parse(ls.stdout) as { rows: RowListing[] }).rows.find((r) => r.name === 'claude');
    // On a mismatch, the states the row went through say which signal moved it (the fusion's rule).
    expect(row, `states: ${JSON.stringify(states.slice(before))}`).toMatchObject({ state: 'waiting', reason: 'permission' });
    // Claude's permission dialog ignores keys for a moment after it appears (so a key meant for the
    // input does not answer it): answer again while the dialog is still there and nothing ran.
    const ran = () => stub.requests.some((r) => r.toolResult?.includes('42007'));
    for (let tries = 0; !ran() && tries < 10; tries++) {
      if (t.screenText().join('\n').includes('Do you want to proceed?')) await operate(t, ['1']);
      await waitUntil(ran, { timeoutMs: 2_000, what: 'the tool result to reach the model' }).catch(() => undefined);
    }
    expect(ran()).toBe(true);
    // The turn's end: idle after the stand-in's last answer of it. The header alone can read idle
    // for a moment between the dialog closing and the tool's own hook (seen in a loaded run: the
    // next prompt was then typed into the running turn, and this turn's Stop read as the Esc's idle).
    const toolTurnAnswered = await waitUntil(() => stub.answered.slice(answeredBeforeTool).find((a) => !a.toolUse), { timeoutMs: 30_000, what: "the tool turn's last answer" });
    await waitUntil(() => states.some((s) => s.state === 'idle' && s.at >= toolTurnAnswered.at), { timeoutMs: 30_000, what: 'idle after the tool turn' });
    await t.waitForText('claude · idle', { timeoutMs: 30_000 });

    // 3. An Esc interrupt mid-turn: no hook says so; the screen brings the row back to idle.
    const beforeEsc = states.length;
    await operate(t, ['slow one', inputShows('slow one'), '\r']);
    await waitUntil(() => states.slice(beforeEsc).some((s) => s.state === 'busy'), { timeoutMs: 30_000, what: 'busy' });
    await waitUntil(() => stub.requests.some((r) => r.lastUser === 'slow one'), { timeoutMs: 30_000, what: 'the slow prompt at the model' });
    const escAt = Date.now();
    await operate(t, ['\x1b']);
    const back = await waitUntil(() => states.slice(beforeEsc).find((s) => s.state === 'idle'), { timeoutMs: 30_000, what: 'idle after Esc' });
    process.stdout.write(`claude-states: Esc to idle ${back.at - escAt} ms (by ${back.source}, rule ${back.rule})\n`);
    const explained = JSON.stringify((await runSwb(['explain', 'claude', '--json'], { home })).stdout);
    expect(back.source, `states since the slow prompt (Esc at ${escAt}): ${JSON.stringify(states.slice(beforeEsc))}\nall: ${JSON.stringify(states)}\nexplain: ${explained}`).not.toBe('hook');
  }, 240_000);
});
