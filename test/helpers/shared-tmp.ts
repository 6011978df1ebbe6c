// A shared /tmp of our own for the client's trust checks (DESIGN §3, issue #9): a fresh 1777 dir
// passed to the CLI as TMPDIR (so the real /tmp/switchboard-<uid> is never touched), a way to run
// the built CLI there with nothing else in its environment, and a "recording hub": a node process,
// possibly running as another user, that listens on a hub.sock and reports every connection and
// every byte it receives, so a test can prove the client sent nothing.
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { swbBinPath } from '../../src/util/package-root.js';
import { deferCleanup } from './cleanup.js';
import { isProcessAlive } from './processes.js';
import type { SwbResult } from './run-swb.js';
import { waitUntil } from './wait-until.js';

/** The "other user" of the tests: nobody/nogroup. */
export const OTHER_UID = 65534;

export function myUid(): number {
  return typeof process.getuid === 'function' ? process.getuid() : 0;
}

export const isRoot = myUid() === 0;

export interface SharedTmp {
  /** The private stand-in for /tmp: mode 1777, owned by root (by us). */
  dir: string;
  /** XDG_STATE_HOME for the CLI (and any hub it meets): mail.db lands here, not in ~/.local/state. */
  stateDir: string;
  /** HOME for the CLI. */
  homeDir: string;
  /** Where `swb` runs from (no .git above it). */
  cwd: string;
  /** `${dir}/switchboard-<our uid>`: the per-user dir a client computes. */
  userDir: string;
  /** The runtime dir of workspace `ws`, as the client computes it with TMPDIR=dir. */
  runDir(ws: string): string;
}

export function createSharedTmp(): SharedTmp {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'swb-shtmp-')));
  // Like the / above a real /tmp: root's, passable by everyone (the other user has to reach `dir`).
  chmodSync(base, 0o755);
  const dir = join(base, 't');
  mkdirSync(dir);
  chmodSync(dir, 0o1777);
  const stateDir = join(base, 'state');
  const homeDir = join(base, 'home');
  const cwd = join(base, 'cwd');
  for (const d of [stateDir, homeDir, cwd]) mkdirSync(d, { mode: 0o700 });
  const userDir = join(dir, `switchboard-${myUid()}`);
  deferCleanup(`shared tmp ${dir}`, async () => {
    await killHubsStartedIn(userDir, dir);
    rmSync(base, { recursive: true, force: true });
  });
  return { dir, stateDir, homeDir, cwd, userDir, runDir: (ws) => join(userDir, ws) };
}

/** A hub a CLI auto-started under this TMPDIR (only if the client got something wrong): kill it, by pid, if it is ours. */
async function killHubsStartedIn(userDir: string, tmp: string): Promise<void> {
  let workspaces: string[] = [];
  try {
    workspaces = readdirSync(userDir);
  } catch {
    return;
  }
  for (const ws of workspaces) {
    let log = '';
    try {
      log = readFileSync(join(userDir, ws, 'hub.log'), 'utf8');
    } catch {
      continue;
    }
    for (const m of log.matchAll(/listening on .* \(pid (\d+)\)/g)) {
      const pid = Number(m[1]);
      let environ = '';
      try {
        environ = readFileSync(`/proc/${pid}/environ`, 'utf8');
      } catch {
        continue;
      }
      if (!environ.split('\0').includes(`TMPDIR=${tmp}`)) continue; // pid reused: not ours
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        continue;
      }
      await waitUntil(() => !isProcessAlive(pid), { timeoutMs: 5000, what: `auto-started hub ${pid} to die` });
    }
  }
}

/** The environment the CLI gets: TMPDIR is the shared tmp; no XDG_RUNTIME_DIR, no SWB_*. */
export function sharedTmpEnv(t: SharedTmp, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { TMPDIR: t.dir, XDG_STATE_HOME: t.stateDir, HOME: t.homeDir };
  for (const key of ['PATH', 'LANG', 'LC_ALL']) if (process.env[key] !== undefined) env[key] = process.env[key];
  return { ...env, ...extra };
}

