// `npm run bench:states` for Claude Code (issue #37): how truly swb reads a REAL Claude Code row's state,
// screen-only beside fused with its hooks. The pinned Claude Code runs in the real dashboard against
// the offline Anthropic stand-in, through one scripted session that exercises every transition: a quick
// turn, a long streamed turn, a turn of tool calls, a permission answered yes and one refused, a
// question put to the operator, an API error and retry, /clear, a compaction, an Esc before the answer and one during it, a crash.
// Truths, timelines and scoring: state-timeline.ts. Per mode it prints agreement, transition latency
// p50/p99 and the longest wrong stretches against both truths, and the hook command's own start-to-exit in
// the same run (a hook's floor). SWB_BENCH_DUMP=1 prints the timelines and keeps the screens in /tmp.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCleanups } from '../../test/helpers/cleanup.js';
import { ls } from '../../test/helpers/swb-ls.js';
import { createTempHome, type TempHome } from '../../test/helpers/temp-home.js';
import type { TerminalHarness } from '../../test/helpers/terminal-harness.js';
import { startAnthropicStub, type AnthropicStub } from '../../test/support/model-api/anthropic-stub.mjs';
import { CLAUDE_BIN, cliInstalled, startDashboard, writeAgentRowConfig } from '../../test/real-agents/agent-cli.js';
import { ScriptedSession } from './scripted-session.js';
import { hookFloors, overrideQuietTime, report, score, watchRow, type Session } from './state-timeline.js';

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

  async function session(fused: boolean): Promise<Session> {
    const home: TempHome = createTempHome();
    const { config, project } = writeAgentRowConfig(home, { agent: 'claude', stubUrl: stub.url, row: { wake: 'off', ...(fused ? {} : { nativeTools: false }) } });
    writeFileSync(join(project, 'notes.txt'), 'a note: hello\n');
    overrideQuietTime(home, 'claude');
    const t: TerminalHarness = startDashboard(home, config);
    await t.waitForText('claude · idle', { timeoutMs: 60_000 });
    // Claude's own markers: the footer's "esc to interrupt" or a spinner verb line; a permission or a question.
    const watch = watchRow(home, 'claude', t, { working: /esc to interrupt|^\s*[✻✶✳✢✽·*] \S[^\n]*…/m, dialog: /Do you want to proceed\?|Enter to select/ });
    await watch.ready();
    const s = new ScriptedSession(
      t,
      {
        inputShows: (text) => ({ waitFor: (screen: string) => new RegExp(`^❯\\s${text.replace(/[/]/g, '\\/')}\\s*$`, 'mu').test(screen), what: `"${text}" in Claude's input` }),
        submit: ['\r'],
        requests: () => stub.requests,
        answered: () => stub.answered,
      },
      watch.looks,
      Date.now(),
    );
    watch.seen.unshift({ at: s.t0 - 1, state: 'idle' });

    // A quick turn, a long streamed one, one of tool calls (no permission asked), one whose first two
    // requests fail (Claude retries).
    for (const prompt of ['quick one', 'stream one', 'look around', 'flaky one']) await s.turn(prompt);
    await s.permission('compute it', 'Do you want to proceed?', '1', true, 'permission yes');
    await s.permission('compute again', 'Do you want to proceed?', '\x1b', false, 'permission refused');
    // A question put to the operator, answered with the first choice.
    await s.permission('ask me', 'Which colour should I use?', '\r', true, 'question');
    // /clear: no turn, no request; but Claude runs the SessionEnd hooks before it clears, with its
    // spinner up (fused: swb's own hook), so it is busy for as long as its screen says.
    {
      const at = await s.enter('/clear');
      s.mark(at, 'busy', '/clear: Enter');
      s.mark(at + 1, 'idle', '/clear: cleared');
      await s.settle();
    }
    // A compaction: busy from its Enter until the stand-in answered its summary.
    await s.turn('quick two');
    {
      const from = Date.now();
      const at = await s.enter('/compact');
      s.mark(at, 'busy', '/compact: Enter');
      await t.waitForText(/compacted/i, { timeoutMs: 60_000 });
      const answers = [...stub.answered, ...stub.sideAnswered].filter((a) => a.at >= from).map((a) => a.at);
      s.mark(Math.max(at, ...answers), 'idle', '/compact: summarised');
      await s.settle();
    }
    // Claude gives an interrupted prompt back as a draft: erased before the next step.
    await s.interrupt('slow one', '\x1b', 2000, true);
    // An Esc once the answer streams (3 s after the Enter: 1 s before the first words, then 6 s of
    // them): Claude writes `[Request interrupted by user]` to its transcript, and no hook runs.
    await s.interrupt('stream two', '\x1b', 3000, true, 'Esc mid-answer');
    await s.escAtOnce('slow two', '\x1b', 250, true);
    await s.crash((await ls(home)).rows.find((r) => r.name === 'claude')?.pid);
    const t1 = Date.now();
    watch.stop(`/tmp/bench-states-claude-${fused ? 'fused' : 'screen'}.txt`, s.t0);
    return { truth: s.truth, seen: watch.seen, looks: watch.looks, t0: s.t0, t1, ...(await hookFloors(home)) };
  }

  it('screen-only beside fused', async () => {
    const screen = await session(false);
    const fused = await session(true);
    process.stdout.write(
      report(
        'Claude Code (quick, 7 s streamed, tool calls, API error + retry, permission yes, permission refused, question, /clear, compaction, Esc mid-turn, Esc mid-answer, Esc at once, crash)',
        [
          ['screen-only', screen],
          ['fused', fused],
        ],
      ),
    );
    expect(score(fused).samples).toBeGreaterThan(0);
  });
});
