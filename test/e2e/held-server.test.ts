// `swb` starts the server's node before the rest of the client has loaded, held at its gate until
// the client's checks say go (src/client/dashboard-head-start.ts, src/server/server-gate.ts; issue
// #33). Until then the server touches nothing: a client that cancels, or dies, leaves no server.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Socket } from 'node:net';
import { afterEach, describe, expect, test } from 'vitest';
import { runCleanups } from '../helpers/cleanup.js';
import { packageBinScript, serverMainPath } from '../../src/util/package-root.js';
import { runSwb, swbEnv } from '../helpers/run-swb.js';
import { readStartTrace, traceMark } from '../helpers/start-trace-file.js';
import { createTempHome, type TempHome } from '../helpers/temp-home.js';
import { startProgram } from '../helpers/terminal-harness.js';
import { waitUntil } from '../helpers/wait-until.js';

afterEach(runCleanups);

/** A server started as a client holds one, with fd 3 ours; resolves each line it says there. */
function holdServer(home: TempHome, trace: string) {
  const main = serverMainPath();
  if (main === null) throw new Error('no dist/src/server/server-main.cjs: run npm run build');
  const child = spawn(process.execPath, [main, 'server', '--held', '--ready-fd', '3'], {
    cwd: home.workspace,
    env: swbEnv(home, { SWB_START_TRACE: trace, XDG_CONFIG_HOME: join(home.home, 'config') }),
    stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
  });
  const gate = child.stdio[3] as Socket;
  let said = '';
  gate.setEncoding('utf8');
  gate.on('data', (c: string) => (said += c));
  gate.on('error', () => undefined);
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, gate, said: () => said, exited };
}

describe('a held server', () => {
  test('loads its code, waits at the gate touching nothing, and exits 0 when its client goes away', async () => {
    const home = createTempHome();
    const trace = join(home.home, 'start-trace');
    const s = holdServer(home, trace);
    await waitUntil(() => traceMark(trace, 'server bundle loaded (code cache used)'), { what: 'the held server to load its code', timeoutMs: 20_000 });
    // Loaded and waiting: no lock, no socket, no log of its own.
    expect(traceMark(trace, 'server running')).toBeUndefined();
    expect(existsSync(join(home.home, 'run')) ? readdirSync(join(home.home, 'run'), { recursive: true }) : []).toEqual([]);
    s.gate.destroy();
    expect(await s.exited).toBe(0);
    expect(traceMark(trace, 'server running')).toBeUndefined();
    expect(existsSync(home.paths.serverSocketPath)).toBe(false);
  }, 40_000);

  test('told go, it starts with the flags the client settled and says it listens', async () => {
    const home = createTempHome();
    const trace = join(home.home, 'start-trace');
    const s = holdServer(home, trace);
    s.gate.write(`${JSON.stringify({ go: true, flags: ['--fresh'] })}\n`);
    await waitUntil(() => s.said().includes('\n'), { what: 'the ready line', timeoutMs: 20_000 });
    const ready = JSON.parse(s.said().split('\n')[0]!) as { ok: boolean; pid: number };
    expect(ready).toEqual({ ok: true, pid: s.child.pid });
    expect(existsSync(home.paths.serverSocketPath)).toBe(true);
    expect(await runSwb(['kill-server', '--force'], { home })).toMatchObject({ status: 0 });
    expect(await s.exited).toBe(0);
  }, 40_000);

  test('a go line it cannot take is refused on the ready line, and nothing starts', async () => {
    const home = createTempHome();
    const trace = join(home.home, 'start-trace');
    const s = holdServer(home, trace);
    s.gate.write(`${JSON.stringify({ go: true, flags: ['--ready-fd', '9'] })}\n`);
    expect(await s.exited).toBe(2);
    expect(JSON.parse(s.said().split('\n')[0]!)).toEqual({ ok: false, message: 'swb server: the go line carries "--ready-fd", not a flag a client settles' });
    expect(existsSync(home.paths.serverSocketPath)).toBe(false);
  }, 40_000);
});

describe('the dashboard through bin/swb', () => {
  test('for rows (no command named), runs its CommonJS entry, which starts the server held before the rest of the client loads, and says go after its checks', async () => {
    const home = createTempHome();
    const trace = join(home.home, 'start-trace');
    // As npm links it: the shell script, with this node.
    const t = startProgram(packageBinScript(), ['one=printf "HELD-UP\\n"; exec sleep 600'], {
      cols: 100,
      rows: 30,
      cwd: home.workspace,
      env: swbEnv(home, { TERM: 'xterm-256color', SHELL: '/bin/sh', XDG_CONFIG_HOME: join(home.home, 'config'), SWB_NODE: process.execPath, SWB_START_TRACE: trace }),
    });
    await t.waitForText('HELD-UP', { timeoutMs: 20_000 });
    const marks = readStartTrace(trace);
    const client = marks.find((m) => m.label === 'head start')!;
    expect(client).toBeDefined();
    expect(readFileSync(`/proc/${t.pid}/cmdline`, 'utf8').split('\0')).toContainEqual(expect.stringMatching(/dist\/src\/cli\/dashboard-main\.cjs$/));
    const server = marks.find((m) => m.label === 'node started (server)')!;
    expect(readFileSync(`/proc/${server.pid}/cmdline`, 'utf8').split('\0')).toContain('--held');
    const clientOrder = marks.filter((m) => m.pid === client.pid).map((m) => m.label);
    expect(clientOrder.indexOf('head start')).toBeLessThan(clientOrder.indexOf('dashboard entry loaded'));
    expect(clientOrder.indexOf('dashboard args checked')).toBeLessThan(clientOrder.indexOf('launching the server'));
    // The server ran (took its lock, listened) only after the client's go.
    expect(traceMark(trace, 'server running')!.ms).toBeGreaterThan(traceMark(trace, 'launching the server')!.ms);
    await runSwb(['kill-server', '--force'], { home });
    await t.waitForExit();
  }, 60_000);
});