/** Runs the built CLI with sharedTmpEnv(); killed (and the test failed) after timeoutMs. */
export async function runSwbInSharedTmp(
  t: SharedTmp,
  args: readonly string[],
  opts: { env?: Record<string, string>; timeoutMs?: number } = {},
): Promise<SwbResult & { elapsedMs: number }> {
  const bin = swbBinPath();
  if (!existsSync(bin)) throw new Error(`${bin} is missing: run \`npm run build\` before the integration tests`);
  const started = Date.now();
  const child = spawn(process.execPath, [bin, ...args], { cwd: t.cwd, env: sharedTmpEnv(t, opts.env), stdio: ['ignore', 'pipe', 'pipe'] });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout!.on('data', (b: Buffer) => out.push(b));
  child.stderr!.on('data', (b: Buffer) => err.push(b));
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
  const timeoutMs = opts.timeoutMs ?? 15_000;
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`swb ${args.join(' ')} did not exit within ${timeoutMs} ms; stderr: ${Buffer.concat(err).toString('utf8')}`));
    }, timeoutMs);
  });
  try {
    const result = await Promise.race([exited, timedOut]);
    return { ...result, elapsedMs: Date.now() - started };
  } finally {
    clearTimeout(timer);
  }
}

// The recording hub. argv: socket path, then a JSON setup. It reports on stdout, one JSON line per
// event: listening, connection (with a per-server id), data (hex), close. A connection is ended by
// the recorder after its first newline, so a client that did send a hello fails fast instead of
// waiting for an answer.
const RECORDING_HUB = String.raw`
const net = require('node:net');
const fs = require('node:fs');
const path = require('node:path');
const sockPath = process.argv[1];
const setup = JSON.parse(process.argv[2]);
const out = (o) => process.stdout.write(JSON.stringify(o) + '\n');
if (setup.mkdir) fs.mkdirSync(path.dirname(sockPath), { recursive: true, mode: 0o755 });
let next = 0;
const server = net.createServer((c) => {
  const id = ++next;
  out({ event: 'connection', id });
  let seen = '';
  c.on('data', (d) => {
    out({ event: 'data', id, hex: d.toString('hex') });
    seen += d.toString('latin1');
    if (seen.includes('\n')) c.end();
  });
  c.on('error', () => {});
  c.on('close', () => out({ event: 'close', id }));
});
server.on('error', (e) => { out({ event: 'error', message: e.message }); process.exit(2); });
server.listen(sockPath, () => {
  if (setup.token !== undefined) fs.writeFileSync(path.join(path.dirname(sockPath), 'operator.token'), setup.token, { mode: 0o644 });
  out({ event: 'listening', pid: process.pid, uid: process.getuid() });
});
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
`;

type HubEvent =
  | { event: 'listening'; pid: number; uid: number }
  | { event: 'connection'; id: number }
  | { event: 'data'; id: number; hex: string }
  | { event: 'close'; id: number }
  | { event: 'error'; message: string };

export interface Received {
  /** Connections the recorder accepted, the test's own probe excluded. */
  connections: number;
  /** Bytes received on them. */
  bytes: number;
  /** What was received, as text. */
  text: string;
}

export interface RecordingHub {
  pid: number;
  uid: number;
  socketPath: string;
  child: ChildProcess;
  /**
   * Everything received so far, once it is all in: a probe connection goes through the listen
   * queue behind any connection made before it (so every earlier one has been accepted and
   * reported), and then every earlier connection is waited on until it closed (so all its bytes
   * were reported). Call it after the client under test has exited.
   */
  settle(): Promise<Received>;
}

const PROBE = 'SWB-TEST-PROBE\n';

