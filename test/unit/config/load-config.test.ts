import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { recordTrust, trustStorePath } from '../../../src/config/config-trust-store.js';
import { findConfigFile, loadConfig, MAX_CONFIG_BYTES, type LoadConfigOptions } from '../../../src/config/load-config.js';
import { checkConfig, defaultConfig, parseConfig, resolveHubLimits } from '../../../src/config/config-schema.js';
import { DEFAULT_LIMITS } from '../../../src/protocol/limits.js';
import { rawKeySequences } from '../../../src/terminal/key-encodings.js';

let dir: string;
let cwd: string;
let xdg: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'swb-config-'));
  cwd = join(dir, 'project');
  xdg = join(dir, 'xdg');
  mkdirSync(cwd);
  mkdirSync(join(xdg, 'switchboard'), { recursive: true });
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const opts = (more: Partial<LoadConfigOptions> = {}): LoadConfigOptions => ({
  cwd,
  env: { XDG_CONFIG_HOME: xdg, HOME: join(dir, 'home'), SWB_HOME: join(dir, 'swb-home') },
  knownProfiles: ['claude', 'codex', 'gemini', 'aider', 'bash', 'sh'],
  ...more,
});
const write = (path: string, value: unknown): string => {
  writeFileSync(path, typeof value === 'string' ? value : JSON.stringify(value, null, 2));
  return path;
};
function errorOf(o: LoadConfigOptions): string {
  const r = loadConfig(o);
  if (r.ok) throw new Error('expected an error');
  expect(r.error.code).toBe('CONFIG_INVALID');
  return r.error.message;
}

describe('finding the config', () => {
  it('uses the defaults when there is no file', () => {
    const r = loadConfig(opts());
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.path).toBeNull();
    expect(r.value.config).toEqual({ rows: [] });
    expect(r.value.theme.name).toBe('dark');
    expect(r.value.limits).toEqual(DEFAULT_LIMITS);
    expect(r.value.baseDir).toBe(cwd);
  });

  it('prefers ./switchboard.json over the user config', () => {
    write(join(xdg, 'switchboard', 'config.json'), { theme: 'light' });
    expect(findConfigFile(opts())).toBe(join(xdg, 'switchboard', 'config.json'));
    write(join(cwd, 'switchboard.json'), { theme: 'high-contrast' });
    const r = loadConfig(opts());
    expect(r.ok && [r.value.path, r.value.theme.name]).toEqual([join(cwd, 'switchboard.json'), 'high-contrast']);
  });

  it('reads the user config under $XDG_CONFIG_HOME/switchboard', () => {
    write(join(xdg, 'switchboard', 'config.json'), { layout: 'grid' });
    const r = loadConfig(opts());
    expect(r.ok && r.value.config.layout).toBe('grid');
  });

  it('falls back to ~/.config when XDG_CONFIG_HOME is unset or relative', () => {
    const home = join(dir, 'home');
    mkdirSync(join(home, '.config', 'switchboard'), { recursive: true });
    write(join(home, '.config', 'switchboard', 'config.json'), { scrollback: 10 });
    for (const env of [{ HOME: home }, { HOME: home, XDG_CONFIG_HOME: 'relative' }]) {
      const r = loadConfig(opts({ env }));
      expect(r.ok && r.value.config.scrollback).toBe(10);
    }
  });

  it('--config wins, is relative to cwd, and must exist', () => {
    write(join(cwd, 'switchboard.json'), { layout: 'grid' });
    write(join(cwd, 'other.json'), { layout: 'stack' });
    const r = loadConfig(opts({ configPath: 'other.json' }));
    expect(r.ok && r.value.config.layout).toBe('stack');
    expect(errorOf(opts({ configPath: 'missing.json' }))).toBe(`--config ${join(cwd, 'missing.json')}: no such file`);
  });

  it('refuses directories, FIFOs and oversized files before parsing', () => {
    mkdirSync(join(cwd, 'dir.json'));
    expect(errorOf(opts({ configPath: 'dir.json' }))).toMatch(/is not a regular file/);
    execFileSync('mkfifo', [join(cwd, 'fifo.json')]);
    expect(errorOf(opts({ configPath: 'fifo.json' }))).toMatch(/is not a regular file/);
    write(join(cwd, 'big.json'), `{"rows":[],"x":"${'y'.repeat(MAX_CONFIG_BYTES)}"}`);
    expect(errorOf(opts({ configPath: 'big.json' }))).toMatch(/the limit is 1048576/);
  });

  it('follows a symlinked config file', () => {
    write(join(dir, 'real.json'), { theme: 'light' });
    symlinkSync(join(dir, 'real.json'), join(cwd, 'switchboard.json'));
    const r = loadConfig(opts());
    expect(r.ok && r.value.theme.name).toBe('light');
  });
});

