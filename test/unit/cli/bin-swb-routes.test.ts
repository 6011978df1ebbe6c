// bin/swb sends every command line whose first word names no command to the dashboard's own entry
// (src/cli/dashboard-main.ts), and the rest to the ES module entry (bin/swb.ts): it must know every
// command, or `swb NEWCOMMAND` would open a dashboard with a row of that name.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { COMMAND_SUMMARIES } from '../../../src/config/command-names.js';
import { packageBinScript } from '../../../src/util/package-root.js';

/** The words of bin/swb's case lines that keep the ES module entry. */
function esEntryWords(): string[] {
  const script = readFileSync(packageBinScript(), 'utf8');
  const block = script.slice(script.indexOf('entry=$here/../dist/bin/swb.js'));
  const words: string[] = [];
  for (const m of block.matchAll(/^ {2}([^*\s][^)]*)\) ;;$/gm)) words.push(...m[1]!.split('|'));
  return words;
}

/** Which file bin/swb would run for `argv`: its "node" is echo, which prints the flags, the file and argv. */
function entryFor(argv: readonly string[]): string {
  const printed = execFileSync(packageBinScript(), argv, { env: { PATH: process.env.PATH ?? '', SWB_NODE: 'echo' }, encoding: 'utf8' });
  return printed.trim().split(/\s+/).find((w) => w.endsWith('.js') || w.endsWith('.cjs')) ?? printed;
}

describe('bin/swb routes', () => {
  test('every command, and nothing else, keeps the ES module entry (with help, version and server)', () => {
    expect(esEntryWords().sort()).toEqual([...Object.keys(COMMAND_SUMMARIES), 'help', '--help', '-h', '--version', 'server'].sort());
  });

  test('a command runs the ES module entry; a row, a flag, attach or nothing runs the dashboard\'s own', () => {
    for (const argv of [['send', '@x', 'hi'], ['kill-server'], ['--help'], ['server'], ['hook', 'stop']]) expect(entryFor(argv), argv.join(' ')).toMatch(/dist\/bin\/swb\.js$/);
    for (const argv of [[], ['attach'], ['claude', 'codex'], ['sned', '@x', 'hi'], ['--layout', 'grid'], ['constructor']]) {
      expect(entryFor(argv), argv.join(' ')).toMatch(/dist\/src\/cli\/dashboard-main\.cjs$/);
    }
  });
});
