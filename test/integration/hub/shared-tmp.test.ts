// A client on a shared /tmp checks the hub before it sends anything (issue #9 item 3), and a process
// inside a row cannot be the operator (item 11). With XDG_RUNTIME_DIR unset and no SWB_HOME the
// runtime dir is `${os.tmpdir()}/switchboard-<uid>/<ws>`, which another user may have made first:
// these tests give the CLI a private shared tmp (TMPDIR = a fresh 1777 dir) and play that other user
// as uid 65534 (root only; otherwise skipped with a printed reason). The "hub" there is a recorder
// that reports every connection and every byte, so "nothing was sent" is observed, not assumed.
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { createConnection, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it, type TestContext } from 'vitest';
import { Hub } from '../../../src/hub/hub.js';
import { resolveRuntimePaths } from '../../../src/hub/runtime-paths.js';
import { PROTOCOL_VERSION } from '../../../src/protocol/limits.js';
import { deferCleanup, runCleanups } from '../../helpers/cleanup.js';
import { connectClient, readOperatorToken, startTestHub } from '../../helpers/hub-harness.js';
import { openMailDbReadOnly } from '../../helpers/mail-db.js';
import { runSwb } from '../../helpers/run-swb.js';
import {
  createSharedTmp,
  isRoot,
  myUid,
  OTHER_UID,
  ownerAndMode,
  runSwbInSharedTmp,
  startRecordingHub,
  type SharedTmp,
} from '../../helpers/shared-tmp.js';
import { createTempHome } from '../../helpers/temp-home.js';
import { waitUntil } from '../../helpers/wait-until.js';

afterEach(runCleanups);

/** Distinctive, so a look at the real /tmp can tell whether anything of this file's landed there. */
const WS = 'swb-shared-tmp-test';
const REAL_RUN_DIR = join('/tmp', `switchboard-${myUid()}`, WS);

afterEach(() => {
  // The CLI only ever saw a private TMPDIR: nothing of ours may appear in the real /tmp.
  expect(existsSync(REAL_RUN_DIR), REAL_RUN_DIR).toBe(false);
});

function needsRoot(ctx: TestContext, what: string): void {
  if (isRoot) return;
  const reason = `not root: cannot ${what} as uid ${OTHER_UID}`;
  console.warn(`shared-tmp: skipped: ${reason}`);
  ctx.skip(reason);
}

const sockOf = (t: SharedTmp) => join(t.runDir(WS), 'hub.sock');
const tokenOf = (t: SharedTmp) => join(t.runDir(WS), 'operator.token');
const send = (t: SharedTmp) => runSwbInSharedTmp(t, ['send', '@x', 'hello', '--workspace', WS]);

/** switchboard-<uid>/<ws> as a hub would make it: ours, 0700. */
function makeOwnRunDir(t: SharedTmp): void {
  mkdirSync(t.runDir(WS), { recursive: true, mode: 0o700 });
  chmodSync(t.userDir, 0o700);
  chmodSync(t.runDir(WS), 0o700);
}

/** The run dir, made ours again after a process running as OTHER_UID bound its hub.sock there. */
async function ownDirsWithForeignListener(t: SharedTmp) {
  mkdirSync(t.runDir(WS), { recursive: true, mode: 0o700 });
  chmodSync(t.userDir, 0o711); // the other user may pass through, for now
  chownSync(t.runDir(WS), OTHER_UID, OTHER_UID);
  const fake = await startRecordingHub(sockOf(t), { uid: OTHER_UID });
  chownSync(t.runDir(WS), myUid(), myUid());
  chmodSync(t.runDir(WS), 0o700);
  chmodSync(t.userDir, 0o700);
  writeFileSync(tokenOf(t), 'not-the-real-token', { mode: 0o600 });
  return fake;
}

