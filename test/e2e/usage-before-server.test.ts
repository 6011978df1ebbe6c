// A mistyped `swb` command line is a usage error found before anything starts (issue #31.3): a
// typo such as `swb sned @x hi` used to start the workspace's server (which restores every
// recorded row) and then answer INTERNAL with exit 1. Now the client checks the rows and `--help`
// first, with or without a terminal, and the runtime dir stays empty.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { runCleanups } from '../helpers/cleanup.js';
import { runSwb } from '../helpers/run-swb.js';
import { createTempHome, type TempHome } from '../helpers/temp-home.js';
import { startSwb } from '../helpers/terminal-harness.js';

afterEach(runCleanups);

/** Everything under the home's runtime dir (where a server or hub would put its socket, lock and logs). */
function runtimeFiles(home: TempHome): string[] {
  const run = join(home.home, 'run');
  return existsSync(run) ? readdirSync(run, { recursive: true }).map(String) : [];
}

const SUGGESTION = /swb: USAGE: row "sned": "sned" is not a swb command, an agent profile or a program on PATH\. Did you mean `swb send`\?/;

describe('a typo in the dashboard command line starts nothing', () => {
  test('without a terminal: swb sned @x hi exits 2 with USAGE and the suggestion, and no server or hub appears', async () => {
    const home = createTempHome();
    const r = await runSwb(['sned', '@x', 'hi'], { home });
    expect(r.stderr).toMatch(SUGGESTION);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(runtimeFiles(home)).toEqual([]);
    expect(existsSync(home.paths.serverSocketPath)).toBe(false);
    expect(existsSync(home.paths.socketPath)).toBe(false);
  });

  test('in a terminal: swb sned @x hi exits 2 with USAGE and the suggestion, and no server or hub appears', async () => {
    const home = createTempHome();
    const t = startSwb({ home, args: ['sned', '@x', 'hi'], cols: 200 });
    const exit = await t.waitForExit();
    expect(t.screenText().join('\n')).toMatch(SUGGESTION);
    expect(exit.exitCode).toBe(2);
    expect(runtimeFiles(home)).toEqual([]);
  });

  test('swb attach --help and swb server --help print the help, exit 0 and start nothing', async () => {
    const home = createTempHome();
    for (const args of [['attach', '--help'], ['server', '--help'], ['--layout', 'grid', '--help']]) {
      const r = await runSwb(args, { home });
      expect(r.stderr, args.join(' ')).toBe('');
      expect(r.status, args.join(' ')).toBe(0);
      expect(r.stdout).toMatch(/^Usage: swb /);
      expect(r.stdout).toContain('swb attach [ROW ...]');
    }
    const t = startSwb({ home, args: ['attach', '--help'], rows: 80 });
    expect((await t.waitForExit()).exitCode).toBe(0);
    expect(t.screenText().join('\n')).toContain('Usage: swb');
    expect(runtimeFiles(home)).toEqual([]);
  });

  test('a word that names something every object has (constructor, __proto__) is a ROW like any other: USAGE, exit 2, nothing started', async () => {
    const home = createTempHome();
    for (const word of ['constructor', '__proto__', 'toString']) {
      const r = await runSwb([word], { home });
      expect(r.stderr, word).toMatch(new RegExp(`^swb: USAGE: row "${word}": "${word}" is not a swb command, an agent profile or a program on PATH\\.`));
      expect(r.status, word).toBe(2);
    }
    expect(runtimeFiles(home)).toEqual([]);
  });

  test('a mistyped profile is a usage error naming the profile (the profiles are read to tell)', async () => {
    const home = createTempHome();
    const r = await runSwb(['claud'], { home });
    expect(r.stderr).toMatch(/^swb: USAGE: row "claud": .*Did you mean the profile claude\?/);
    expect(r.status).toBe(2);
    expect(runtimeFiles(home)).toEqual([]);
  });
});
