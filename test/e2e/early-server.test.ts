// bin/swb starts the server's node beside the dashboard's client, not after it (issue #33): the
// two meet on an abstract socket the client listens on (src/protocol/early-server-meeting.ts), and
// the server is held at its gate, touching nothing, until the client's go (src/server/early-gate.ts,
// src/client/early-server.ts). Here this test process plays the client for a server started the
// way bin/swb starts it, and then bin/swb runs for real in a terminal.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { runCleanups, deferCleanup } from '../helpers/cleanup.js';
import { packageBinScript, serverMainPath } from '../../src/util/package-root.js';
import { SERVER_NODE_FLAGS } from '../../src/util/server-node-flags.js';
import { EARLY_SERVER_ENV, earlyMeetingName } from '../../src/protocol/early-server-meeting.js';
import { takeEarlyServer } from '../../src/client/early-server.js';
import { connect } from 'node:net';
import { isProcessAlive } from '../helpers/processes.js';
import { runSwb, swbEnv } from '../helpers/run-swb.js';
import { readStartTrace, traceMark } from '../helpers/start-trace-file.js';
import { createTempHome, type TempHome } from '../helpers/temp-home.js';
import { startProgram } from '../helpers/terminal-harness.js';
import { waitUntil } from '../helpers/wait-until.js';

afterEach(runCleanups);

const uid = process.getuid!();

/** Listens where the server started for client `clientPid` looks for it; resolves its connection. */
function listenAsClient(clientPid: number): { listener: Server; came: Promise<Socket> } {
  const listener = createServer({ pauseOnConnect: false });
  const came = new Promise<Socket>((resolve) => listener.once('connection', resolve));
  listener.listen(earlyMeetingName(uid, clientPid));
  deferCleanup('early meeting listener', () => new Promise<void>((resolve) => listener.close(() => resolve())));
  return { listener, came };
}

