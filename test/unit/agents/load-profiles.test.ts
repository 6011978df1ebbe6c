import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bundledProfilesDir, defaultConfigDir, loadProfiles, packageRoot, resolveProfile } from '../../../src/agents/load-profiles.js';
import { detectState } from '../../../src/agents/detect-state.js';

let configDir: string;
beforeEach(() => {
  configDir = mkdtempSync(join(tmpdir(), 'swb-profiles-'));
  mkdirSync(join(configDir, 'profiles'));
});
afterEach(() => rmSync(configDir, { recursive: true, force: true }));

function bundled(id: string): Record<string, unknown> {
  return JSON.parse(readFileSync(join(bundledProfilesDir(), `${id}.json`), 'utf8')) as Record<string, unknown>;
}

describe('loadProfiles', () => {
  it('finds the package root and loads every bundled profile', () => {
    expect(readFileSync(join(packageRoot(), 'package.json'), 'utf8')).toContain('"switchboard"');
    const set = loadProfiles({ configDir });
    expect([...set.profiles.keys()].sort()).toEqual(['aider', 'bash', 'claude', 'codex', 'fish', 'gemini', 'generic', 'sh', 'zsh']);
    expect(set.errors).toEqual([]);
  });

  it('a user file overrides the bundled profile of the same id', () => {
    writeFileSync(join(configDir, 'profiles', 'claude.json'), JSON.stringify({ ...bundled('claude'), quietMs: 4000, version: 'mine' }));
    const p = loadProfiles({ configDir }).profiles.get('claude')!;
    expect(p.quietMs).toBe(4000);
    expect(p.source).toBe(join(configDir, 'profiles', 'claude.json'));
  });

  it('a user file can add a new agent', () => {
    writeFileSync(join(configDir, 'profiles', 'mine.json'), JSON.stringify({ ...bundled('generic'), id: 'mine', displayName: 'Mine' }));
    expect(loadProfiles({ configDir }).profiles.get('mine')?.displayName).toBe('Mine');
  });

  it('an invalid user profile is reported with file and rule, and the bundled one stays', () => {
    const bad = bundled('claude');
    (bad.rules as Array<Record<string, unknown>>)[0]!.match = { regex: '([' };
    writeFileSync(join(configDir, 'profiles', 'claude.json'), JSON.stringify(bad));
    writeFileSync(join(configDir, 'profiles', 'broken.json'), '{ not json');
    const set = loadProfiles({ configDir });
    expect(set.profiles.get('claude')?.source).toBe('bundled:claude.json');
    expect(set.errors).toHaveLength(2);
    expect(set.errors.find((e) => e.file.endsWith('claude.json'))?.message).toMatch(/claude\.json: rule "trust_folder": .*invalid regular expression/);
    expect(set.errors.find((e) => e.file.endsWith('broken.json'))?.message).toMatch(/broken\.json: \(root\): 1:3: unknown word/);
  });

  it('refuses oversized user files', () => {
    writeFileSync(join(configDir, 'profiles', 'huge.json'), `{"x":"${'a'.repeat(300 * 1024)}"}`);
    expect(loadProfiles({ configDir }).errors[0]?.message).toMatch(/larger than/);
  });

  it('uses XDG_CONFIG_HOME for the default config dir', () => {
    expect(defaultConfigDir({ XDG_CONFIG_HOME: '/x/cfg' })).toBe('/x/cfg/switchboard');
    expect(defaultConfigDir({})).toMatch(/\.config\/switchboard$/);
  });

  it('an unknown profile id yields unknown state and a warning, never another agent’s rules', () => {
    const set = loadProfiles({ configDir });
    const r = resolveProfile(set, 'cursor-agent');
    expect(r.warning).toMatch(/no agent profile "cursor-agent"/);
    const d = detectState({ lines: ['> '], cols: 80, rows: 1, cursor: { x: 2, y: 0, visible: true }, title: '', alternateScreen: false }, r.profile);
    expect(d.state).toBe('unknown');
    expect(r.profile.prompt).toBeUndefined();
    expect(resolveProfile(set, 'claude').warning).toBeUndefined();
  });
});
