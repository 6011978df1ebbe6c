// The launch plan is plain data: what `swb ARGS` would start, without starting anything.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { planLaunch } from '../../../src/app/launch-plan.js';

function workspace(config?: unknown): { cwd: string; env: NodeJS.ProcessEnv } {
  const cwd = mkdtempSync(join(tmpdir(), 'swb-plan-'));
  if (config !== undefined) writeFileSync(join(cwd, 'switchboard.json'), JSON.stringify(config));
  return { cwd, env: { SWB_HOME: join(cwd, 'home'), XDG_CONFIG_HOME: join(cwd, 'xdg'), SHELL: '/bin/sh', PATH: process.env.PATH ?? '' } };
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

  it("falls back to the config's rows (with their wake policy), then to one shell", () => {
    const a = workspace({ rows: [{ name: 'w', command: 'true', wake: 'off' }] });
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
    expect(planLaunch([], env, cwd)).toEqual({
      exit: 2,
      message: `swb: row w: its working directory ${join(cwd, 'no-such-dir')} does not exist (or is not a directory)`,
    });
  });
});
