// Claude Code's interrupt line (issue #37): an Esc once the answer has begun, or during a tool, is
// written to the conversation as a user line holding exactly `[Request interrupted by user]` (or `...
// for tool use]`), and no hook reports it. The parser tells it from a prompt or a tool's output that
// quotes the words; the follower reads it promptly during a turn, tells it once, and never parses a
// huge line for it. Lines shaped as the pinned CLI wrote them (bench/states/claude-transcript-probe.mjs).
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ClaudeTranscriptParser } from '../../../src/usage/claude-transcript-parser.js';
import { EVENT_LINE_BYTES } from '../../../src/usage/transcript-parser.js';
import { TranscriptFollower } from '../../../src/usage/transcript-follower.js';
import type { TurnInterrupt } from '../../../src/usage/usage-turn.js';
import { FakeClock } from '../../helpers/fake-clock.js';
import { waitUntil } from '../../helpers/wait-until.js';

const STAMP = '2026-12-06T00:20:11.256Z';
/** The interrupt line as Claude Code 2.1.332 wrote it (ids shortened). */
const interruptLine = (text: string, extra: Record<string, unknown> = {}) =>
  `${JSON.stringify({ parentUuid: 'p1', isSidechain: false, promptId: 'q1', type: 'user', message: { role: 'user', content: [{ type: 'text', text }] }, rowSource: 'harness', uuid: 'u1', timestamp: STAMP, interruptedMessageId: 'msg_1', ...extra })}\n`;
const ESC = '[Request interrupted by user]';
const ESC_TOOL = '[Request interrupted by user for tool use]';
const usageLine = (id: string, output: number) =>
  `${JSON.stringify({ type: 'assistant', message: { id, model: 'claude-haiku-4-5', usage: { input_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: output } } })}\n`;

function interruptsOf(lines: string[]): TurnInterrupt[] {
  const parser = new ClaudeTranscriptParser();
  const out: TurnInterrupt[] = [];
  for (const l of lines) parser.parse(JSON.parse(l), 7, { turn: () => {}, limits: () => {}, interrupted: (i) => out.push(i) });
  return out;
}

describe('ClaudeTranscriptParser: the interrupt line', () => {
  it('an Esc during the answer and one during a tool, each with the line’s own time', () => {
    expect(interruptsOf([interruptLine(ESC), interruptLine(ESC_TOOL)])).toEqual([
      { at: Date.parse(STAMP), during: 'answer' },
      { at: Date.parse(STAMP), during: 'tool' },
    ]);
  });

  it('a line without a timestamp is dated when it was read', () => {
    expect(interruptsOf([interruptLine(ESC, { timestamp: undefined })])).toEqual([{ at: 7, during: 'answer' }]);
  });

  it('a prompt, a subagent’s line, a tool result or a request blob quoting the words is no interrupt', () => {
    const lines = [
      // The operator typed the words as a prompt (Claude keeps a typed prompt as a string).
      JSON.stringify({ type: 'user', message: { role: 'user', content: ESC }, timestamp: STAMP }),
      // A subagent interrupted: its own file, and marked as a side chain.
      interruptLine(ESC, { isSidechain: true }),
      // More than the marker in the message, or not exactly it.
      JSON.stringify({ type: 'user', message: { role: 'user', content: [{ type: 'text', text: ESC }, { type: 'text', text: 'and more' }] } }),
      interruptLine(`${ESC}\n`),
      interruptLine(`${ESC} please`),
      // A tool's output holding the words.
      JSON.stringify({ type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: ESC }] } }),
      // The next request's copy of the conversation (Claude writes it as an api-request-blob).
      JSON.stringify({ type: 'api-request-blob', message: { role: 'user', content: [{ type: 'text', text: ESC }] } }),
      // An assistant line that says the words.
      JSON.stringify({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: ESC }] } }),
    ];
    expect(interruptsOf(lines)).toEqual([]);
  });

  it('the event markers match only the line’s structure, never the words quoted inside a JSON string', () => {
    const parser = new ClaudeTranscriptParser();
    const quoted = JSON.stringify({ type: 'user', message: { role: 'user', content: [{ type: 'tool_result', content: interruptLine(ESC) }] } });
    expect(parser.eventMarkers.some((m) => Buffer.from(quoted).includes(m))).toBe(false);
    expect(parser.eventMarkers.some((m) => Buffer.from(interruptLine(ESC)).includes(m))).toBe(true);
    expect(parser.eventMarkers.some((m) => Buffer.from(interruptLine(ESC_TOOL)).includes(m))).toBe(true);
  });
});

