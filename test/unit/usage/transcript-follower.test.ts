// The follower over a real temp file, driven by explicit looks: only complete lines are read, a line
// being written waits for its end, malformed and unknown lines are skipped and counted, a file that
// appears late is found, and a failed commit leaves the state as it was.
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ClaudeTranscriptParser } from '../../../src/usage/claude-transcript-parser.js';
import { type FollowBatch, TranscriptFollower } from '../../../src/usage/transcript-follower.js';

const line = (id: string, output: number) =>
  `${JSON.stringify({ type: 'assistant', message: { id, model: 'claude-haiku-4-5', usage: { input_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: output } } })}\n`;

describe('TranscriptFollower', () => {
  let dir: string;
  let path: string;
  let batches: FollowBatch[];
  const outputs = () => batches.flatMap((b) => b.turns.map((t) => t.tokens.output));
  const follower = (o: Partial<ConstructorParameters<typeof TranscriptFollower>[0]> = {}) =>
    new TranscriptFollower({ path, parser: new ClaudeTranscriptParser(), commit: (b) => batches.push(b), ...o });

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'swb-follow-'));
    path = join(dir, 's.jsonl');
    batches = [];
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('a file that is not there yet is waited for, then read from its start', () => {
    const f = follower();
    expect(f.look()).toBe(false);
    writeFileSync(path, line('a', 5));
    f.look();
    expect(outputs()).toEqual([5]);
    f.dispose();
  });

  it('a last line without its newline waits for its end; the offset stops before it', () => {
    const whole = line('b', 7);
    writeFileSync(path, line('a', 5) + whole.slice(0, 30));
    const f = follower();
    f.look();
    expect(outputs()).toEqual([5]);
    expect(f.state().offset).toBe(line('a', 5).length);
    f.look();
    expect(batches).toHaveLength(1); // nothing new is complete: no commit
    appendFileSync(path, whole.slice(30));
    f.look();
    expect(outputs()).toEqual([5, 7]);
    f.dispose();
  });

  it('malformed and unknown lines are skipped and counted; lines without usage are not even parsed', () => {
    writeFileSync(path, `{"type":"user","text":"hi"}\n{"usage": broken\n{"type":"newkind","usage":{}}\n${line('a', 3)}`);
    const f = follower();
    f.look();
    expect(outputs()).toEqual([3]);
    expect(f.counters).toMatchObject({ parsed: 3, malformed: 1, unknown: 1 });
    f.dispose();
  });

  it('reads a large backlog in slices, each committed with the state after it', () => {
    writeFileSync(path, Array.from({ length: 200 }, (_, i) => line(`m${i}`, i + 1)).join(''));
    const f = follower({ sliceBytes: 4096 });
    let looks = 1;
    while (f.look()) looks++;
    expect(looks).toBeGreaterThan(5);
    expect(outputs()).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    expect(batches.at(-1)!.state.offset).toBe(batches.reduce((n, b) => n + b.bytes, 0));
    f.dispose();
  });

  it('a line longer than the longest allowed is skipped whole, and the lines after it are read', () => {
    writeFileSync(path, `${line('a', 1)}{"usage":"${'x'.repeat(20_000)}"}\n${line('b', 2)}`);
    const f = follower({ sliceBytes: 1024, maxLineBytes: 4096 });
    while (f.look());
    expect(outputs()).toEqual([1, 2]);
    expect(f.counters.oversized).toBe(1);
    f.dispose();
  });

  it('a commit that fails leaves offset and parser state as they were, so the slice is read again', () => {
    writeFileSync(path, line('a', 4));
    let fail = true;
    const f = follower({ commit: (b) => { if (fail) throw new Error('disk full'); batches.push(b); } });
    expect(() => f.look()).toThrow('disk full');
    expect(f.state().offset).toBe(0);
    fail = false;
    f.look();
    expect(outputs()).toEqual([4]);
    f.dispose();
  });
});