/** A server started as bin/swb starts it, for client `clientPid`, in `cwd`; its output piped here. */
function startEarlyServer(home: TempHome, clientPid: number, cwd: string, trace: string) {
  const main = serverMainPath();
  if (main === null) throw new Error('no dist/src/server/server-main.cjs: run npm run build');
  const child = spawn(process.execPath, [...SERVER_NODE_FLAGS, main, 'server', '--held', '--early-for', String(clientPid)], {
    cwd,
    env: swbEnv(home, { SWB_START_TRACE: trace, XDG_CONFIG_HOME: join(home.home, 'config'), SWB_EARLY_SERVER: String(clientPid) }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  deferCleanup(`early server ${child.pid}`, async () => {
    if (child.exitCode === null) child.kill('SIGKILL');
    await exited;
  });
  return { child, exited, output: () => output };
}

/** Everything under the home's run dir (a held server makes nothing there). */
function runDirEntries(home: TempHome): string[] {
  const run = join(home.home, 'run');
  return existsSync(run) ? (readdirSync(run, { recursive: true }) as string[]) : [];
}

/** One line from `socket`. */
function lineFrom(socket: Socket): Promise<string> {
  return new Promise((resolve) => {
    let said = '';
    socket.setEncoding('utf8');
    socket.on('data', (c: string) => {
      said += c;
      if (said.includes('\n')) resolve(said.split('\n')[0]!);
    });
    socket.on('close', () => resolve(said));
  });
}

describe('a server started beside its client', () => {
  test('meets the client it was started for, waits touching nothing, and exits 0 when the client lets it go', async () => {
    const home = createTempHome();
    const trace = join(home.home, 'start-trace');
    const { came } = listenAsClient(process.pid);
    const s = startEarlyServer(home, process.pid, home.workspace, trace);
    const server = await came;
    await waitUntil(() => traceMark(trace, 'server bundle loaded (code cache used)'), { what: 'the server to load its code', timeoutMs: 20_000 });
    expect(traceMark(trace, 'server running')).toBeUndefined();
    expect(runDirEntries(home)).toEqual([]);
    server.destroy();
    expect(await s.exited).toBe(0);
    expect(traceMark(trace, 'server running')).toBeUndefined();
    expect(runDirEntries(home)).toEqual([]);
  }, 40_000);

  test('told go, it starts in the directory the go line names, says it listens, and writes its output to the workspace’s server.out', async () => {
    const home = createTempHome();
    const trace = join(home.home, 'start-trace');
    const elsewhere = join(home.home, 'started-here');
    mkdirSync(elsewhere);
    const { came } = listenAsClient(process.pid);
    const s = startEarlyServer(home, process.pid, elsewhere, trace);
    const server = await came;
    server.write(`${JSON.stringify({ go: true, flags: ['--fresh'], cwd: home.workspace })}\n`);
    const ready = JSON.parse(await lineFrom(server)) as { ok: boolean; pid: number };
    expect(ready).toEqual({ ok: true, pid: s.child.pid });
    // The workspace is the go line's directory, not the one it was started in.
    expect(existsSync(home.paths.serverSocketPath)).toBe(true);
    expect(readlinkSync(`/proc/${s.child.pid}/cwd`)).toBe(home.workspace);
    expect(readlinkSync(`/proc/${s.child.pid}/fd/1`)).toBe(join(home.paths.runDir, 'server.out'));
    expect(readlinkSync(`/proc/${s.child.pid}/fd/2`)).toBe(join(home.paths.runDir, 'server.out'));
    expect(await runSwb(['kill-server', '--force'], { home })).toMatchObject({ status: 0 });
    expect(await s.exited).toBe(0);
  }, 40_000);

  test('a go line it cannot take is refused on the connection, and nothing starts', async () => {
    const home = createTempHome();
    const { came } = listenAsClient(process.pid);
    const s = startEarlyServer(home, process.pid, home.workspace, join(home.home, 'start-trace'));
    const server = await came;
    server.write(`${JSON.stringify({ go: true, flags: [], cwd: 'relative/dir' })}\n`);
    expect(JSON.parse(await lineFrom(server))).toEqual({ ok: false, message: "swb server: the go line's cwd is not an absolute path" });
    expect(await s.exited).toBe(2);
    expect(existsSync(home.paths.serverSocketPath)).toBe(false);
  }, 40_000);

  test('a listener that is not the client it was started for gets nothing: the server exits, touching nothing', async () => {
    const home = createTempHome();
    // This process listens under another process's name (any process may bind an abstract name).
    const other = spawn('sleep', ['600'], { stdio: 'ignore' });
    deferCleanup('sleep', () => void other.kill('SIGKILL'));
    const { came } = listenAsClient(other.pid!);
    const s = startEarlyServer(home, other.pid!, home.workspace, join(home.home, 'start-trace'));
    const server = await came;
    expect(await lineFrom(server)).toBe(''); // closed without a word: no go line was awaited from us
    expect(await s.exited).toBe(0);
    expect(runDirEntries(home)).toEqual([]);
  }, 40_000);

  test('a client that is gone before it listened leaves the server nobody to meet: it exits, touching nothing', async () => {
    const home = createTempHome();
    const gone = spawn('sleep', ['0.2'], { stdio: 'ignore' });
    const s = startEarlyServer(home, gone.pid!, home.workspace, join(home.home, 'start-trace'));
    expect(await s.exited).toBe(0);
    expect(runDirEntries(home)).toEqual([]);
  }, 40_000);
});

describe('the client’s side', () => {
  test('takes bin/swb’s word only when it names this process, and out of the environment either way', () => {
    const env: NodeJS.ProcessEnv = { [EARLY_SERVER_ENV]: String(process.pid + 1) };
    expect(takeEarlyServer(env)).toBeNull();
    expect(env[EARLY_SERVER_ENV]).toBeUndefined();
  });

  test('a server that goes without a word is not waited for: the client starts one itself', async () => {
    const home = createTempHome();
    const env = swbEnv(home, { XDG_CONFIG_HOME: join(home.home, 'config'), [EARLY_SERVER_ENV]: String(process.pid) });
    const early = takeEarlyServer(env)!;
    expect(early).not.toBeNull();
    // Plays the server that came and died: connects where this process listens, and closes.
    const gone = connect(earlyMeetingName(uid, process.pid));
    await new Promise<void>((resolve) => gone.once('connect', () => resolve()));
    const held = early.held({ paths: home.paths, cwd: home.workspace, env });
    gone.destroy();
    const outcome = await held.go(['--fresh']);
    expect(outcome).toMatchObject({ ok: true });
    expect(existsSync(home.paths.serverSocketPath)).toBe(true);
    expect(await runSwb(['kill-server', '--force'], { home })).toMatchObject({ status: 0 });
  }, 40_000);
});

/** The server processes started beside client `clientPid`. */
function serversBeside(clientPid: number): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const argv = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      const at = argv.indexOf('--early-for');
      if (at !== -1 && argv[at + 1] === String(clientPid)) out.push(Number(entry));
    } catch {
      // gone
    }
  }
  return out;
}

