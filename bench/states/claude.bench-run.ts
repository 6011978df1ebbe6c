// `npm run bench:states` for Claude Code (issue #37): how truly swb reads a REAL Claude Code row's state,
// screen-only beside fused with its hooks. The pinned Claude Code runs in the real dashboard against
// the offline Anthropic stand-in, through one scripted session that exercises every transition: a quick
// turn, a long streamed turn, a turn of tool calls, a permission answered yes and one refused, a
// question put to the operator, an API error and retry, /clear, a compaction, an Esc mid-turn, a crash.
// Truths, timelines and scoring: state-timeline.ts. Per mode it prints agreement, transition latency
// p50/p99 and the longest wrong stretches against both truths, and `swb hook`'s own start-to-exit in
// the same run (a hook's floor). SWB_BENCH_DUMP=1 prints the timelines and keeps the screens in /tmp.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { bundledProfilesDir } from '../../src/agents/load-profiles.js';
import { writeClaudeConfig } from '../../test/helpers/claude-config.js';
import { runCleanups } from '../../test/helpers/cleanup.js';
import { operate, type OperatorStep } from '../../test/helpers/swb-operator.js';
import { runSwb } from '../../test/helpers/run-swb.js';
import { ls } from '../../test/helpers/swb-ls.js';
import { createTempHome, type TempHome } from '../../test/helpers/temp-home.js';
import { startSwb, type TerminalHarness } from '../../test/helpers/terminal-harness.js';
import { waitUntil } from '../../test/helpers/wait-until.js';
import { startAnthropicStub, type AnthropicStub } from '../../test/support/model-api/anthropic-stub.mjs';
import { AGENTS_DIR, cliInstalled } from '../../test/real-agents/agent-cli.js';
import { asSeenTruth, dumpTimelines, score, scoreLine, watchRow, wrongTable, type Mark, type Session } from './state-timeline.js';

const CLAUDE_BIN = process.env.SWB_CLAUDE_BIN ?? join(AGENTS_DIR, '@anthropic-ai/claude-code/bin/claude.exe');
const API_KEY = 'sk-ant-stub-key-0000000000000000000000';
const LONG = 'A long streamed answer, a few words at a time. '.repeat(12);

afterEach(runCleanups);

