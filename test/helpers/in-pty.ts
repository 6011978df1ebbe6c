// A shell command in a fresh pty (node-pty), started once it printed READY: a program whose
// terminal a test opens or types into. Killed at the test's cleanup.
import { spawn, type IPty } from 'node-pty';
import { deferCleanup } from './cleanup.js';
import { waitUntil } from './wait-until.js';

export async function inPty(script: string): Promise<{ pty: IPty; output: () => string }> {
  const p = spawn('/bin/sh', ['-c', script], { cols: 80, rows: 24 });
  let out = '';
  p.onData((d) => (out += d));
  deferCleanup('pty program', () => p.kill('SIGKILL'));
  await waitUntil(() => out.includes('READY'), { what: 'the program in the pty to start' });
  return { pty: p, output: () => out };
}
