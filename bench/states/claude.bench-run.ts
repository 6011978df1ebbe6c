// `npm run bench:states`, first version (issue #37): how truly swb reads a REAL Claude Code row's state,
// screen-only beside fused with its hooks. The pinned Claude Code runs in the real dashboard against the
// offline Anthropic stand-in, which knows when each turn's prompt reached it and when each answer
// finished; the operator's keys (a permission answered yes, no; an Esc) are timed where they are typed.
// A turn truly starts when its Enter goes out and ends when the stand-in's last answer finished (what
// Claude does after that, drawing and running its Stop hook, counts as latency). Per mode it prints: agreement with the truth (samples every 50 ms, outside 300 ms around each true
// transition), transition latency p50/p99, the longest stretch read idle while truly busy and busy while
// truly waiting; and, in the same run, `swb hook`'s own start-to-exit (a hook's floor).
// Missing from this first version: Codex and Gemini, /clear, a compaction, an API error and retry, a
// crash, a question put to the operator, long streaming turns with tool calls.
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { writeClaudeConfig } from '../../test/helpers/claude-config.js';
import { runCleanups } from '../../test/helpers/cleanup.js';
import { operate, type OperatorStep } from '../../test/helpers/swb-operator.js';
import { runSwb, spawnSwb } from '../../test/helpers/run-swb.js';
import { createTempHome, type TempHome } from '../../test/helpers/temp-home.js';
import { startSwb, type TerminalHarness } from '../../test/helpers/terminal-harness.js';
import { waitUntil } from '../../test/helpers/wait-until.js';
import { startAnthropicStub, type AnthropicStub } from '../../test/support/model-api/anthropic-stub.mjs';
import { AGENTS_DIR, cliInstalled } from '../../test/real-agents/agent-cli.js';

const CLAUDE_BIN = process.env.SWB_CLAUDE_BIN ?? join(AGENTS_DIR, '@anthropic-ai/claude-code/bin/claude.exe');
const API_KEY = 'sk-ant-stub-key-0000000000000000000000';
const SAMPLE_MS = 50;
const WINDOW_MS = 300;
type State = 'idle' | 'busy' | 'waiting';

afterEach(runCleanups);

interface Mark {
  at: number;
  state: State;
}

const pct = (xs: number[], p: number) => (xs.length === 0 ? NaN : [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))]!);
const stateAt = (line: readonly Mark[], t: number): string => {
  let s = 'unknown';
  for (const m of line) if (m.at <= t) s = m.state;
  return s;
};

