import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bundledProfilesDir } from '../../../src/agents/load-profiles.js';
import { PROFILE_LIMITS, ProfileError, parseProfile } from '../../../src/agents/profile-schema.js';

const dir = bundledProfilesDir();

function minimal(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    format: 1,
    id: 'test',
    version: '1',
    displayName: 'Test',
    command: ['test-agent'],
    interruptKey: '\u001b',
    wakeLine: 'You have mail.',
    prompt: { line: '^> ' },
    rules: [{ id: 'prompt', state: 'idle', priority: 1, region: { kind: 'bottom', lines: 3 }, match: { lineRegex: '^> ' } }],
    ...extra,
  };
}

function errorOf(json: unknown, file = 'test.json'): ProfileError {
  try {
    parseProfile(json, file);
  } catch (err) {
    if (err instanceof ProfileError) return err;
    throw err;
  }
  throw new Error('expected a ProfileError');
}

function rule(over: Record<string, unknown>): Record<string, unknown> {
  return { id: 'r1', state: 'busy', priority: 10, region: { kind: 'screen' }, match: { contains: 'x' }, ...over };
}

describe('profile schema', () => {
  it('all bundled profiles parse and validate', () => {
    const files = readdirSync(dir).filter((f) => f.endsWith('.json'));
    expect(files.sort()).toEqual(['aider.json', 'bash.json', 'claude.json', 'codex.json', 'fish.json', 'gemini.json', 'generic.json', 'sh.json', 'zsh.json']);
    for (const f of files) {
      const p = parseProfile(JSON.parse(readFileSync(join(dir, f), 'utf8')), f);
      expect(`${p.id}.json`).toBe(f);
      expect(p.rules.length).toBeGreaterThan(0);
      expect(p.rules.some((r) => r.state === 'idle')).toBe(true);
      expect(p.prompt).toMatchObject({ line: expect.any(RegExp), searchLines: expect.any(Number), cursor: expect.any(String) });
    }
  });

  it('applies defaults and orders rules by priority, file order among equals', () => {
    const p = parseProfile(
      minimal({
        rules: [
          rule({ id: 'low', priority: 1 }),
          rule({ id: 'high-a', priority: 9 }),
          rule({ id: 'high-b', priority: 9 }),
        ],
      }),
      't.json',
    );
    expect(p.rules.map((r) => r.id)).toEqual(['high-a', 'high-b', 'low']);
    expect(p.quietMs).toBe(1500);
    expect(p.wakeSubmit).toBe('\r');
    expect(p.command).toEqual({ argv: ['test-agent'] });
    expect(parseProfile(minimal({ command: 'agent --x' }), 't.json').command).toEqual({ shell: 'agent --x' });
  });

  it('accepts "$schema" (for editors) and leaves it out of the profile', () => {
    const p = parseProfile(minimal({ $schema: '../../schemas/profile.schema.json' }), 't.json');
    expect(p.id).toBe('test');
    expect(p).not.toHaveProperty('$schema');
  });

  it('rejects unknown fields with the field path', () => {
    const e = errorOf(minimal({ wakeline: 'typo' }));
    expect(e.message).toMatch(/^test\.json: wakeline: unknown field/);
  });

  it('names the file and the rule id for a bad regex', () => {
    const e = errorOf(minimal({ rules: [rule({ id: 'spinner', match: { any: [{ regex: '(unclosed' }] } })] }), 'claude.json');
    expect(e.file).toBe('claude.json');
    expect(e.ruleId).toBe('spinner');
    expect(e.message).toContain('claude.json: rule "spinner": rules[0].match.any[0].regex: invalid regular expression');
  });

  it('rejects an unknown state, region kind and matcher key inside a named rule', () => {
    expect(errorOf(minimal({ rules: [rule({ id: 'a', state: 'working' })] })).message).toMatch(/rule "a": rules\[0\]\.state: must be one of/);
    expect(errorOf(minimal({ rules: [rule({ id: 'b', region: { kind: 'top', lines: 2 } })] })).message).toMatch(/rule "b": rules\[0\]\.region\.kind/);
    expect(errorOf(minimal({ rules: [rule({ id: 'c', match: { line_regex: 'x' } })] })).message).toMatch(/rule "c": .*needs one of/);
    expect(errorOf(minimal({ rules: [rule({ id: 'd', match: { contains: 'x', regex: 'y' } })] })).message).toMatch(/rule "d": .*one matcher per object/);
  });

  it('rejects duplicate rule ids', () => {
    expect(errorOf(minimal({ rules: [rule({ id: 'x' }), rule({ id: 'x' })] })).message).toMatch(/rule "x".*duplicate rule id/);
  });

  it('caps gate depth, matcher count, regex length and rule count', () => {
    let deep: Record<string, unknown> = { contains: 'x' };
    for (let i = 0; i <= PROFILE_LIMITS.gateDepth; i++) deep = { not: deep };
    expect(errorOf(minimal({ rules: [rule({ id: 'deep', match: deep })] })).message).toMatch(/rule "deep".*nest deeper/);
    const many = { any: Array.from({ length: PROFILE_LIMITS.matchersPerRule }, () => ({ contains: 'x' })) };
    expect(errorOf(minimal({ rules: [rule({ id: 'many', match: many })] })).message).toMatch(/rule "many".*too many matchers/);
    const long = { regex: 'a'.repeat(PROFILE_LIMITS.regexLength + 1) };
    expect(errorOf(minimal({ rules: [rule({ id: 'long', match: long })] })).message).toMatch(/rule "long"/);
    const rules = Array.from({ length: PROFILE_LIMITS.rules + 1 }, (_, i) => rule({ id: `r${i}` }));
    expect(errorOf(minimal({ rules })).message).toMatch(/rules: must have at most/);
  });

  it('requires a printable wake line and a prompt for abovePrompt rules', () => {
    expect(errorOf(minimal({ wakeLine: 'hi\rrm -rf /' })).message).toMatch(/wakeLine: must be printable/);
    const noPrompt = minimal({ rules: [rule({ id: 'above', region: { kind: 'abovePrompt', lines: 2 } })] });
    delete noPrompt.prompt;
    expect(errorOf(noPrompt).message).toMatch(/abovePrompt/);
  });

  it('only allows the i, m and s regex flags', () => {
    expect(parseProfile(minimal({ rules: [rule({ match: { regex: 'x', flags: 'im' } })] }), 't').rules[0]!.match).toMatchObject({ kind: 'regex' });
    expect(errorOf(minimal({ rules: [rule({ id: 'g', match: { regex: 'x', flags: 'g' } })] })).message).toMatch(/rule "g".*flags/);
  });
});
