// A cloned repository's switchboard.json is somebody else's code (issue #34.1): the dashboard started
// there shows what the file would run and asks (default no); until the operator trusts the file,
// none of its rows start and its worktrees.setup never runs. `swb trust` trusts it from a shell; a
// file that changed after that is asked about again. Each "did not happen" is checked once the path
// that would have done it is known to have finished (the server's rows listed, the row's program up).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { runCleanups } from '../helpers/cleanup.js';
import { isProcessAlive } from '../helpers/processes.js';
import { runSwb } from '../helpers/run-swb.js';
import { ls } from '../helpers/swb-ls.js';
import { createTempHome, type TempHome } from '../helpers/temp-home.js';
import { startSwb, type TerminalHarness } from '../helpers/terminal-harness.js';
import { waitUntil } from '../helpers/wait-until.js';

afterEach(runCleanups);

const QUESTION = 'Trust this file and run them? [y/N]';

/** A clean HOME and config dir under the temp home: nothing of the machine's own swb settings. */
function cleanEnv(home: TempHome): Record<string, string> {
  mkdirSync(join(home.home, 'user'), { recursive: true });
  return { HOME: join(home.home, 'user'), XDG_CONFIG_HOME: join(home.home, 'user', '.config') };
}

function dashboard(home: TempHome, args: string[] = []): TerminalHarness {
  return startSwb({ home, args, cols: 200, rows: 30, env: cleanEnv(home), recordOutput: true });
}

async function killServer(home: TempHome, t: TerminalHarness): Promise<void> {
  const { pid } = await ls(home);
  const r = await runSwb(['kill-server', '--force'], { home });
  expect(r.status).toBe(0);
  await t.waitForExit();
  await waitUntil(() => !isProcessAlive(pid), { what: `the server ${pid} to end` });
}

const rowNames = async (home: TempHome) => (await ls(home)).rows.map((r) => r.name).sort();