describe('TranscriptFollower: interrupt lines', () => {
  let dir: string;
  let path: string;
  let seen: TurnInterrupt[];
  let commits: number;
  const follower = (o: Partial<ConstructorParameters<typeof TranscriptFollower>[0]> = {}) =>
    new TranscriptFollower({ path, parser: new ClaudeTranscriptParser(), commit: () => commits++, interrupted: (i) => seen.push(i), ...o });

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'swb-interrupt-'));
    path = join(dir, 's.jsonl');
    seen = [];
    commits = 0;
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('each interrupt line is told once, as it is read, with no commit of its own', () => {
    writeFileSync(path, usageLine('a', 5));
    const f = follower();
    f.look();
    expect(commits).toBe(1);
    appendFileSync(path, interruptLine(ESC));
    f.look();
    f.look();
    expect(seen).toEqual([{ at: Date.parse(STAMP), during: 'answer' }]);
    expect(commits).toBe(1);
    appendFileSync(path, interruptLine(ESC_TOOL));
    f.look();
    expect(seen.map((i) => i.during)).toEqual(['answer', 'tool']);
    f.dispose();
  });

  it('an interrupt line still being written waits for its end', () => {
    const whole = interruptLine(ESC);
    writeFileSync(path, whole.slice(0, 60));
    const f = follower();
    f.look();
    expect(seen).toEqual([]);
    appendFileSync(path, whole.slice(60));
    f.look();
    expect(seen).toHaveLength(1);
    f.dispose();
  });

  it('a huge line that holds the marker is not parsed for it (counted oversized); a short one after it is read', () => {
    const huge = `${JSON.stringify({ type: 'user', message: { role: 'user', content: [{ type: 'text', text: ESC }] }, padding: 'x'.repeat(EVENT_LINE_BYTES * 4) })}\n`;
    writeFileSync(path, huge + interruptLine(ESC_TOOL));
    const f = follower();
    f.look();
    expect(seen.map((i) => i.during)).toEqual(['tool']);
    expect(f.counters).toMatchObject({ parsed: 1, oversized: 1 });
    f.dispose();
  });

  it('a failed commit reads the slice again and tells its interrupt then, not twice', () => {
    let fail = true;
    writeFileSync(path, interruptLine(ESC) + usageLine('a', 5));
    const f = follower({
      commit: () => {
        if (fail) throw new Error('disk full');
        commits++;
      },
    });
    expect(() => f.look()).toThrow('disk full');
    expect(seen).toEqual([]);
    fail = false;
    f.look();
    expect(seen).toHaveLength(1);
    expect(commits).toBe(1);
    f.dispose();
  });

  it('a watch event is read after the settle; a shorter settle (a turn) brings a waiting look forward', async () => {
    const clock = new FakeClock();
    writeFileSync(path, '');
    const f = follower({ clock, settleMs: 500 });
    f.watch();
    appendFileSync(path, interruptLine(ESC));
    // The watch's event arrives on the event loop: wait until the look is scheduled.
    await waitUntil(() => clock.pendingTimers > 0, { what: 'the watch event' });
    clock.advance(100);
    expect(seen).toEqual([]); // still waiting out the 500 ms settle
    f.setSettleMs(30);
    clock.advance(30);
    expect(seen).toHaveLength(1);
    f.dispose();
  });
});