describe('errors name the file and the field', () => {
  it('reports JSON syntax errors with line and column', () => {
    const path = write(join(cwd, 'switchboard.json'), '{\n  "rows": [\n    { "command": "x" }\n  ],\n  "theme": dark\n}');
    expect(errorOf(opts())).toBe(`${path}:5:12: unknown word (strings need double quotes; the literals are true, false, null)`);
  });

  it('reports invalid UTF-8', () => {
    writeFileSync(join(cwd, 'switchboard.json'), Buffer.from([0x7b, 0xff, 0x7d]));
    expect(errorOf(opts())).toMatch(/is not valid UTF-8/);
  });

  it.each([
    [{ rows: [{ command: 'x', wake: 'sometimes' }] }, 'rows[0].wake: must be one of "auto", "notify", "off"'],
    [{ rows: [{ name: 'a' }] }, 'rows[0]: a row needs a "command" or a "profile"'],
    [{ rows: [{ command: '   ' }] }, 'rows[0].command: is blank'],
    [{ rows: [{ name: '-x', command: 'y' }] }, 'rows[0].name: a handle is'],
    [{ rows: [{ name: 'all', command: 'y' }] }, 'rows[0].name: "all" is reserved'],
    [{ rows: [{ command: 'y', env: { SWB_TOKEN: 'x' } }] }, 'rows[0].env.SWB_TOKEN: SWB_* variables are set by Switchboard'],
    [{ rows: [{ command: 'y', env: { 'BAD-NAME': 'x' } }] }, 'rows[0].env.BAD-NAME: not a valid environment variable name'],
    [{ rows: [{ command: 'y', env: { A: 1 } }] }, 'rows[0].env.A: expected a string'],
    [{ rows: [{ command: 'y', colour: 'red' }] }, 'rows[0].colour: unknown field'],
    [{ rows: [{ profile: 'nope' }] }, 'rows[0].profile: unknown profile "nope"'],
    [{ theme: '../etc' }, 'theme: a theme name'],
    [{ theme: 'nope' }, 'theme: theme "nope" not found'],
    [{ layout: 'tiles' }, 'layout: must be one of "stack", "grid"'],
    [{ scrollback: -1 }, 'scrollback: must be >= 0'],
    [{ notifications: { bell: 'yes' } }, 'notifications.bell: expected true or false'],
    [{ limits: { maxUnread: -1 } }, 'limits.maxUnread: must be >= 0'],
    [{ limits: { rate: 'fast' } }, 'limits.rate: expected a number'],
    [{ limits: { maxMessageBytes: 65536 } }, 'limits.maxMessageBytes: a message (65536 bytes) plus 1024 bytes of envelope must fit in a frame (65536 bytes)'],
    [{ limits: { burst: 3 } }, 'limits.burst: unknown field'],
    [{ keys: { fly: 'f' } }, 'keys.fly: unknown action'],
    [{ keys: { compose: ['c', 'ctrl+1'] } }, 'keys.compose[1]: "ctrl+1": terminals cannot send ctrl+1'],
    [{ keys: { compose: 'x', mailView: 'x' } }, 'keys.mailView: "x" is already bound to compose'],
    [{ detachKey: 'd' }, 'detachKey: the detach key must be a ctrl or alt chord or a function key'],
    [{ rowz: [] }, 'rowz: unknown field'],
    [[], '(root): expected an object, got an array'],
  ])('%j', (config, message) => {
    const path = write(join(cwd, 'switchboard.json'), config);
    expect(errorOf(opts())).toContain(`${path}: ${message}`);
  });
});

