import { describe, expect, it } from 'vitest';
import {
  completeMention,
  HANDLE_PATTERN,
  isValidHandle,
  mentionAt,
  parseMentions,
  splitCliTargets,
} from '../../../src/text/mentions.js';

describe('isValidHandle', () => {
  it.each(['a', 'claude', 'codex-2', 'build.watch', '_x', '.hidden', 'A9', 'x'.repeat(64)])('accepts %j', (h) => {
    expect(isValidHandle(h)).toBe(true);
    expect(HANDLE_PATTERN.test(h)).toBe(true);
  });
  it.each(['', '-lead', 'x'.repeat(65), 'has space', 'at@sign', 'slash/x', 'ünï', 'a\nb', 'semi;colon', 'a,b'])(
    'rejects %j',
    (h) => {
      expect(isValidHandle(h)).toBe(false);
    },
  );
});

describe('parseMentions', () => {
  it('takes leading mentions as recipients and the rest as body', () => {
    const p = parseMentions('@a @b please run the tests');
    expect(p.recipients).toEqual(['a', 'b']);
    expect(p.body).toBe('please run the tests');
    expect(p.mentions).toEqual([
      { handle: 'a', start: 0, end: 2 },
      { handle: 'b', start: 3, end: 5 },
    ]);
    expect(p.invalid).toEqual([]);
  });

  it('deduplicates recipients and keeps their order', () => {
    expect(parseMentions('@b @a @b hi').recipients).toEqual(['b', 'a']);
  });

  it('includes all for @all', () => {
    expect(parseMentions('@all standup in 5').recipients).toEqual(['all']);
  });

  it('accepts commas and colons after leading mentions', () => {
    expect(parseMentions('@a, @b: hi').recipients).toEqual(['a', 'b']);
    expect(parseMentions('@a,@b hi')).toMatchObject({ recipients: ['a', 'b'], body: 'hi' });
    expect(parseMentions('@a: hi').body).toBe('hi');
  });

  it('keeps the body as typed, across lines, after leading whitespace', () => {
    const p = parseMentions('  @a\n\nline one\n  line two  ');
    expect(p.recipients).toEqual(['a']);
    expect(p.body).toBe('line one\n  line two  ');
  });

  it('has no recipients when the text does not start with a mention', () => {
    const p = parseMentions('hello @a');
    expect(p.recipients).toEqual([]);
    expect(p.body).toBe('hello @a');
    expect(p.mentions).toEqual([{ handle: 'a', start: 6, end: 8 }]);
  });

  it('reports mentions in the body without making them recipients', () => {
    const p = parseMentions('@a ask @b (and @c) about "@d"');
    expect(p.recipients).toEqual(['a']);
    expect(p.mentions.map((m) => m.handle)).toEqual(['a', 'b', 'c', 'd']);
  });

  it('does not treat email addresses as mentions', () => {
    const p = parseMentions('@a mail bob@example.com or x@y');
    expect(p.recipients).toEqual(['a']);
    expect(p.mentions.map((m) => m.handle)).toEqual(['a']);
  });

  it('trims sentence punctuation from inline mentions', () => {
    const p = parseMentions('thanks @bob. and @carol-');
    expect(p.mentions).toEqual([
      { handle: 'bob', start: 7, end: 11 },
      { handle: 'carol', start: 17, end: 23 },
    ]);
  });

  it('stops at an invalid leading token and reports it', () => {
    const p = parseMentions('@a @-bad hi');
    expect(p.recipients).toEqual(['a']);
    expect(p.body).toBe('@-bad hi');
    expect(p.invalid).toEqual([{ token: '@-bad', start: 3, end: 8 }]);
    expect(parseMentions(`@${'x'.repeat(65)} hi`).invalid).toHaveLength(1);
    expect(parseMentions('@a@@b hi').invalid[0]?.token).toBe('@a@@b');
    // handle@node is a recipient on another node, not an invalid token.
    expect(parseMentions('@a@b hi').recipients).toEqual(['a@b']);
    expect(parseMentions('@all@* hi').recipients).toEqual(['all@*']);
  });

  it('handles mentions-only and empty text', () => {
    expect(parseMentions('@a @b')).toMatchObject({ recipients: ['a', 'b'], body: '' });
    expect(parseMentions('')).toEqual({ recipients: [], body: '', mentions: [], invalid: [] });
    expect(parseMentions('@').invalid).toEqual([{ token: '@', start: 0, end: 1 }]);
  });
});

