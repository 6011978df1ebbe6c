import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { expandTranscriptPath, sessionHadTurns } from '../../../src/agents/session-transcript.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'swb-transcript-'));
  dirs.push(d);
  return d;
}

describe('expandTranscriptPath', () => {
  test('a set variable wins over its default; an unset one takes the default, whose ~ is the home', () => {
    const t = '${CLAUDE_CONFIG_DIR:-~/.claude}/projects/*/{id}.jsonl';
    expect(expandTranscriptPath(t, 'abc', { CLAUDE_CONFIG_DIR: '/cfg' }, '/home/u')).toBe('/cfg/projects/*/abc.jsonl');
    expect(expandTranscriptPath(t, 'abc', {}, '/home/u')).toBe('/home/u/.claude/projects/*/abc.jsonl');
    expect(expandTranscriptPath(t, 'abc', { CLAUDE_CONFIG_DIR: '' }, '/home/u')).toBe('/home/u/.claude/projects/*/abc.jsonl');
  });
});

describe('sessionHadTurns', () => {
  test('true only when a file matching the template (a * within one segment) is there and not empty', () => {
    const root = tempDir();
    const t = '${ROOT}/projects/*/{id}.jsonl';
    const env = { ROOT: root };
    expect(sessionHadTurns(t, 'id1', env)).toBe(false);
    mkdirSync(join(root, 'projects', '-work-repo'), { recursive: true });
    writeFileSync(join(root, 'projects', '-work-repo', 'id1.jsonl'), '');
    expect(sessionHadTurns(t, 'id1', env)).toBe(false);
    writeFileSync(join(root, 'projects', '-work-repo', 'id1.jsonl'), '{"type":"user"}\n');
    expect(sessionHadTurns(t, 'id1', env)).toBe(true);
    expect(sessionHadTurns(t, 'id2', env)).toBe(false);
  });

  test('a * inside a file name matches within that name (Codex rollout files)', () => {
    const root = tempDir();
    mkdirSync(join(root, 'sessions', '2026', '12', '05'), { recursive: true });
    writeFileSync(join(root, 'sessions', '2026', '12', '05', 'rollout-2026-12-05T01-02-03-xyz.jsonl'), '{}\n');
    expect(sessionHadTurns('${CODEX_HOME}/sessions/*/*/*/rollout-*-{id}.jsonl', 'xyz', { CODEX_HOME: root })).toBe(true);
    expect(sessionHadTurns('${CODEX_HOME}/sessions/*/*/*/rollout-*-{id}.jsonl', 'xy', { CODEX_HOME: root })).toBe(false);
  });
});

describe('Gemini CLI\u2019s chat files', () => {
  test('{id:8} is the id\u2019s first 8 characters, as Gemini CLI names session-<time>-<short id>.json', () => {
    const root = tempDir();
    mkdirSync(join(root, '.gemini', 'tmp', 'abc123', 'chats'), { recursive: true });
    writeFileSync(join(root, '.gemini', 'tmp', 'abc123', 'chats', 'session-2026-12-05T07-40-1a2b3c4d.json'), '{"messages":[{}]}');
    const t = '${GEMINI_CLI_HOME:-~}/.gemini/tmp/*/chats/session-*-{id:8}.json';
    expect(sessionHadTurns(t, '1a2b3c4d-0000-4000-8000-000000000000', { GEMINI_CLI_HOME: root })).toBe(true);
    expect(sessionHadTurns(t, '9a2b3c4d-0000-4000-8000-000000000000', { GEMINI_CLI_HOME: root })).toBe(false);
  });
});

describe('a turn marker', () => {
  test('a transcript the agent writes at start (Gemini CLI: a metadata line) had no turn until the marker shows', () => {
    const root = tempDir();
    const chats = join(root, '.gemini', 'tmp', 'abc123', 'chats');
    mkdirSync(chats, { recursive: true });
    const file = join(chats, 'session-2026-12-05T07-40-1a2b3c4d.jsonl');
    const t = '${GEMINI_CLI_HOME:-~}/.gemini/tmp/*/chats/session-*-{id:8}.json*';
    const id = '1a2b3c4d-0000-4000-8000-000000000000';
    // What Gemini CLI 0.61 writes at start: metadata, and a "user" message of its own (the session context).
    writeFileSync(file, '{"sessionId":"1a2b3c4d-0000-4000-8000-000000000000","kind":"main","startTime":"2026-12-05T07:40:00Z"}\n{"$set":{"messages":[{"id":"m0","type":"user","content":[{"text":"<session_context>..."}]}]}}\n');
    expect(sessionHadTurns(t, id, { GEMINI_CLI_HOME: root })).toBe(true); // no marker: "not empty"
    expect(sessionHadTurns(t, id, { GEMINI_CLI_HOME: root }, '"type":"gemini"')).toBe(false);
    writeFileSync(file, '{"id":"m2","type":"gemini","content":"Noted."}\n', { flag: 'a' });
    expect(sessionHadTurns(t, id, { GEMINI_CLI_HOME: root }, '"type":"gemini"')).toBe(true);
  });

  test('is found across the reader\u2019s chunks, and not through a symlink', () => {
    const root = tempDir();
    mkdirSync(join(root, 'p'), { recursive: true });
    // The marker straddles the 64 KiB chunk boundary.
    const pad = 'x'.repeat(64 * 1024 - 5);
    writeFileSync(join(root, 'p', 'a.jsonl'), `${pad}"type":"user"\n`);
    expect(sessionHadTurns('${R}/p/{id}.jsonl', 'a', { R: root }, '"type":"user"')).toBe(true);
    writeFileSync(join(root, 'p', 'target.jsonl'), '"type":"user"\n');
    symlinkSync(join(root, 'p', 'target.jsonl'), join(root, 'p', 'b.jsonl'));
    expect(sessionHadTurns('${R}/p/{id}.jsonl', 'b', { R: root }, '"type":"user"')).toBe(false);
  });
});