/**
 * Starts the recording hub on `socketPath`. With `uid`, it runs as that user (root only). With
 * `mkdir`, it creates the socket's directory itself (as that user); with `token`, it writes an
 * operator.token (mode 0644) next to the socket once it listens.
 */
export async function startRecordingHub(socketPath: string, opts: { uid?: number; mkdir?: boolean; token?: string } = {}): Promise<RecordingHub> {
  const setup = { mkdir: opts.mkdir ?? false, ...(opts.token !== undefined ? { token: opts.token } : {}) };
  const child = spawn(process.execPath, ['-e', RECORDING_HUB, socketPath, JSON.stringify(setup)], {
    cwd: '/',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    stdio: ['pipe', 'pipe', 'pipe'],
    ...(opts.uid !== undefined ? { uid: opts.uid, gid: opts.uid } : {}),
  });
  const events: HubEvent[] = [];
  let buffered = '';
  let stderr = '';
  child.stdout!.on('data', (b: Buffer) => {
    buffered += b.toString('utf8');
    let nl: number;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      events.push(JSON.parse(buffered.slice(0, nl)) as HubEvent);
      buffered = buffered.slice(nl + 1);
    }
  });
  child.stderr!.on('data', (b: Buffer) => (stderr += b.toString('utf8')));
  child.stdin!.on('error', () => undefined);
  let exited = false;
  const exit = new Promise<void>((resolve) => child.once('exit', () => ((exited = true), resolve())));
  deferCleanup(`recording hub ${socketPath}`, async () => {
    if (exited) return;
    child.kill('SIGKILL');
    await exit;
  });
  const listening = await waitUntil(
    () => {
      if (exited) throw new Error(`the recording hub exited: ${stderr}${JSON.stringify(events)}`);
      const failed = events.find((e) => e.event === 'error');
      if (failed) throw new Error(`the recording hub failed: ${JSON.stringify(failed)}`);
      return events.find((e): e is Extract<HubEvent, { event: 'listening' }> => e.event === 'listening');
    },
    { timeoutMs: 10_000, what: `the recording hub to listen on ${socketPath}` },
  ).catch((err: Error) => {
    throw new Error(`${err.message}; stderr: ${stderr}; events: ${JSON.stringify(events)}`);
  });

  const settle = async (): Promise<Received> => {
    const probe = createConnection(socketPath);
    probe.on('error', () => undefined);
    probe.once('connect', () => probe.write(PROBE));
    const probeHex = Buffer.from(PROBE).toString('hex');
    const probeId = await waitUntil(
      () => {
        if (exited) throw new Error(`the recording hub exited: ${stderr}`);
        const d = events.find((e): e is Extract<HubEvent, { event: 'data' }> => e.event === 'data' && e.hex.startsWith(probeHex.slice(0, 8)));
        return d?.id;
      },
      { timeoutMs: 5000, what: 'the probe connection to reach the recording hub' },
    );
    probe.destroy();
    const earlier = events.filter((e): e is Extract<HubEvent, { event: 'connection' }> => e.event === 'connection' && e.id !== probeId).map((e) => e.id);
    await waitUntil(() => earlier.every((id) => events.some((e) => e.event === 'close' && e.id === id)), {
      timeoutMs: 5000,
      what: `connections ${earlier.join(', ')} to the recording hub to close`,
    });
    const data = Buffer.concat(
      events.filter((e): e is Extract<HubEvent, { event: 'data' }> => e.event === 'data' && e.id !== probeId).map((e) => Buffer.from(e.hex, 'hex')),
    );
    return { connections: earlier.length, bytes: data.length, text: data.toString('utf8') };
  };

  return { pid: listening.pid, uid: listening.uid, socketPath, child, settle };
}

/** uid and permission bits (with the sticky bit) of a path, for assertions about the setup itself. */
export function ownerAndMode(path: string): { uid: number; mode: string } {
  const st = lstatSync(path);
  return { uid: st.uid, mode: (st.mode & 0o7777).toString(8) };
}