describe.skipIf(!cliInstalled(CLAUDE_BIN))('bench:states — Claude Code', () => {
  let stub: AnthropicStub;
  beforeAll(async () => {
    stub = await startAnthropicStub({
      script: {
        turns: [
          { match: '^quick', content: [{ type: 'text', text: 'Quick answer.' }] },
          { match: '^stream', delayMs: 4000, content: [{ type: 'text', text: 'A long streamed answer.' }] },
          { match: '^slow', delayMs: 30_000, content: [{ type: 'text', text: 'Slow answer.' }] },
          { match: '^compute', content: [{ type: 'tool_use', name: 'Bash', input: { command: "python3 -c 'print(6*7)'", description: 'Compute' } }], afterTool: 'Computed.' },
        ],
        default: { content: [{ type: 'text', text: 'Hello from the stub.' }] },
      },
    });
  });
  afterAll(async () => {
    await stub?.close();
  });

  const inputShows = (text: string): OperatorStep => ({ waitFor: (s: string) => new RegExp(`^❯\\s${text}\\s*$`, 'mu').test(s), what: `"${text}" in Claude's input` });
  /** A step that notes when the operator's next key goes out. */
  const stamp = (into: (at: number) => void): OperatorStep => ({ waitFor: () => (into(Date.now()), true), what: 'now' });

  async function session(fused: boolean) {
    const home: TempHome = createTempHome();
    const { config } = writeClaudeConfig(home, {
      bin: CLAUDE_BIN,
      stubUrl: stub.url,
      apiKey: API_KEY,
      args: '--permission-mode default',
      row: { wake: 'off', ...(fused ? {} : { nativeTools: false }) },
    });
    const t: TerminalHarness = startSwb({ home, args: ['--config', config], cols: 120, rows: 40 });
    await t.waitForText('claude · idle', { timeoutMs: 60_000 });
    const seen: Mark[] = [];
    const events = spawnSwb(['events', '--json', '--kinds', 'state', '--row', 'claude'], { home, timeoutMs: 600_000 });
    let n = 0;
    const poll = setInterval(() => {
      const lines = events.stdout().split('\n');
      for (; n < lines.length - 1; n++) {
        const e = JSON.parse(lines[n]!) as { at: number; state: string };
        seen.push({ at: e.at, state: (e.state === 'unknown' ? 'idle' : e.state) as State });
      }
    }, 10);
    await new Promise((r) => setTimeout(r, 500));
    const t0 = Date.now();
    // The row was idle when the session began (the dashboard said so): both timelines start there.
    const truth: Mark[] = [{ at: t0, state: 'idle' }];
    seen.unshift({ at: t0 - 1, state: 'idle' });
    const requestOf = (text: string, after: number) => waitUntil(() => stub.requests.find((r) => r.lastUser === text && r.at >= after), { timeoutMs: 30_000, what: text });
    /** Types the prompt; the turn truly starts when its Enter goes out (the stand-in confirms it got the prompt). */
    const submit = async (prompt: string): Promise<number> => {
      const from = Date.now();
      let entered = 0;
      await operate(t, [prompt, inputShows(prompt), stamp((at) => (entered = at)), '\r']);
      await requestOf(prompt, from);
      return entered;
    };
    const answerOf = (text: string, after: number, toolUse = false) =>
      waitUntil(() => stub.answered.find((a) => a.lastUser === text && a.at >= after && a.toolUse === toolUse), { timeoutMs: 60_000, what: `answer to ${text}` });
    const settle = () => new Promise((r) => setTimeout(r, 2500));

    for (const prompt of ['quick one', 'stream one']) {
      const from = Date.now();
      truth.push({ at: await submit(prompt), state: 'busy' });
      truth.push({ at: (await answerOf(prompt, from)).at, state: 'idle' });
      await settle();
    }
    for (const answer of ['1', '\x1b']) {
      const from = Date.now();
      const prompt = 'compute it';
      truth.push({ at: await submit(prompt), state: 'busy' });
      truth.push({ at: (await answerOf(prompt, from, true)).at, state: 'waiting' });
      await t.waitForText('Do you want to proceed?', { timeoutMs: 30_000 });
      await new Promise((r) => setTimeout(r, 1000));
      let pressed = 0;
      await operate(t, [stamp((at) => (pressed = at)), answer]);
      if (answer === '1') {
        truth.push({ at: pressed, state: 'busy' });
        const end = await waitUntil(() => stub.answered.find((a) => a.at >= pressed && !a.toolUse), { timeoutMs: 30_000, what: 'the answer after the tool' });
        truth.push({ at: end.at, state: 'idle' });
      } else truth.push({ at: pressed, state: 'idle' });
      await settle();
    }
    {
      truth.push({ at: await submit('slow one'), state: 'busy' });
      await new Promise((r) => setTimeout(r, 2000));
      let pressed = 0;
      await operate(t, [stamp((at) => (pressed = at)), '\x1b']);
      truth.push({ at: pressed, state: 'idle' });
      await settle();
    }
    const t1 = Date.now();
    clearInterval(poll);
    const lines = events.stdout().split('\n');
    for (; n < lines.length - 1; n++) {
      const e = JSON.parse(lines[n]!) as { at: number; state: string };
      seen.push({ at: e.at, state: (e.state === 'unknown' ? 'idle' : e.state) as State });
    }
    events.child.kill();
    const floor: number[] = [];
    for (let i = 0; i < 7; i++) {
      const s = performance.now();
      await runSwb(['hook', 'session-end'], { home, input: '{}' });
      floor.push(performance.now() - s);
    }
    return { truth, seen, t0, t1, floor };
  }

  function score(r: Awaited<ReturnType<typeof session>>) {
    if (process.env.SWB_BENCH_DUMP === '1') {
      const rel = (m: Mark) => `${m.at - r.t0}:${m.state}`;
      process.stdout.write(`truth ${r.truth.map(rel).join(' ')}\nseen  ${r.seen.map(rel).join(' ')}\n`);
    }
    const transitions = r.truth.slice(1);
    let agree = 0;
    let counted = 0;
    let idleWhileBusy = 0;
    let busyWhileWaiting = 0;
    let runIdle = 0;
    let runBusy = 0;
    for (let t = r.t0; t <= r.t1; t += SAMPLE_MS) {
      const truly = stateAt(r.truth, t);
      const read = stateAt(r.seen, t);
      runIdle = truly === 'busy' && read === 'idle' ? runIdle + SAMPLE_MS : 0;
      runBusy = truly === 'waiting' && read === 'busy' ? runBusy + SAMPLE_MS : 0;
      idleWhileBusy = Math.max(idleWhileBusy, runIdle);
      busyWhileWaiting = Math.max(busyWhileWaiting, runBusy);
      if (transitions.some((m) => Math.abs(m.at - t) <= WINDOW_MS)) continue;
      counted++;
      if (truly === read) agree++;
    }
    const latencies = transitions.map((m) => {
      const hit = r.seen.find((s) => s.at >= m.at - 2000 && s.state === m.state && stateAt(r.seen, m.at - 2001) !== m.state);
      return hit ? hit.at - m.at : NaN;
    });
    const ok = latencies.filter((x) => !Number.isNaN(x));
    return {
      agreement: (100 * agree) / Math.max(1, counted),
      samples: counted,
      p50: pct(ok, 50),
      p99: pct(ok, 99),
      missed: latencies.length - ok.length,
      idleWhileBusy,
      busyWhileWaiting,
      floor: pct(r.floor, 50),
    };
  }

  it('screen-only beside fused', async () => {
    const screen = score(await session(false));
    const fused = score(await session(true));
    const row = (name: string, s: ReturnType<typeof score>) =>
      `${name.padEnd(12)} ${s.agreement.toFixed(1).padStart(6)} %  (${s.samples} samples)  p50 ${s.p50.toFixed(0).padStart(5)} ms  p99 ${s.p99.toFixed(0).padStart(5)} ms  missed ${s.missed}  ` +
      `idle-while-busy ${s.idleWhileBusy} ms  busy-while-waiting ${s.busyWhileWaiting} ms`;
    process.stdout.write(
      [
        '',
        'bench:states — Claude Code (quick turn, 4 s streamed turn, permission yes, permission refused with Esc, Esc mid-turn)',
        `mode         agreement (±${WINDOW_MS} ms excluded)   transition latency     longest wrong stretches`,
        row('screen-only', screen),
        row('fused', fused),
        `swb hook start-to-exit (median of 7, same run): ${fused.floor.toFixed(0)} ms; goal fused p50 ≤ that + 50 ms = ${(fused.floor + 50).toFixed(0)} ms`,
        '',
      ].join('\n'),
    );
    expect(fused.samples).toBeGreaterThan(0);
  });
});