describe.skipIf(!cliInstalled(CLAUDE_BIN))('bench:states — Claude Code', () => {
  let stub: AnthropicStub;
  beforeAll(async () => {
    stub = await startAnthropicStub({
      script: {
        turns: [
          { match: '^quick', content: [{ type: 'text', text: 'Quick answer.' }] },
          { match: '^stream', delayMs: 1000, streamMs: 6000, content: [{ type: 'text', text: LONG }] },
          { match: '^slow', delayMs: 30_000, content: [{ type: 'text', text: 'Slow answer.' }] },
          { match: '^flaky', failFirst: 2, content: [{ type: 'text', text: 'Answered after retries.' }] },
          {
            match: '^look around',
            content: [{ type: 'tool_use', name: 'Glob', input: { pattern: '*.txt' } }],
            steps: [
              { content: [{ type: 'text', text: 'Found the notes; reading them.' }, { type: 'tool_use', name: 'Grep', input: { pattern: 'note', output_mode: 'content' } }] },
              { delayMs: 1500, content: [{ type: 'text', text: 'The notes say hello.' }] },
            ],
          },
          { match: '^compute', content: [{ type: 'tool_use', name: 'Bash', input: { command: "python3 -c 'print(6*7)'", description: 'Compute' } }], afterTool: 'Computed.' },
          {
            match: '^ask me',
            content: [
              {
                type: 'tool_use',
                name: 'AskUserQuestion',
                input: { questions: [{ question: 'Which colour should I use?', header: 'Colour', multiSelect: false, options: [{ label: 'Red', description: 'warm' }, { label: 'Blue', description: 'cool' }] }] },
              },
            ],
            afterTool: 'Using that colour.',
          },
        ],
        default: { content: [{ type: 'text', text: 'Hello from the stub.' }] },
      },
    });
  });
  afterAll(async () => {
    await stub?.close();
  });

  const inputShows = (text: string): OperatorStep => ({ waitFor: (s: string) => new RegExp(`^❯\\s${text.replace(/[/]/g, '\\/')}\\s*$`, 'mu').test(s), what: `"${text}" in Claude's input` });
  /** A step that notes when the operator's next key goes out. */
  const stamp = (into: (at: number) => void): OperatorStep => ({ waitFor: () => (into(Date.now()), true), what: 'now' });
  const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

  async function session(fused: boolean): Promise<Session> {
    const home: TempHome = createTempHome();
    const { config, project } = writeClaudeConfig(home, {
      bin: CLAUDE_BIN,
      stubUrl: stub.url,
      apiKey: API_KEY,
      args: '--permission-mode default',
      row: { wake: 'off', ...(fused ? {} : { nativeTools: false }) },
    });
    writeFileSync(join(project, 'notes.txt'), 'a note: hello\n');
    // SWB_BENCH_QUIET_MS: Claude's profile with another quiet time (a user profile overrides the bundled
    // one), to measure what the quiet time costs.
    if (process.env.SWB_BENCH_QUIET_MS) {
      const dir = join(home.home, 'config', 'switchboard', 'profiles');
      mkdirSync(dir, { recursive: true });
      const profile = JSON.parse(readFileSync(join(bundledProfilesDir(), 'claude.json'), 'utf8')) as { quietMs: number };
      profile.quietMs = Number(process.env.SWB_BENCH_QUIET_MS);
      writeFileSync(join(dir, 'claude.json'), JSON.stringify(profile));
    }
    const t: TerminalHarness = startSwb({ home, args: ['--config', config], cols: 120, rows: 40 });
    await t.waitForText('claude · idle', { timeoutMs: 60_000 });
    // Attached, so the operator's keys go to Claude and the screen is Claude's own.
    const watch = watchRow(home, 'claude', t, { working: /esc to interrupt|^\s*[✻✶✳✢✽·*] \S[^\n]*…/m, dialog: /Do you want to proceed\?|Enter to select/ });
    await pause(500);
    const t0 = Date.now();
    // The row was idle when the session began (the dashboard said so): both timelines start there.
    const truth: Mark[] = [{ at: t0, state: 'idle', by: 'operator' }];
    watch.seen.unshift({ at: t0 - 1, state: 'idle' });
    const requestOf = (text: string, after: number) => waitUntil(() => stub.requests.find((r) => r.lastUser === text && r.at >= after), { timeoutMs: 30_000, what: text });
    /** Types a line and notes when its Enter goes out. */
    const enter = async (line: string): Promise<number> => {
      let entered = 0;
      await operate(t, [line, inputShows(line), stamp((at) => (entered = at)), '\r']);
      return entered;
    };
    /** A prompt: the turn truly starts when its Enter goes out (the stand-in confirms it got the prompt). */
    const submit = async (prompt: string): Promise<number> => {
      const from = Date.now();
      const at = await enter(prompt);
      await requestOf(prompt, from);
      return at;
    };
    const press = async (key: string): Promise<number> => {
      let pressed = 0;
      await operate(t, [stamp((at) => (pressed = at)), key]);
      return pressed;
    };
    const finalAnswer = (after: number) =>
      waitUntil(() => stub.answered.find((a) => a.at >= after && !a.toolUse && !a.failed), { timeoutMs: 60_000, what: 'the final answer' });
    const toolCall = (after: number) => waitUntil(() => stub.answered.find((a) => a.at >= after && a.toolUse), { timeoutMs: 60_000, what: 'the tool call' });
    /** The operator waits until the agent shows it is done (no busy marker, no dialog), then a little more. */
    const settle = async () => {
      await waitUntil(() => { const l = watch.looks.at(-1); return l !== undefined && !l.working && !l.dialog; }, { timeoutMs: 60_000, what: 'the agent to look done' });
      await pause(2500);
    };

    // A quick turn, a long streamed one, one of tool calls (no permission asked), one whose first two
    // requests fail (Claude retries): each truly ends when the stand-in's last answer finished.
    for (const prompt of ['quick one', 'stream one', 'look around', 'flaky one']) {
      const at = await submit(prompt);
      truth.push({ at, state: 'busy', by: 'operator', label: `${prompt}: Enter` });
      truth.push({ at: (await finalAnswer(at)).at, state: 'idle', by: 'agent', label: `${prompt}: answered` });
      await settle();
    }
    // A permission answered yes, then one refused with Esc.
    for (const answer of ['1', '\x1b']) {
      const what = answer === '1' ? 'permission yes' : 'permission refused';
      const at = await submit('compute it');
      truth.push({ at, state: 'busy', by: 'operator', label: `${what}: Enter` });
      truth.push({ at: (await toolCall(at)).at, state: 'waiting', by: 'agent', label: `${what}: asks` });
      await t.waitForText('Do you want to proceed?', { timeoutMs: 30_000 });
      await pause(1000);
      const pressed = await press(answer);
      if (answer === '1') {
        truth.push({ at: pressed, state: 'busy', by: 'operator', label: `${what}: 1` });
        truth.push({ at: (await finalAnswer(pressed)).at, state: 'idle', by: 'agent', label: `${what}: answered` });
      } else truth.push({ at: pressed, state: 'idle', by: 'operator', label: `${what}: Esc` });
      await settle();
    }
    // A question put to the operator, answered with the first choice.
    {
      const at = await submit('ask me');
      truth.push({ at, state: 'busy', by: 'operator', label: 'question: Enter' });
      truth.push({ at: (await toolCall(at)).at, state: 'waiting', by: 'agent', label: 'question: asks' });
      await t.waitForText('Which colour should I use?', { timeoutMs: 30_000 });
      await pause(1000);
      const pressed = await press('\r');
      truth.push({ at: pressed, state: 'busy', by: 'operator', label: 'question: chosen' });
      truth.push({ at: (await finalAnswer(pressed)).at, state: 'idle', by: 'agent', label: 'question: answered' });
      await settle();
    }
    // /clear: no turn at all; the row is idle throughout.
    {
      await enter('/clear');
      await settle();
    }
    // A compaction: busy from its Enter until the stand-in answered its summary.
    {
      const quick = await submit('quick two');
      truth.push({ at: quick, state: 'busy', by: 'operator', label: 'quick two: Enter' });
      truth.push({ at: (await finalAnswer(quick)).at, state: 'idle', by: 'agent', label: 'quick two: answered' });
      await settle();
      const from = Date.now();
      const at = await enter('/compact');
      truth.push({ at, state: 'busy', by: 'operator', label: '/compact: Enter' });
      await t.waitForText(/compacted/i, { timeoutMs: 60_000 });
      const answers = [...stub.answered, ...stub.sideAnswered].filter((a) => a.at >= from).map((a) => a.at);
      truth.push({ at: Math.max(at, ...answers), state: 'idle', by: 'agent', label: '/compact: summarised' });
      await settle();
    }
    // An Esc mid-turn.
    {
      truth.push({ at: await submit('slow one'), state: 'busy', by: 'operator', label: 'Esc mid-turn: Enter' });
      await pause(2000);
      truth.push({ at: await press('\x1b'), state: 'idle', by: 'operator', label: 'Esc mid-turn: Esc' });
      await settle();
    }
    // A crash: the agent's process is killed.
    {
      const pid = (await ls(home)).rows.find((r) => r.name === 'claude')?.pid;
      if (pid) {
        truth.push({ at: Date.now(), state: 'exited', by: 'operator', label: 'crash: SIGKILL' });
        process.kill(pid, 'SIGKILL');
        await pause(2000);
      }
    }
    const t1 = Date.now();
    watch.stop(`/tmp/bench-states-claude-${fused ? 'fused' : 'screen'}.txt`, t0);
    const floor: number[] = [];
    for (let i = 0; i < 7; i++) {
      const s = performance.now();
      await runSwb(['hook', 'session-end'], { home, input: '{}' });
      floor.push(performance.now() - s);
    }
    return { truth, seen: watch.seen, looks: watch.looks, t0, t1, floor };
  }

  it('screen-only beside fused', async () => {
    const screen = await session(false);
    const fused = await session(true);
    const lines: string[] = [''];
    for (const [name, s] of [['screen-only', screen], ['fused', fused]] as const) {
      const seenTruth = asSeenTruth(s.truth, s.looks);
      if (process.env.SWB_BENCH_DUMP === '1') lines.push(dumpTimelines(`claude ${name}`, s, seenTruth));
      lines.push(scoreLine(`${name} vs stand-in`, score(s)), scoreLine(`${name} vs as-seen`, score(s, seenTruth)));
      if (process.env.SWB_BENCH_DUMP === '1') lines.push(wrongTable(`${name} vs as-seen`, score(s, seenTruth)));
    }
    const floor = score(fused).floor;
    process.stdout.write(
      [
        'bench:states — Claude Code (quick, 7 s streamed, tool calls, API error + retry, permission yes, permission refused, question, /clear, compaction, Esc mid-turn, crash)',
        ...lines,
        `swb hook start-to-exit (median of 7, same run): ${floor.toFixed(0)} ms; goal fused p50 ≤ that + 50 ms = ${(floor + 50).toFixed(0)} ms`,
        '',
      ].join('\n'),
    );
    expect(score(fused).samples).toBeGreaterThan(0);
  });
});