describe('the runtime dir on a shared tmp', () => {
  it('is ${os.tmpdir()}/switchboard-<uid>/<ws>, and os.tmpdir() follows TMPDIR', () => {
    const t = createSharedTmp();
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = t.dir;
    try {
      const paths = resolveRuntimePaths({ workspace: WS, env: {} });
      expect(paths.runDir).toBe(t.runDir(WS));
      expect(paths.socketPath).toBe(sockOf(t));
      expect(paths.socketDir).toBe(paths.runDir); // short enough: no move to /tmp/swb-<uid>
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
    }
    expect(ownerAndMode(t.dir)).toEqual({ uid: myUid(), mode: '1777' });
  });

  it("another user's switchboard-<uid>/<ws> with a listening hub.sock and an operator.token: UNSAFE_RUNTIME_DIR, no connection, no byte", async (ctx) => {
    needsRoot(ctx, 'pre-create the runtime dir');
    const t = createSharedTmp();
    // The other user makes the dirs itself, listens, and leaves an operator.token of its own.
    const fake = await startRecordingHub(sockOf(t), { uid: OTHER_UID, mkdir: true, token: 'forged-operator-token' });
    expect(fake.uid).toBe(OTHER_UID);
    for (const p of [t.userDir, t.runDir(WS), sockOf(t), tokenOf(t)]) expect({ p, uid: ownerAndMode(p).uid }).toEqual({ p, uid: OTHER_UID });

    const r = await send(t);
    expect(r.status, r.stderr).toBe(1);
    expect(r.stderr).toContain('UNSAFE_RUNTIME_DIR');
    expect(r.stderr).toContain(t.runDir(WS)); // says where
    expect(r.stderr).toContain(`uid ${OTHER_UID}`);
    expect(r.stdout).toBe('');
    expect(await fake.settle()).toEqual({ connections: 0, bytes: 0, text: '' });
  });

  it("another user's switchboard-<uid>/<ws> with no socket yet: swb send fails and leaves nothing there", async (ctx) => {
    needsRoot(ctx, 'pre-create the runtime dir');
    const t = createSharedTmp();
    mkdirSync(t.runDir(WS), { recursive: true, mode: 0o755 });
    chownSync(t.userDir, OTHER_UID, OTHER_UID);
    chownSync(t.runDir(WS), OTHER_UID, OTHER_UID);

    const r = await send(t);
    expect(r.status, r.stderr).toBe(1);
    expect(r.stdout).toBe('');
    // The hub it tries to start refuses the dir (UNSAFE_RUNTIME_DIR in `swb hub`); the CLI says
    // NO_HUB and points there. Nothing of ours (socket, token, lock, log) lands in the other user's dir.
    expect(r.stderr).toMatch(/UNSAFE_RUNTIME_DIR|NO_HUB/);
    expect(readdirSync(t.runDir(WS))).toEqual([]);
    expect(readdirSync(t.userDir)).toEqual([WS]);
    const hub = await runSwbInSharedTmp(t, ['hub', '--workspace', WS]);
    expect(hub.status, hub.stderr).toBe(1);
    expect(hub.stderr).toContain(`UNSAFE_RUNTIME_DIR: ${t.userDir} belongs to uid ${OTHER_UID}`);
    console.log(`shared-tmp: foreign run dir without a socket: swb send said: ${r.stderr.trim()}`);
  });

  it("our own 0700 dirs, but hub.sock is another user's: UNSAFE_RUNTIME_DIR, no connection, no byte", async (ctx) => {
    needsRoot(ctx, 'bind a socket');
    const t = createSharedTmp();
    const fake = await ownDirsWithForeignListener(t);
    expect(ownerAndMode(t.userDir)).toEqual({ uid: myUid(), mode: '700' });
    expect(ownerAndMode(t.runDir(WS))).toEqual({ uid: myUid(), mode: '700' });
    expect(ownerAndMode(sockOf(t)).uid).toBe(OTHER_UID);

    const r = await send(t);
    expect(r.status, r.stderr).toBe(1);
    expect(r.stderr).toContain('UNSAFE_RUNTIME_DIR');
    expect(r.stderr).toContain(`${sockOf(t)} belongs to uid ${OTHER_UID}`);
    expect(await fake.settle()).toEqual({ connections: 0, bytes: 0, text: '' });
  });

  it('dirs and hub.sock all ours, but the listening process runs as another user: the peer check refuses before a byte is sent', async (ctx) => {
    needsRoot(ctx, 'run a listener');
    const t = createSharedTmp();
    const fake = await ownDirsWithForeignListener(t);
    chownSync(sockOf(t), myUid(), myUid());
    chmodSync(sockOf(t), 0o600);
    for (const p of [t.userDir, t.runDir(WS)]) expect(ownerAndMode(p)).toEqual({ uid: myUid(), mode: '700' });
    expect(ownerAndMode(sockOf(t))).toEqual({ uid: myUid(), mode: '600' });
    expect(ownerAndMode(tokenOf(t))).toEqual({ uid: myUid(), mode: '600' });

    const r = await send(t);
    expect(r.status, r.stderr).toBe(1);
    expect(r.stderr).toContain('UNSAFE_RUNTIME_DIR');
    expect(r.stderr).toContain(`runs as uid ${OTHER_UID} (pid ${fake.pid})`);
    // It had to connect to ask the kernel who listens; it sent nothing on that connection.
    expect(await fake.settle()).toEqual({ connections: 1, bytes: 0, text: '' });
  });

  it.each([
    ['the TMPDIR itself', (t: SharedTmp) => t.dir],
    ['switchboard-<uid>', (t: SharedTmp) => t.userDir],
  ])('%s writable by others without the sticky bit (ours, 0777): UNSAFE_RUNTIME_DIR, no connection', async (_label, pick) => {
    const t = createSharedTmp();
    makeOwnRunDir(t);
    const fake = await startRecordingHub(sockOf(t));
    writeFileSync(tokenOf(t), 'not-the-real-token', { mode: 0o600 });
    const loose = pick(t);
    chmodSync(loose, 0o777);
    expect(ownerAndMode(loose)).toEqual({ uid: myUid(), mode: '777' });

    const r = await send(t);
    expect(r.status, r.stderr).toBe(1);
    expect(r.stderr).toContain('UNSAFE_RUNTIME_DIR');
    expect(r.stderr).toContain(`${loose} is writable by group or others (mode 777) without the sticky bit`);
    expect(await fake.settle()).toEqual({ connections: 0, bytes: 0, text: '' });
  });

  it('a sticky 1777 TMPDIR owned by another user: UNSAFE_RUNTIME_DIR, no connection', async (ctx) => {
    needsRoot(ctx, 'own the TMPDIR');
    const t = createSharedTmp();
    makeOwnRunDir(t);
    const fake = await startRecordingHub(sockOf(t));
    writeFileSync(tokenOf(t), 'not-the-real-token', { mode: 0o600 });
    chownSync(t.dir, OTHER_UID, OTHER_UID);
    expect(ownerAndMode(t.dir)).toEqual({ uid: OTHER_UID, mode: '1777' });

    const r = await send(t);
    expect(r.status, r.stderr).toBe(1);
    expect(r.stderr).toContain('UNSAFE_RUNTIME_DIR');
    expect(r.stderr).toContain(`${t.dir} belongs to uid ${OTHER_UID}`);
    expect(await fake.settle()).toEqual({ connections: 0, bytes: 0, text: '' });
  });

  it("a sticky 1777 TMPDIR owned by root is accepted: a real hub there gets the CLI's mail", async () => {
    const t = createSharedTmp();
    expect(ownerAndMode(t.dir)).toEqual({ uid: myUid(), mode: '1777' });
    // The same dirs the CLI computes from TMPDIR (XDG_RUNTIME_DIR wins over os.tmpdir(), so this
    // process need not change its own TMPDIR).
    const paths = resolveRuntimePaths({ workspace: WS, env: { XDG_RUNTIME_DIR: t.dir, XDG_STATE_HOME: t.stateDir } });
    expect(paths.socketPath).toBe(sockOf(t));
    const hub = await Hub.start({ paths });
    deferCleanup('hub', () => hub.stop());
    await connectClient(paths, { session: 'x' });

    const r = await send(t);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(openMailDbReadOnly(paths).messages().map((m) => [m.sender, m.text])).toEqual([['operator', 'hello']]);
  });
});