describe('a workspace config the operator has not trusted', () => {
  test('starts none of its rows (the dashboard asks, says why, and runs your shell); after swb trust they run; a changed file asks again, and yes runs it', async () => {
    const home = createTempHome();
    const file = join(home.workspace, 'switchboard.json');
    const marker = join(home.home, 'EVIL-MARKER');
    // The row prints WORD-RAN, a text its command line (shown in the question) does not hold.
    const config = (m: string, word: string) => JSON.stringify({ rows: [{ name: 'evil', command: `touch ${m}; printf '%s-RAN\\n' ${word}; exec sleep 600` }] });
    writeFileSync(file, config(marker, 'EVIL'));

    // Asked, shown the row and its command; Enter (the default) is no.
    const first = dashboard(home);
    await first.waitForText(QUESTION);
    expect(first.output).toContain(`${file} came with this directory and is not trusted yet. It would run, as you:`);
    expect(first.output).toContain(`row evil: runs: touch ${marker}; printf '%s-RAN\\n' EVIL; exec sleep 600`);
    first.write('\r');
    // The screen says why, and the operator's shell runs instead.
    await first.waitForText(`${file} is not trusted, so swb ran nothing it names (1 row)`);
    expect(await rowNames(home)).toEqual(['shell']);
    expect(existsSync(marker)).toBe(false);
    await killServer(home, first);
    expect(existsSync(marker)).toBe(false);

    // Trusted from a shell: no question, the row runs (--fresh: not the shell recorded last time).
    const trusted = await runSwb(['trust'], { home, env: cleanEnv(home) });
    expect(trusted.status).toBe(0);
    const second = dashboard(home, ['--fresh']);
    await second.waitForText('EVIL-RAN');
    expect(existsSync(marker)).toBe(true);
    expect(second.output).not.toContain(QUESTION);
    expect(await rowNames(home)).toEqual(['evil']);
    await killServer(home, second);

    // The file changed: untrusted again, asked again; no keeps its new row from starting.
    const changed = join(home.home, 'CHANGED-MARKER');
    writeFileSync(file, config(changed, 'CHANGED'));
    const third = dashboard(home, ['--fresh']);
    await third.waitForText(QUESTION);
    third.write('n\r');
    await third.waitForText(`${file} is not trusted, so swb ran nothing it names (1 row)`);
    expect(await rowNames(home)).toEqual(['shell']);
    expect(existsSync(changed)).toBe(false);
    await killServer(home, third);

    // Yes trusts it there and then.
    const fourth = dashboard(home, ['--fresh']);
    await fourth.waitForText(QUESTION);
    fourth.write('y\r');
    await fourth.waitForText('CHANGED-RAN');
    expect(existsSync(changed)).toBe(true);
    await killServer(home, fourth);
    const fifth = dashboard(home, ['--fresh']);
    await fifth.waitForText('CHANGED-RAN');
    expect(fifth.output).not.toContain(QUESTION);
  });

  test('Ctrl-C at the question starts nothing: the client says so and exits 1', async () => {
    const home = createTempHome();
    writeFileSync(join(home.workspace, 'switchboard.json'), JSON.stringify({ rows: [{ name: 'evil', command: 'exec sleep 600' }] }));
    const t = dashboard(home);
    await t.waitForText(QUESTION);
    t.write('\x03');
    expect((await t.waitForExit()).exitCode).toBe(1);
    expect(t.output).toContain('swb: interrupted at the question; nothing was started.');
    const after = await runSwb(['ls'], { home });
    expect(after.stderr).toMatch(/NO_SERVER/);
  });

  test('the rows the operator started there are restored as ever: they are the server\u2019s record, not the file\u2019s', async () => {
    const home = createTempHome();
    const marker = join(home.home, 'EVIL-MARKER');
    writeFileSync(join(home.workspace, 'switchboard.json'), JSON.stringify({ rows: [{ name: 'evil', command: `touch ${marker}; exec sleep 600` }] }));
    const first = dashboard(home, ["mine=printf '%s-UP\\n' MINE; exec sleep 600"]);
    await first.waitForText(QUESTION);
    first.write('\r');
    await first.waitForText('MINE-UP');
    await killServer(home, first);

    const second = dashboard(home);
    await second.waitForText(QUESTION);
    second.write('\r');
    await second.waitForText('MINE-UP');
    await second.waitForText(/mine · .*restored/);
    expect(await rowNames(home)).toEqual(['mine']);
    expect(existsSync(marker)).toBe(false);
  });

  test('its worktrees.setup never runs; the row\u2019s own program does', async () => {
    const home = createTempHome();
    const repo = home.workspace;
    const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8' });
    git('init', '-q', '-b', 'main');
    git('-c', 'user.name=t', '-c', 'user.email=t@t.invalid', 'commit', '-q', '--allow-empty', '-m', 'initial');
    writeFileSync(join(repo, '.git', 'info', 'exclude'), 'switchboard.json\n');
    const setupMarker = join(home.home, 'SETUP-MARKER');
    writeFileSync(join(repo, 'switchboard.json'), JSON.stringify({ worktrees: { setup: `touch ${setupMarker}; printf '%s-RAN\\n' SETUP` } }));

    // Nothing but the setup to run: the question is asked; no.
    const t = dashboard(home, ['base=echo BASE-UP; exec sleep 600']);
    await t.waitForText(QUESTION);
    expect(t.output).toContain(`worktrees.setup (a shell command in each new worktree): touch ${setupMarker}; printf '%s-RAN\\n' SETUP`);
    t.write('\r');
    await t.waitForText('BASE-UP');
    const made = await runSwb(['new', '--worktree', '--name', 'agent', '--', 'sh', '-c', 'echo AGENT-UP; exec sh'], { home });
    expect(made.stderr).toBe('');
    expect(made.status).toBe(0);
    // The row's program runs after the setup would have: once it is up, the setup has had its turn.
    const screen = (await t.waitForText('AGENT-UP')).join('\n');
    expect(screen).not.toContain('SETUP-RAN');
    expect(existsSync(setupMarker)).toBe(false);
    expect(existsSync(join(dirname(repo), 'workspace.swb', 'agent'))).toBe(true);
  });
});
