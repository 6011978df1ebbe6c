import { describe, expect, it } from 'vitest';
import { assignUniqueNames, deriveRowName, firstProgram, parseRowArg, rowSpecFromConfig } from '../../../src/config/row-spec.js';

const PROFILES = ['claude', 'codex', 'gemini', 'aider', 'bash', 'sh'];

describe('parseRowArg', () => {
  it('takes a profile name as a profile', () => {
    expect(parseRowArg('claude', PROFILES)).toEqual({ ok: true, spec: { name: 'claude', nameGiven: false, profile: 'claude' } });
  });

  it('takes anything else as a shell command named after its program', () => {
    expect(parseRowArg('tail -f log', PROFILES)).toEqual({ ok: true, spec: { name: 'tail', nameGiven: false, command: 'tail -f log' } });
    expect(parseRowArg('npm run watch', PROFILES)).toMatchObject({ spec: { name: 'npm', command: 'npm run watch' } });
  });

  it('reads a NAME= prefix', () => {
    expect(parseRowArg('build=npm run watch', PROFILES)).toEqual({
      ok: true,
      spec: { name: 'build', nameGiven: true, command: 'npm run watch' },
    });
    expect(parseRowArg('reviewer=claude', PROFILES)).toEqual({ ok: true, spec: { name: 'reviewer', nameGiven: true, profile: 'claude' } });
  });

  it('infers the profile of a command that runs a known agent', () => {
    expect(parseRowArg('claude --resume', PROFILES)).toMatchObject({ spec: { name: 'claude', command: 'claude --resume', profile: 'claude' } });
    expect(parseRowArg('/usr/local/bin/codex -m o3', PROFILES)).toMatchObject({ spec: { name: 'codex', profile: 'codex' } });
  });

  it('treats a command with "=" after a space as a command', () => {
    expect(parseRowArg('make CFLAGS=-O2', PROFILES)).toMatchObject({ spec: { name: 'make', command: 'make CFLAGS=-O2' } });
    expect(parseRowArg('env FOO=1 make', PROFILES)).toMatchObject({ spec: { name: 'make', command: 'env FOO=1 make' } });
  });

  it('reports empty arguments and reserved names', () => {
    expect(parseRowArg('   ', PROFILES).ok).toBe(false);
    expect(parseRowArg('x=', PROFILES)).toEqual({ ok: false, problem: '"x=" needs a profile or a command after "="' });
    expect(parseRowArg('all=claude', PROFILES)).toMatchObject({ ok: false, problem: expect.stringMatching(/reserved/) });
    expect(parseRowArg('operator=bash', PROFILES).ok).toBe(false);
  });
});

describe('deriveRowName', () => {
  it.each([
    ['npm run watch', 'npm'],
    ['./scripts/dev.sh --fast', 'dev.sh'],
    ['FOO=1 BAR=2 python3 -m http.server', 'python3'],
    ['sudo -E nice -n 10 make all', 'make'],
    ['"/opt/My Tool/run" x', 'run'],
    ["'my tool' arg", 'my-tool'],
    ['cd web && npm start', 'cd'],
    ['$EDITOR notes.md', 'EDITOR'],
    ['ünïcode-thing', 'n-code-thing'],
    ['---', 'row'],
    ['', 'row'],
    [`${'x'.repeat(100)} y`, 'x'.repeat(64)],
  ])('%j → %j', (command, name) => {
    expect(deriveRowName(command)).toBe(name);
  });

  it('firstProgram skips assignments and wrappers', () => {
    expect(firstProgram('env A=b exec claude')).toBe('claude');
  });
});

describe('assignUniqueNames', () => {
  const n = (...names: string[]) => names.map((name) => ({ name }));

  it('suffixes duplicates with -2, -3 in order', () => {
    expect(assignUniqueNames(n('claude', 'claude', 'codex', 'claude')).map((s) => s.name)).toEqual(['claude', 'claude-2', 'codex', 'claude-3']);
  });

  it('skips suffixes another row already uses', () => {
    expect(assignUniqueNames(n('a', 'a', 'a-2')).map((s) => s.name)).toEqual(['a', 'a-3', 'a-2']);
  });

  it('never hands out reserved names', () => {
    expect(assignUniqueNames(n('all', 'operator')).map((s) => s.name)).toEqual(['all-2', 'operator-2']);
  });

  it('keeps suffixed names within 64 characters', () => {
    const long = 'x'.repeat(64);
    const out = assignUniqueNames(n(long, long));
    expect(out[1]?.name).toBe(`${'x'.repeat(62)}-2`);
  });

  it('keeps the other fields and does not mutate the input', () => {
    const input = [{ name: 'a', command: 'x' }, { name: 'a', command: 'y' }];
    const out = assignUniqueNames(input);
    expect(out[1]).toEqual({ name: 'a-2', command: 'y' });
    expect(input[1]?.name).toBe('a');
  });
});

describe('rowSpecFromConfig', () => {
  const env = { HOME: '/home/op' };
  it('derives names, infers profiles and resolves cwd against the config directory', () => {
    expect(rowSpecFromConfig({ command: 'claude --resume', cwd: 'web' }, '/proj', PROFILES, env)).toEqual({
      name: 'claude',
      nameGiven: false,
      command: 'claude --resume',
      profile: 'claude',
      cwd: '/proj/web',
    });
    expect(rowSpecFromConfig({ profile: 'codex', cwd: '~/src', wake: 'notify', env: { A: '1' } }, '/proj', PROFILES, env)).toEqual({
      name: 'codex',
      nameGiven: false,
      profile: 'codex',
      cwd: '/home/op/src',
      wake: 'notify',
      env: { A: '1' },
    });
    expect(rowSpecFromConfig({ name: 'w', command: 'x', cwd: '/abs' }, '/proj', PROFILES, env)).toMatchObject({ name: 'w', nameGiven: true, cwd: '/abs' });
  });
});
