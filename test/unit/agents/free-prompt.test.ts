import { describe, expect, it } from 'vitest';
import { isPromptFree, type FreePromptFacts } from '../../../src/agents/free-prompt.js';
import { loadProfiles } from '../../../src/agents/load-profiles.js';
import { readPromptInput } from '../../../src/agents/prompt-input.js';
import type { ScreenSnapshot } from '../../../src/rows/screen-snapshot.js';
import { loadScreenFixture } from '../../helpers/screen-fixture.js';

const claude = loadProfiles({ configDir: '/nonexistent-swb-config' }).profiles.get('claude')!;
const NOW = 50_000;

function facts(snapshot: ScreenSnapshot, over: Partial<FreePromptFacts> = {}): FreePromptFacts {
  return {
    state: 'idle',
    input: readPromptInput(snapshot, claude),
    operatorTypedAt: null,
    now: NOW,
    stillForMs: 5000,
    quietMs: 1500,
    ...over,
  };
}

const idle = loadScreenFixture('claude', 'idle-placeholder.txt').snapshot;

function withInput(text: string, dim: Array<[number, number]> = []): ScreenSnapshot {
  const lines = [...idle.lines];
  lines[9] = `> ${text}`.trimEnd();
  const dimRanges = lines.map(() => [] as Array<[number, number]>);
  dimRanges[9] = dim;
  return { ...idle, lines, dimRanges, cursor: { x: 2 + text.length, y: 9, visible: true } };
}

describe('isPromptFree', () => {
  it('an idle prompt showing only its dim placeholder is free', () => {
    expect(isPromptFree(facts(idle))).toEqual({ free: true, reason: 'free' });
  });

  it('dim ghost text is not a draft, even with no placeholder pattern', () => {
    expect(isPromptFree(facts(withInput('summarize the diff', [[2, 20]]))).free).toBe(true);
  });

  it('typed user text is a draft', () => {
    expect(isPromptFree(facts(withInput('also update the')))).toMatchObject({ free: false, reason: 'draft' });
  });

  it('user text followed by a dim completion is still a draft', () => {
    expect(isPromptFree(facts(withInput('also update the changelog', [[17, 27]])))).toMatchObject({ free: false, reason: 'draft' });
  });

  it('the known placeholder text counts as empty when the screen has no dim information', () => {
    const noDim = { ...idle, dimRanges: undefined };
    expect(readPromptInput(noDim, claude)).toMatchObject({ found: true, text: 'Try "refactor parser.ts"', isEmpty: true });
  });

  it('a dialog blocks', () => {
    const dialog = loadScreenFixture('claude', 'permission-dialog.txt').snapshot;
    expect(isPromptFree(facts(dialog, { state: 'idle' }))).toMatchObject({ free: false, reason: 'dialog-open' });
    expect(isPromptFree(facts(idle, { state: 'waiting' }))).toMatchObject({ free: false, reason: 'dialog-open' });
  });

  it('a cursor off the input line blocks when it is visible', () => {
    const elsewhere = { ...idle, cursor: { x: 0, y: 11, visible: true } };
    expect(isPromptFree(facts(elsewhere))).toMatchObject({ free: false, reason: 'cursor-elsewhere' });
  });

  it('busy, unknown and exited rows are not free', () => {
    for (const state of ['busy', 'unknown', 'exited'] as const) {
      expect(isPromptFree(facts(idle, { state }))).toMatchObject({ free: false, reason: 'not-idle' });
    }
  });

  it('operator typing in the last few seconds blocks, and says when it may retry', () => {
    expect(isPromptFree(facts(idle, { operatorTypedAt: NOW - 1000 }))).toMatchObject({ free: false, reason: 'operator-typing', retryInMs: 4000 });
    expect(isPromptFree(facts(idle, { operatorTypedAt: NOW - 6000 })).free).toBe(true);
    expect(isPromptFree(facts(idle, { operatorTypedAt: NOW - 1000 }))).toMatchObject({ detail: 'the operator typed here 1000 ms ago (wakes wait until 5000 ms pass without a key)' });
  });

  it('a screen that has not been quiet for the quiet time blocks', () => {
    expect(isPromptFree(facts(idle, { stillForMs: 400 }))).toMatchObject({ free: false, reason: 'screen-not-quiet', retryInMs: 1100 });
  });

  it('no input line blocks', () => {
    const blank = { ...idle, lines: idle.lines.map(() => '') };
    expect(isPromptFree(facts(blank))).toMatchObject({ free: false, reason: 'no-input-line' });
  });
});

describe('isPromptFree: programs that hold the terminal', () => {
  it('a full-screen program or a foreground job blocks a prompt that otherwise looks free', () => {
    expect(isPromptFree(facts(idle))).toEqual({ free: true, reason: 'free' });
    expect(isPromptFree(facts(idle, { fullScreen: true }))).toMatchObject({ free: false, reason: 'full-screen' });
    expect(isPromptFree(facts(idle, { foregroundJob: 'vim (process group 42)' }))).toEqual({
      free: false,
      reason: 'foreground-job',
      detail: 'vim (process group 42) is running in the foreground',
    });
  });
});