describe('the operator token file', () => {
  async function withToken(t: SharedTmp, set: (file: string) => void) {
    makeOwnRunDir(t);
    const fake = await startRecordingHub(sockOf(t));
    writeFileSync(tokenOf(t), 'the-operator-token', { mode: 0o600 });
    set(tokenOf(t));
    return fake;
  }

  it('readable by others (0644): UNSAFE_RUNTIME_DIR, no byte sent', async () => {
    const t = createSharedTmp();
    const fake = await withToken(t, (f) => chmodSync(f, 0o644));
    expect(ownerAndMode(tokenOf(t))).toEqual({ uid: myUid(), mode: '644' });
    const r = await send(t);
    expect(r.status, r.stderr).toBe(1);
    expect(r.stderr).toContain('UNSAFE_RUNTIME_DIR');
    expect(r.stderr).toContain(`${tokenOf(t)} is readable or writable by others (mode 644)`);
    const got = await fake.settle();
    expect(got.bytes, got.text).toBe(0);
  });

  it("0600 but another user's: UNSAFE_RUNTIME_DIR, no byte sent", async (ctx) => {
    needsRoot(ctx, 'own the token file');
    const t = createSharedTmp();
    const fake = await withToken(t, (f) => chownSync(f, OTHER_UID, OTHER_UID));
    expect(ownerAndMode(tokenOf(t))).toEqual({ uid: OTHER_UID, mode: '600' });
    const r = await send(t);
    expect(r.status, r.stderr).toBe(1);
    expect(r.stderr).toContain('UNSAFE_RUNTIME_DIR');
    expect(r.stderr).toContain(`${tokenOf(t)} belongs to uid ${OTHER_UID}`);
    const got = await fake.settle();
    expect(got.bytes, got.text).toBe(0);
  });

  it('control: with everything ours and private, the recorder does get the hello (so "no byte" above means something)', async () => {
    const t = createSharedTmp();
    const fake = await withToken(t, () => undefined);
    const r = await send(t);
    expect(r.stderr).not.toContain('UNSAFE_RUNTIME_DIR');
    const got = await fake.settle();
    // The recorder hangs up after the first line; swb send retries a lost connection, so maybe more than once.
    expect(got.connections).toBeGreaterThanOrEqual(1);
    expect(got.text).toContain('"method":"hello"');
    expect(got.text).toContain('"token":"the-operator-token"');
  });
});

