// A reader that goes away (`swb ls | head -2`) closes swb's stdout; the next write fails with
// EPIPE (issue #31.14). That used to crash with an unhandled 'error' event and a stack trace; it
// is a quiet exit, status 0, for every command (handled once, at the entry: src/util/closed-stdout.ts).
import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { swbBinPath } from '../../../src/util/package-root.js';
import { runCleanups } from '../../helpers/cleanup.js';
import { startTestHub } from '../../helpers/hub-harness.js';
import { swbEnv } from '../../helpers/run-swb.js';
import { createTempHome, type TempHome } from '../../helpers/temp-home.js';

afterEach(runCleanups);

/** Runs swb with its stdout a pipe whose reading end is closed before swb writes a byte. */
function runIntoClosedPipe(home: TempHome, args: readonly string[]): Promise<{ status: number | null; signal: string | null; stderr: string }> {
  const child = spawn(process.execPath, [swbBinPath(), ...args], { cwd: home.workspace, env: swbEnv(home), stdio: ['ignore', 'pipe', 'pipe'] });
  // Node takes tens of ms to start: the pipe is closed long before the first write.
  child.stdout!.destroy();
  const err: Buffer[] = [];
  child.stderr!.on('data', (b: Buffer) => err.push(b));
  return new Promise((resolve) => child.once('close', (status, signal) => resolve({ status, signal, stderr: Buffer.concat(err).toString('utf8') })));
}

describe('a closed stdout', () => {
  it('is a quiet exit (status 0, nothing on stderr) for commands that print without a hub', async () => {
    const home = createTempHome();
    for (const args of [['schema', 'config'], ['--help'], ['send', '--help']]) {
      expect(await runIntoClosedPipe(home, args), args.join(' ')).toEqual({ status: 0, signal: null, stderr: '' });
    }
  });

  it('is a quiet exit for commands that print what the hub answered', async () => {
    const { home } = await startTestHub();
    for (const args of [['peers'], ['inbox', '--json'], ['status']]) {
      expect(await runIntoClosedPipe(home, args), args.join(' ')).toEqual({ status: 0, signal: null, stderr: '' });
    }
  });
});
