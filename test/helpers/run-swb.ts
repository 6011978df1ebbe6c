// Runs the compiled CLI (`node dist/bin/swb.js`) as a real process against a temp SWB_HOME.
// The child gets a small, explicit environment: nothing of the caller's SWB_*, XDG_*, CI or
// NODE_OPTIONS leaks in, so a test behaves the same inside a row, in CI or on a laptop.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { swbBinPath } from '../../src/util/package-root.js';
import { deferCleanup } from './cleanup.js';
import type { TempHome } from './temp-home.js';

export interface SwbResult {
  /** Exit status, or null when killed by a signal. */
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface SwbRunOptions {
  home: TempHome;
  /** Extra environment (e.g. a row's SWB_SESSION/SWB_TOKEN/SWB_SOCKET). */
  env?: Record<string, string>;
  /** Written to stdin, which is then closed (stdin is closed unless `stdinOpen`, so nothing waits on it). */
  input?: string | Buffer;
  /** Leave stdin open after `input` (spawnSwb only): the test writes more and ends it itself. */
  stdinOpen?: boolean;
  /** Defaults to the home's workspace dir. */
  cwd?: string;
  /** Kill the process and fail after this long (default 15 s). */
  timeoutMs?: number;
  /** The program (and its first arguments) that stands for `swb` here, e.g. the native hook client (hook-clients.ts). */
  via?: readonly string[];
}

export interface SwbProcess {
  child: ChildProcess;
  pid: number;
  stdout(): string;
  stderr(): string;
  /** Resolves when the process exits (with everything it printed). */
  exited: Promise<SwbResult>;
  hasExited(): boolean;
}

const INHERITED = ['PATH', 'HOME', 'LANG', 'LC_ALL', 'TMPDIR', 'USER', 'LOGNAME'];

export function swbEnv(home: TempHome, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const key of INHERITED) if (process.env[key] !== undefined) env[key] = process.env[key];
  return { ...env, ...home.env, ...extra };
}

/** Starts `swb ARGS...`; the process is killed after the test if it is still running. */
export function spawnSwb(args: readonly string[], opts: SwbRunOptions): SwbProcess {
  const bin = swbBinPath();
  if (!existsSync(bin)) throw new Error(`${bin} is missing: run \`npm run build\` before the integration tests`);
  const [file, ...lead] = opts.via ?? [process.execPath, bin];
  const child = spawn(file!, [...lead, ...args], {
    cwd: opts.cwd ?? opts.home.workspace,
    env: swbEnv(opts.home, opts.env),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  if (child.pid === undefined) throw new Error(`could not spawn swb ${args.join(' ')}`);
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout!.on('data', (b: Buffer) => out.push(b));
  child.stderr!.on('data', (b: Buffer) => err.push(b));
  child.stdin!.on('error', () => undefined); // the child may exit before reading its input
  if (!opts.stdinOpen) child.stdin!.end(opts.input ?? '');
  else if (opts.input !== undefined) child.stdin!.write(opts.input);
  let done = false;
  const exited = new Promise<SwbResult>((resolve) => {
    child.once('close', (status, signal) => {
      done = true;
      resolve({ status, signal, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') });
    });
  });
  deferCleanup(`swb ${args.join(' ')}`, async () => {
    if (done) return;
    child.kill('SIGKILL');
    await exited;
  });
  return {
    child,
    pid: child.pid,
    stdout: () => Buffer.concat(out).toString('utf8'),
    stderr: () => Buffer.concat(err).toString('utf8'),
    exited,
    hasExited: () => done,
  };
}

/** Runs `swb ARGS...` to completion. */
export async function runSwb(args: readonly string[], opts: SwbRunOptions): Promise<SwbResult> {
  const proc = spawnSwb(args, opts);
  const timeoutMs = opts.timeoutMs ?? 15_000;
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      proc.child.kill('SIGKILL');
      reject(new Error(`swb ${args.join(' ')} did not exit within ${timeoutMs} ms; stderr: ${proc.stderr()}`));
    }, timeoutMs);
  });
  try {
    return await Promise.race([proc.exited, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