function dashboard(home: TempHome, args: readonly string[], trace: string) {
  return startProgram(packageBinScript(), args, {
    cols: 100,
    rows: 30,
    cwd: home.workspace,
    env: swbEnv(home, { TERM: 'xterm-256color', SHELL: '/bin/sh', XDG_CONFIG_HOME: join(home.home, 'config'), SWB_NODE: process.execPath, SWB_START_TRACE: trace }),
  });
}

describe('bin/swb in a terminal', () => {
  test('starts the server beside the client, in a session of its own, and the client says go to it', async () => {
    const home = createTempHome();
    const trace = join(home.home, 'start-trace');
    const t = dashboard(home, ['one=printf "BESIDE-UP %s\\n" "${SWB_EARLY_SERVER:-unset}"; exec sleep 600'], trace);
    await t.waitForText('BESIDE-UP unset', { timeoutMs: 20_000 });
    const server = traceMark(trace, 'node started (server)')!;
    expect(serversBeside(t.pid)).toEqual([server.pid]);
    const stat = readFileSync(`/proc/${server.pid}/stat`, 'utf8');
    const [ppid, , sid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ').slice(1, 4).map(Number);
    expect(ppid).not.toBe(t.pid); // left to init: the client could not reap it
    expect(sid).toBe(server.pid); // setsid: no SIGHUP from the terminal
    expect(readlinkSync(`/proc/${server.pid}/fd/2`)).toBe(join(home.paths.runDir, 'server.out'));
    // The server's node started before the client's head start, and ran only after its go.
    expect(server.ms).toBeLessThan(traceMark(trace, 'head start')!.ms);
    expect(traceMark(trace, 'server running')!.ms).toBeGreaterThan(traceMark(trace, 'launching the server')!.ms);
    const marks = readStartTrace(trace);
    expect(new Set(marks.filter((m) => m.label === 'node started (server)').map((m) => m.pid)).size).toBe(1); // the client started none
    await runSwb(['kill-server', '--force'], { home });
    await t.waitForExit();
  }, 60_000);

  test('a typo lets the server go: it exits and leaves nothing behind', async () => {
    const home = createTempHome();
    const trace = join(home.home, 'start-trace');
    const t = dashboard(home, ['sned', '@x', 'hi'], trace);
    const exit = await t.waitForExit();
    expect(exit.exitCode).toBe(2);
    expect(t.screenText().join('\n')).toContain('USAGE');
    const server = await waitUntil(() => traceMark(trace, 'node started (server)'), { what: 'the server started beside it', timeoutMs: 20_000 });
    await waitUntil(() => !isProcessAlive(server.pid), { what: 'the server started beside it to exit', timeoutMs: 20_000 });
    expect(traceMark(trace, 'server running')).toBeUndefined();
    expect(runDirEntries(home)).toEqual([]);
  }, 60_000);

  test('with a server running, the one started beside the client is let go and the client attaches', async () => {
    const home = createTempHome();
    const first = dashboard(home, ['one=printf "FIRST-UP\\n"; exec sleep 600'], join(home.home, 'trace-1'));
    await first.waitForText('FIRST-UP', { timeoutMs: 20_000 });
    first.write('d');
    await first.waitForExit();
    const trace = join(home.home, 'trace-2');
    const second = dashboard(home, [], trace);
    await second.waitForText('FIRST-UP', { timeoutMs: 20_000 });
    // Its node may start after the client has attached (the two started together).
    const beside = await waitUntil(() => traceMark(trace, 'node started (server)'), { what: 'the server started beside the client', timeoutMs: 20_000 });
    await waitUntil(() => !isProcessAlive(beside.pid), { what: 'the unneeded server to exit', timeoutMs: 20_000 });
    expect(traceMark(trace, 'server running')).toBeUndefined();
    await runSwb(['kill-server', '--force'], { home });
    await second.waitForExit();
  }, 60_000);
});