describe('mentionAt', () => {
  it('finds the partial handle being typed', () => {
    expect(mentionAt('@co', 3)).toEqual({ prefix: 'co', start: 0, end: 3 });
    expect(mentionAt('@a @co hi', 6)).toEqual({ prefix: 'co', start: 3, end: 6 });
  });

  it('covers the whole token when the cursor is inside it', () => {
    expect(mentionAt('@codex hi', 3)).toEqual({ prefix: 'co', start: 0, end: 6 });
  });

  it('offers an empty prefix right after @', () => {
    expect(mentionAt('hi @', 4)).toEqual({ prefix: '', start: 3, end: 4 });
  });

  it('is null outside a mention, in an email, or after a leading dash', () => {
    expect(mentionAt('hello', 3)).toBeNull();
    expect(mentionAt('a@b', 3)).toBeNull();
    expect(mentionAt('@a hi', 4)).toBeNull();
    expect(mentionAt('@-x', 3)).toBeNull();
    expect(mentionAt('', 0)).toBeNull();
  });

  it('clamps the cursor', () => {
    expect(mentionAt('@ab', 99)).toEqual({ prefix: 'ab', start: 0, end: 3 });
  });
});

describe('completeMention', () => {
  it('replaces the partial handle and adds a space', () => {
    expect(completeMention('@co', 3, 'codex')).toEqual({ text: '@codex ', cursor: 7 });
  });

  it('replaces the whole token and reuses an existing space', () => {
    expect(completeMention('@a @cox hi', 5, 'codex')).toEqual({ text: '@a @codex hi', cursor: 10 });
  });

  it('works mid-body', () => {
    expect(completeMention('ask @cl', 7, 'claude')).toEqual({ text: 'ask @claude ', cursor: 12 });
  });

  it('leaves the text alone when there is nothing to complete or the handle is invalid', () => {
    expect(completeMention('hi', 2, 'codex')).toEqual({ text: 'hi', cursor: 2 });
    expect(completeMention('@co', 3, 'bad handle')).toEqual({ text: '@co', cursor: 3 });
  });
});

describe('splitCliTargets', () => {
  it('splits recipients from text words', () => {
    expect(splitCliTargets(['@a', '@b', 'run', 'the', 'tests'])).toEqual({
      ok: true,
      recipients: ['a', 'b'],
      textArgs: ['run', 'the', 'tests'],
    });
  });

  it('deduplicates and accepts comma lists', () => {
    expect(splitCliTargets(['@a,@b', '@a', 'x'])).toEqual({ ok: true, recipients: ['a', 'b'], textArgs: ['x'] });
  });

  it('treats later @words and emails as text', () => {
    expect(splitCliTargets(['@a', 'ping', '@b', 'at', 'me@x.com'])).toEqual({
      ok: true,
      recipients: ['a'],
      textArgs: ['ping', '@b', 'at', 'me@x.com'],
    });
  });

  it('ends recipients at --', () => {
    expect(splitCliTargets(['@a', '--', '@literal', 'text'])).toEqual({
      ok: true,
      recipients: ['a'],
      textArgs: ['@literal', 'text'],
    });
  });

  it('splits one quoted argument like composer input', () => {
    expect(splitCliTargets(['@a @b hello there', 'more'])).toEqual({
      ok: true,
      recipients: ['a', 'b'],
      textArgs: ['hello there', 'more'],
    });
  });

  it('allows text to come from elsewhere (no text args)', () => {
    expect(splitCliTargets(['@all'])).toEqual({ ok: true, recipients: ['all'], textArgs: [] });
  });

  it('explains bad handles and missing recipients', () => {
    const bad = splitCliTargets(['@-x', 'hi']);
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.problem).toMatch(/"@-x" is not a valid recipient/);
    const bad2 = splitCliTargets(['@', 'hi']);
    expect(bad2.ok).toBe(false);
    const none = splitCliTargets(['hello']);
    expect(none).toEqual({ ok: false, problem: 'no recipients: start with @peer (or @all)' });
    expect(splitCliTargets([]).ok).toBe(false);
  });
});