describe('a config with several mistakes', () => {
  it('reports every one of them at once, each naming the file and the field', () => {
    const path = write(join(cwd, 'switchboard.json'), {
      rows: [{ command: 'x', wake: 'sometimes' }, { profile: 'nope' }, { name: 'b', colour: 'red', command: 'y' }],
      layout: 'tiles',
      limits: { maxUnread: -1 },
      theme: 'missing',
      keys: { compose: 'x', mailView: 'x' },
    });
    const lines = errorOf(opts()).split('\n');
    expect(lines).toEqual(
      expect.arrayContaining([
        `${path}: rows[2].colour: unknown field (expected one of: name, command, profile, cwd, env, wake, worktree, nativeTools)`,
        `${path}: rows[0].wake: must be one of "auto", "notify", "off"`,
        `${path}: layout: must be one of "stack", "grid"`,
        `${path}: limits.maxUnread: must be >= 0`,
        `${path}: rows[1].profile: unknown profile "nope" (known: claude, codex, gemini, aider, bash, sh)`,
        expect.stringMatching(/^.*switchboard\.json: keys\.mailView: "x" is already bound to compose$/),
        expect.stringMatching(/^.*switchboard\.json: theme: theme "missing" not found/),
      ]),
    );
    expect(lines).toHaveLength(7);
  });

  it('a bad value and a bad key binding in one file: both named', () => {
    const path = write(join(cwd, 'switchboard.json'), { scrollback: -1, keys: { fly: 'f' } });
    const message = errorOf(opts());
    expect(message).toContain(`${path}: scrollback: must be >= 0`);
    expect(message).toContain(`${path}: keys.fly: unknown action`);
  });
});

describe('a full config', () => {
  it('loads into typed values with keymap, theme and limits resolved', () => {
    const path = write(join(cwd, 'switchboard.json'), {
      $schema: './switchboard.schema.json',
      rows: [
        { name: 'lead', profile: 'claude', cwd: 'web', wake: 'auto' },
        { command: 'npm run watch', env: { NODE_ENV: 'development' }, wake: 'off' },
      ],
      theme: 'light',
      keys: { compose: ['m', '@'], quit: 'Q' },
      detachKey: 'ctrl+]',
      limits: { maxUnread: 0, rate: 5, maxMessageBytes: 8192, retentionDays: 7, expiryHours: 48 },
      layout: 'grid',
      notifications: { bell: true, desktop: false },
      scrollback: 5000,
    });
    // The file is trusted (as `swb trust` records it), so its rows apply too.
    expect(recordTrust(trustStorePath(opts().env), path, createHash('sha256').update(readFileSync(path)).digest('hex')).ok).toBe(true);
    const r = loadConfig(opts());
    if (!r.ok) throw new Error(r.error.message);
    const v = r.value;
    expect(v.path).toBe(path);
    expect(v.baseDir).toBe(cwd);
    expect(v.config.rows).toEqual([
      { name: 'lead', profile: 'claude', cwd: 'web', wake: 'auto' },
      { command: 'npm run watch', env: { NODE_ENV: 'development' }, wake: 'off' },
    ]);
    expect(v.config.keys).toEqual({ compose: ['m', '@'], quit: 'Q' });
    expect(rawKeySequences(v.keymap.detach)[0]).toBe('\x1d');
    expect(v.theme.name).toBe('light');
    expect(v.limits).toEqual({ ...DEFAULT_LIMITS, maxUnread: 0, ratePerSecond: 5, maxMessageBytes: 8192, retentionDays: 7, expiryHours: 48 });
    expect(v.config).not.toHaveProperty('$schema');
  });
});

describe('parseConfig and resolveHubLimits', () => {
  it('defaults rows to []', () => {
    expect(parseConfig({})).toEqual({ rows: [] });
  });
  it('gives, with no file, what the schema makes of an empty file', () => {
    expect(checkConfig({})).toEqual({ ok: true, value: defaultConfig() });
  });
  it('leaves unspecified limits at the hub defaults', () => {
    expect(resolveHubLimits({ rate: 0 })).toEqual({ ...DEFAULT_LIMITS, ratePerSecond: 0 });
  });
});

describe('JSONC config files', () => {
  it('finds switchboard.jsonc and reads comments and trailing commas', () => {
    const dir = mkdtempSync(join(tmpdir(), 'swb-jsonc-'));
    try {
      writeFileSync(join(dir, 'switchboard.jsonc'), '// rows for this repo\n{\n  "layout": "grid", /* two up */\n  "rows": [{ "command": "make watch" },],\n}\n');
      const r = loadConfig({ cwd: dir, env: { HOME: dir, XDG_CONFIG_HOME: join(dir, 'cfg'), SWB_HOME: join(dir, 'swb') } });
      expect(r.ok).toBe(true);
      if (r.ok) {
        expect(r.value.path).toBe(join(dir, 'switchboard.jsonc'));
        // Found in the workspace and not trusted: its layout applies, its row is held back.
        expect(r.value.config).toMatchObject({ layout: 'grid', rows: [] });
        expect(r.value.withheld).toMatchObject({ rows: [{ command: 'make watch' }] });
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
