// A profile's `resume` recipe (issue #10) is data: the bundled Claude Code and Codex recipes parse as
// they are meant (Claude: swb mints the id and passes it with --session-id, resumes with --resume;
// Codex: the id comes from the rollout file it holds open, resumed with `resume <id>`), and a recipe
// that could never resume anything is refused with the field it is wrong about.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bundledProfilesDir } from '../../../src/agents/load-profiles.js';
import { ProfileError, parseProfile } from '../../../src/agents/profile-schema.js';

function bundled(id: string) {
  const file = `${id}.json`;
  return parseProfile(JSON.parse(readFileSync(join(bundledProfilesDir(), file), 'utf8')), file);
}

function withResume(resume: unknown): Record<string, unknown> {
  return {
    format: 1,
    id: 'test',
    version: '1',
    displayName: 'Test',
    command: ['test-agent'],
    interruptKey: '\u001b',
    wakeLine: 'You have mail.',
    rules: [],
    resume,
  };
}

function errorOf(json: unknown): ProfileError {
  try {
    parseProfile(json, 'test.json');
  } catch (err) {
    if (err instanceof ProfileError) return err;
    throw err;
  }
  throw new Error('expected a ProfileError');
}

describe('resume recipes', () => {
  it('Claude Code: swb mints the id, launches with --session-id and resumes with --resume (never --continue)', () => {
    const r = bundled('claude').resume;
    expect(r).toEqual({ mint: true, launchArgs: ['--session-id', '{id}'], resumeArgs: ['--resume', '{id}'], transcript: '${CLAUDE_CONFIG_DIR:-~/.claude}/projects/*/{id}.jsonl', turnMarker: '"type":"user"' });
    expect(JSON.stringify(r)).not.toContain('--continue');
  });

  it('Codex: the id is read from the rollout file it keeps open, and resumed with `resume <id>`', () => {
    const r = bundled('codex').resume!;
    expect(r).toMatchObject({ mint: false, launchArgs: [], resumeArgs: ['resume', '{id}'] });
    const id = '0199a213-81c0-7800-8aa1-bbab2a035a53';
    const path = `/home/op/.codex/sessions/2026/01/31/rollout-2026-01-31T10-00-00-${id}.jsonl`;
    expect(r.openFile!.exec(path)?.groups?.id).toBe(id);
    // Not some other file it has open.
    expect(r.openFile!.exec(`/home/op/.codex/log/codex-${id}.jsonl`)).toBeNull();
    expect(r.openFile!.exec(`/home/op/.codex/sessions/2026/01/31/rollout-x-${id}.jsonl.tmp`)).toBeNull();
  });

  it('profiles without a recipe have none', () => {
    expect(bundled('sh').resume).toBeUndefined();
    expect(bundled('generic').resume).toBeUndefined();
  });

  it('a user recipe that mints is taken as given', () => {
    const p = parseProfile(withResume({ mint: true, launchArgs: ['--session', '{id}'], resumeArgs: ['--resume={id}'] }), 'test.json');
    expect(p.resume).toEqual({ mint: true, launchArgs: ['--session', '{id}'], resumeArgs: ['--resume={id}'] });
  });

  it('a user recipe with openFile compiles it (with the u flag) and keeps its named group', () => {
    const p = parseProfile(withResume({ openFile: '/s/(?<id>[a-z0-9]+)\\.log$', resumeArgs: ['resume', '{id}'] }), 'test.json');
    expect(p.resume!.mint).toBe(false);
    expect(p.resume!.openFile!.flags).toContain('u');
    expect(p.resume!.openFile!.exec('/tmp/s/abc123.log')?.groups?.id).toBe('abc123');
  });

  const refused: Array<[string, unknown, RegExp, RegExp]> = [
    ['both mint and openFile', { mint: true, launchArgs: ['--s', '{id}'], openFile: '(?<id>x)', resumeArgs: ['--r', '{id}'] }, /^resume$/, /either "mint": true .* or "openFile"/],
    ['neither mint nor openFile', { resumeArgs: ['--r', '{id}'] }, /^resume$/, /not both or neither/],
    ['mint: false and no openFile', { mint: false, resumeArgs: ['--r', '{id}'] }, /^resume$/, /not both or neither/],
    ['resumeArgs without {id}', { mint: true, launchArgs: ['--s', '{id}'], resumeArgs: ['--continue'] }, /^resume\.resumeArgs$/, /must use \{id\}/],
    ['mint without {id} in launchArgs', { mint: true, launchArgs: ['--new-session'], resumeArgs: ['--r', '{id}'] }, /^resume\.launchArgs$/, /must use \{id\} when the id is minted/],
    ['mint without launchArgs', { mint: true, resumeArgs: ['--r', '{id}'] }, /^resume\.launchArgs$/, /must use \{id\}/],
    ['openFile without a named group id', { openFile: '/sessions/([0-9a-f-]+)\\.jsonl$', resumeArgs: ['resume', '{id}'] }, /^resume\.openFile$/, /named group \(\?<id>/],
    ['openFile with another named group', { openFile: '/sessions/(?<session>[0-9a-f-]+)\\.jsonl$', resumeArgs: ['resume', '{id}'] }, /^resume\.openFile$/, /named group/],
    ['openFile that is no regex', { openFile: '(?<id>[', resumeArgs: ['resume', '{id}'] }, /^resume\.openFile$/, /invalid regular expression/],
    ['no resumeArgs', { mint: true, launchArgs: ['--s', '{id}'] }, /^resume\.resumeArgs$/, /./],
    ['an unknown field', { mint: true, launchArgs: ['--s', '{id}'], resumeArgs: ['--r', '{id}'], continue: true }, /^resume\.continue$/, /./],
    ['an empty argument', { mint: true, launchArgs: ['--s', '{id}'], resumeArgs: ['', '{id}'] }, /^resume\.resumeArgs\[0\]$/, /./],
  ];

  it.each(refused)('refuses a recipe with %s, naming the field', (_what, resume, path, problem) => {
    const err = errorOf(withResume(resume));
    expect(err.file).toBe('test.json');
    expect(err.path).toMatch(path);
    expect(err.problem).toMatch(problem);
    expect(err.message).toContain('test.json');
  });
});