interface HelloReport {
  pid: number;
  ppid: number;
  swbEnv: string[];
  response: { result?: { session?: string }; error?: { message: string; data?: { code?: string } } };
}

const OPERATOR_HELLO = join(import.meta.dirname, '../../fixtures/programs/operator-hello.mjs');

/** Runs the operator-hello fixture with exactly `env` (plus PATH) and returns its report. */
async function operatorHello(socketPath: string, token: string, mode: 'direct' | 'via-child', env: Record<string, string>): Promise<HelloReport> {
  const child: ChildProcess = spawn(process.execPath, [OPERATOR_HELLO, socketPath, token, String(PROTOCOL_VERSION), mode], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (b: Buffer) => (stdout += b.toString('utf8')));
  child.stderr!.on('data', (b: Buffer) => (stderr += b.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  deferCleanup('operator-hello', async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  });
  const code = await exited;
  expect(code, stderr).toBe(0);
  return JSON.parse(stdout.trim()) as HelloReport;
}

describe('the operator identity from inside a row', () => {
  it('swb send --as operator with SWB_SESSION set is refused before connecting: UNAUTHENTICATED, "runs inside a swb row"', async () => {
    const { home, paths } = await startTestHub();
    const r = await runSwb(['send', '--as', 'operator', '@x', 'hi'], { home, env: { SWB_SESSION: 'row1', SWB_SOCKET: paths.socketPath } });
    expect(r.status, r.stderr).toBe(1);
    expect(r.stderr).toContain('UNAUTHENTICATED');
    expect(r.stderr).toContain('runs inside a swb row');
    expect(openMailDbReadOnly(paths).countMessages()).toBe(0);
  });

  it("a process whose environment names a row of this hub is refused the operator token, and so is its child with every SWB_* scrubbed", async () => {
    const { paths } = await startTestHub();
    const token = readOperatorToken(paths);
    const rowEnv = { SWB_SESSION: 'row1', SWB_SOCKET: paths.socketPath };

    const direct = await operatorHello(paths.socketPath, token, 'direct', rowEnv);
    expect(direct.swbEnv.sort()).toEqual(['SWB_SESSION', 'SWB_SOCKET']);
    expect(direct.response.error?.data?.code, JSON.stringify(direct.response)).toBe('UNAUTHENTICATED');
    expect(direct.response.error?.message).toContain(`process ${direct.pid} runs in row row1`);

    const child = await operatorHello(paths.socketPath, token, 'via-child', rowEnv);
    expect(child.swbEnv).toEqual([]);
    expect(child.response.error?.data?.code, JSON.stringify(child.response)).toBe('UNAUTHENTICATED');
    expect(child.response.error?.message).toContain(`process ${child.pid} runs in row row1 (its ancestor ${child.ppid} is that row's)`);
  });

  it("the same process with SWB_SOCKET naming another hub is accepted as operator (a nested switchboard), child too", async () => {
    const { paths } = await startTestHub();
    const other = await startTestHub();
    const token = readOperatorToken(paths);
    const nestedEnv = { SWB_SESSION: 'row1', SWB_SOCKET: other.paths.socketPath };
    for (const mode of ['direct', 'via-child'] as const) {
      const r = await operatorHello(paths.socketPath, token, mode, nestedEnv);
      expect({ mode, error: r.response.error }).toEqual({ mode, error: undefined });
      expect(r.response.result).toBeDefined();
    }
  });

  it('a plain process (no SWB_*) is accepted as operator', async () => {
    const { paths } = await startTestHub();
    const r = await operatorHello(paths.socketPath, readOperatorToken(paths), 'direct', {});
    expect(r.swbEnv).toEqual([]);
    expect(r.response.error).toBeUndefined();
    expect(r.response.result).toBeDefined();
  });
});

// Listens on argv[1] with a backlog of 0 and never accepts; exits when stdin closes.
const NEVER_ACCEPTS = `
import os, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(sys.argv[1])
os.chmod(sys.argv[1], 0o600)
s.listen(0)
print("listening", flush=True)
sys.stdin.read()
`;

async function timed<T>(run: () => Promise<T>): Promise<T & { elapsedMs: number }> {
  const started = Date.now();
  const result = await run();
  return { ...result, elapsedMs: Date.now() - started };
}

function tryConnect(path: string): Promise<{ socket: Socket } | { code: string }> {
  return new Promise((resolve) => {
    const socket = createConnection(path);
    socket.once('connect', () => resolve({ socket }));
    socket.once('error', (err: NodeJS.ErrnoException) => resolve({ code: err.code ?? String(err) }));
  });
}

describe('a hub whose listen backlog is full', () => {
  it('swb send fails with HUB_BUSY (never NO_HUB) after its ~2 s retry', async () => {
    const home = createTempHome();
    mkdirSync(home.paths.runDir, { recursive: true, mode: 0o700 });
    const py = spawn('python3', ['-c', NEVER_ACCEPTS, home.paths.socketPath], { stdio: ['pipe', 'pipe', 'pipe'] });
    let pyOut = '';
    let pyErr = '';
    py.stdout.on('data', (b: Buffer) => (pyOut += b.toString()));
    py.stderr.on('data', (b: Buffer) => (pyErr += b.toString()));
    const pyExit = new Promise<void>((resolve) => py.once('close', () => resolve()));
    deferCleanup('never-accepting listener', async () => {
      if (py.exitCode === null && py.signalCode === null) py.kill('SIGKILL');
      await pyExit;
    });
    await waitUntil(
      () => {
        if (py.exitCode !== null) throw new Error(`python3 exited: ${pyErr}`);
        return pyOut.includes('listening');
      },
      { timeoutMs: 10_000, what: 'python3 to listen' },
    );
    expect(ownerAndMode(home.paths.socketPath)).toEqual({ uid: myUid(), mode: '600' });

    const held: Socket[] = [];
    deferCleanup('backlog connections', () => held.forEach((s) => s.destroy()));
    let refused: string | undefined;
    for (let i = 0; i < 64 && refused === undefined; i++) {
      const r = await tryConnect(home.paths.socketPath);
      if ('socket' in r) held.push(r.socket);
      else refused = r.code;
    }
    expect(refused, `backlog never filled after ${held.length} connections`).toBe('EAGAIN');

    // One connect: the client waits out the full backlog for ~2 s, then says HUB_BUSY.
    const peers = await timed(() => runSwb(['peers'], { home }));
    expect(peers.status, peers.stderr).toBe(1);
    expect(peers.stderr).toContain('HUB_BUSY');
    expect(peers.stderr).not.toContain('NO_HUB');
    expect(peers.elapsedMs).toBeGreaterThanOrEqual(2000);
    expect(peers.elapsedMs).toBeLessThan(6000);

    // swb send retries a missing or swamped hub (4 attempts), each waiting ~2 s: still HUB_BUSY in the end.
    const sent = await timed(() => runSwb(['send', '@x', 'hello'], { home, timeoutMs: 25_000 }));
    expect(sent.status, sent.stderr).toBe(1);
    expect(sent.stderr).toContain('HUB_BUSY');
    expect(sent.stderr).not.toContain('NO_HUB');
    expect(sent.elapsedMs).toBeGreaterThanOrEqual(2000);
    console.log(
      `shared-tmp: backlog full (${held.length} pending connection(s)): swb peers HUB_BUSY after ${peers.elapsedMs} ms, ` +
        `swb send HUB_BUSY after ${sent.elapsedMs} ms: ${sent.stderr.trim()}`,
    );
  });
});
