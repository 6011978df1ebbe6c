// The posix_spawn fork (native/pty-spawn.c, installed by src/rows/pty-spawn-strategy.ts) through
// real ptys: what the child gets (controlling terminal, session, cwd, env, signals, descriptors),
// what node-pty's JavaScript gets back (exit once, resize, the missing-command path), and, where
// it matters, the same thing started by node-pty's own fork side by side.
import { chmodSync, closeSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn, type IPty } from 'node-pty';
import { afterAll, afterEach, describe, expect, test } from 'vitest';
import { installPtySpawn } from '../../../src/rows/pty-spawn-strategy.js';
import { isolatedCommand } from '../../../src/rows/isolated-command.js';
import { RowProcess } from '../../../src/rows/row-process.js';
import { buildRowEnv } from '../../../src/rows/row-env.js';
import { waitUntil } from '../../helpers/wait-until.js';
import { nextEvent } from './helpers.js';

type Fork = (...args: unknown[]) => { fd: number; pid: number; pty: string } | null;

const require = createRequire(import.meta.url);
// Each integration file has its own process: this is node-pty's fork, before the install below.
const ptyNative = (require('node-pty/lib/utils.js') as { loadNativeModule: (n: string) => { module: Record<string, Fork> } }).loadNativeModule('pty').module;
const nodePtyFork = ptyNative.fork!;
const linux = process.platform === 'linux';
const state = installPtySpawn();
const addon = linux ? (require(join(import.meta.dirname, '../../../build/Release/pty_spawn.node')) as { fork?: Fork }) : {};
const supported = linux && typeof addon.fork === 'function';

const dir = mkdtempSync(join(tmpdir(), 'swb-pty-spawn-'));
const live: IPty[] = [];
const liveRows: RowProcess[] = [];
afterEach(() => {
  for (const p of live.splice(0)) {
    try {
      p.kill('SIGKILL');
    } catch {
      // gone
    }
  }
  for (const r of liveRows.splice(0)) r.dispose();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const baseEnv = { PATH: process.env.PATH ?? '/usr/bin:/bin', TERM: 'xterm-256color', HOME: dir, PS1: '$ ', LANG: 'C.UTF-8' };

interface Started {
  pty: IPty;
  text: () => string;
  exit: Promise<{ exitCode: number; signal?: number }>;
}

/** node-pty's spawn, through `fork` (ours unless given node-pty's own). */
function start(file: string, args: string[], opts: { cwd?: string; env?: Record<string, string>; fork?: Fork } = {}): Started {
  const installed = ptyNative.fork!;
  if (opts.fork) ptyNative.fork = opts.fork;
  let pty: IPty;
  try {
    pty = spawn(file, args, { cwd: opts.cwd ?? dir, env: opts.env ?? baseEnv, cols: 80, rows: 24 });
  } finally {
    ptyNative.fork = installed;
  }
  live.push(pty);
  let out = '';
  pty.onData((d) => (out += d));
  const exit = new Promise<{ exitCode: number; signal?: number }>((resolve) => pty.onExit(resolve));
  return { pty, text: () => out, exit };
}

/** /proc/<pid>/stat's fields after the command name (field 3 on: state, ppid, pgrp, session, tty_nr, tpgid, ...). */
function statOf(pid: number): number[] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat
    .slice(stat.lastIndexOf(')') + 2)
    .split(' ')
    .map((f) => Number(f));
}
const SESSION = 3;
const TTY_NR = 4;
const TPGID = 5;

/** The pts device number as the kernel writes tty_nr (major 136 for Unix98 ptys). */
function ptsDevice(path: string): number {
  const minor = Number(/^\/dev\/pts\/(\d+)$/.exec(path)![1]);
  return (136 << 8) | (minor & 0xff) | ((minor & ~0xff) << 12);
}

describe.runIf(supported)('posix_spawn fork (Linux)', () => {
  test('is installed on the object node-pty calls: a spawned master is close-on-exec, node-pty\'s own is not', async () => {
    expect(state).toEqual({ installed: true });
    const flags = (fd: number) => parseInt(/flags:\s+(\d+)/.exec(readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8'))![1]!, 8);
    const O_CLOEXEC = 0o2000000;
    const ours = start('sh', ['-c', 'exit 0']);
    const theirs = start('sh', ['-c', 'exit 0'], { fork: nodePtyFork });
    expect(flags((ours.pty as unknown as { _fd: number })._fd) & O_CLOEXEC).toBe(O_CLOEXEC);
    expect(flags((theirs.pty as unknown as { _fd: number })._fd) & O_CLOEXEC).toBe(0);
    await Promise.all([ours.exit, theirs.exit]);
  });

  test('the child leads a new session whose controlling terminal is its pty', async () => {
    const s = start('sh', ['-c', 'tty; echo "PID $$"; read x']);
    await waitUntil(() => /PID \d+/.test(s.text()), { what: 'the shell printed its pid', timeoutMs: 10_000 });
    expect(s.text().split('\r\n')[0]).toBe((s.pty as unknown as { _pty: string })._pty);
    const pid = Number(/PID (\d+)/.exec(s.text())![1]);
    expect(pid).toBe(s.pty.pid);
    const stat = statOf(pid);
    expect(stat[SESSION]).toBe(pid);
    expect(stat[TTY_NR]).toBe(ptsDevice((s.pty as unknown as { _pty: string })._pty));
    // The shell is the terminal's foreground process group.
    expect(stat[TPGID]).toBe(pid);
    s.pty.write('\r');
    expect(await s.exit).toEqual({ exitCode: 0, signal: 0 });
  });

  test('^C written to the master interrupts a foreground sleep in a shell, as with node-pty\'s fork', async () => {
    for (const fork of [undefined, nodePtyFork]) {
      const s = start('sh', [], { fork });
      await waitUntil(() => s.text().includes('$ '), { what: 'the prompt', timeoutMs: 10_000 });
      s.pty.write('sleep 30\r');
      // The sleep has the terminal once the foreground group is no longer the shell's.
      await waitUntil(() => statOf(s.pty.pid)[TPGID] !== s.pty.pid, { what: 'sleep in the foreground', timeoutMs: 10_000 });
      s.pty.write('\x03');
      await waitUntil(() => statOf(s.pty.pid)[TPGID] === s.pty.pid, { what: 'the shell back in the foreground', timeoutMs: 10_000 });
      s.pty.write('echo "after $?"; exit 5\r');
      expect(await s.exit).toEqual({ exitCode: 5, signal: 0 });
      expect(s.text()).toContain('after 130');
    }
  });

  test('an interactive bash has job control, as with node-pty\'s fork', async () => {
    for (const fork of [undefined, nodePtyFork]) {
      const s = start('bash', ['--norc', '--noprofile', '-i'], { fork });
      s.pty.write('sleep 30 & jobs; case $- in *m*) echo "MONITOR on";; esac; kill %1; exit 4\r');
      expect(await s.exit).toEqual({ exitCode: 4, signal: 0 });
      expect(s.text()).toContain('MONITOR on');
      expect(s.text()).toMatch(/\[1\]\+\s+Running\s+sleep 30 &/);
      expect(s.text()).not.toMatch(/no job control|cannot set terminal process group/);
    }
  });

  test('the terminal is set up as node-pty sets it (stty -a the same, size included)', async () => {
    const ours = start('stty', ['-a']);
    const theirs = start('stty', ['-a'], { fork: nodePtyFork });
    await Promise.all([ours.exit, theirs.exit]);
    expect(ours.text()).toContain('rows 24; columns 80');
    expect(ours.text()).toContain('iutf8');
    expect(ours.text()).toBe(theirs.text());
  });

  test('cwd: the program starts there, and a relative program path is found from there', async () => {
    const work = join(dir, 'work dir');
    mkdirSync(work, { recursive: true });
    writeFileSync(join(work, 'here.sh'), '#!/bin/sh\necho "CWD $(pwd)"\n');
    chmodSync(join(work, 'here.sh'), 0o755);
    const s = start('./here.sh', [], { cwd: work });
    expect(await s.exit).toEqual({ exitCode: 0, signal: 0 });
    expect(s.text()).toContain(`CWD ${work}`);
  });

  test('env: the child gets exactly its env, and the program is looked up on the CHILD\'s PATH', async () => {
    const bin = join(dir, 'only-in-child-path');
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, 'swb-spawn-probe'), '#!/bin/sh\necho "PROBE $MARK $PATH"\n');
    chmodSync(join(bin, 'swb-spawn-probe'), 0o755);
    expect(process.env.PATH ?? '').not.toContain(bin);
    const s = start('swb-spawn-probe', [], { env: { PATH: `${dir}/missing:${bin}:/usr/bin:/bin`, MARK: 'from-child-env', TERM: 'xterm' } });
    expect(await s.exit).toEqual({ exitCode: 0, signal: 0 });
    expect(s.text()).toContain(`PROBE from-child-env ${dir}/missing:${bin}:/usr/bin:/bin`);

    const e = start('/usr/bin/env', [], { env: { ONLY: 'this', TERM: 'dumb' } });
    await e.exit;
    // node-pty adds PWD; nothing of this process's env comes along.
    expect(e.text().trim().split('\r\n').sort()).toEqual([`ONLY=this`, `PWD=${dir}`, 'TERM=dumb'].sort());
  });

  test('signals: the child starts with every disposition at its default and nothing blocked', async () => {
    // Node itself ignores SIGPIPE and SIGXFSZ; a SIGINT handler (process.on) is caught.
    const onInt = () => {};
    process.on('SIGINT', onInt);
    try {
      const mask = (text: string, field: string) => BigInt(`0x${new RegExp(`${field}:\\s+([0-9a-f]+)`).exec(text)![1]}`);
      const bit = (signal: number) => 1n << BigInt(signal - 1);
      const parent = readFileSync('/proc/self/status', 'utf8');
      expect(mask(parent, 'SigIgn') & bit(13)).toBe(bit(13));
      expect(mask(parent, 'SigCgt') & bit(2)).toBe(bit(2));
      const children: string[] = [];
      for (const fork of [undefined, nodePtyFork]) {
        const s = start('cat', ['/proc/self/status'], { fork });
        expect(await s.exit).toEqual({ exitCode: 0, signal: 0 });
        children.push(s.text());
      }
      const [ours, theirs] = children as [string, string];
      expect(mask(ours, 'SigBlk')).toBe(0n);
      expect(mask(ours, 'SigCgt')).toBe(0n);
      // glibc's posix_spawn leaves its two reserved signals (32, 33: SIGCANCEL, SIGSETXID) ignored in
      // the child; no glibc program can handle or send them (SIGRTMIN is 34). Nothing else.
      expect(mask(ours, 'SigIgn') & ~(bit(32) | bit(33))).toBe(0n);
      expect(mask(theirs, 'SigBlk')).toBe(0n);
      expect(mask(theirs, 'SigIgn')).toBe(0n);
    } finally {
      process.off('SIGINT', onInt);
    }
  });

  test('descriptors: the child holds 0, 1 and 2 (its pty) and its own, even beside a leaky node-pty master', async () => {
    // node-pty's fork leaves its master without close-on-exec: open one first.
    const leaky = start('sh', ['-c', 'read x'], { fork: nodePtyFork });
    const s = start('ls', ['-l', '/proc/self/fd/']);
    expect(await s.exit).toEqual({ exitCode: 0, signal: 0 });
    const fds = [...s.text().matchAll(/ (\d+) -> (\S+)/g)].map((m) => [m[1], m[2]]);
    const pts = (s.pty as unknown as { _pty: string })._pty;
    // 3 is ls's own listing of the directory.
    expect(fds).toEqual([['0', pts], ['1', pts], ['2', pts], ['3', expect.stringMatching(/^\/proc\/\d+\/fd$/)]]);
    leaky.pty.write('\r');
    await leaky.exit;
  });

  test('exit: code and signal reach onexit once', async () => {
    const fork = addon.fork!;
    const calls: Array<[number, number]> = [];
    const a = fork('sh', ['-c', 'exit 7'], ['PATH=/usr/bin:/bin'], dir, 80, 24, -1, -1, true, '', (c: number, s: number) => calls.push([c, s]))!;
    const b = fork('sh', ['-c', 'kill -TERM $$'], ['PATH=/usr/bin:/bin'], dir, 80, 24, -1, -1, true, '', (c: number, s: number) => calls.push([c, s]))!;
    expect(a.pid).toBeGreaterThan(0);
    expect(typeof a.pty).toBe('string');
    await waitUntil(() => calls.length === 2, { what: 'both exits' });
    // A later child's exit has come and gone: no second call for either.
    const later: number[] = [];
    const c = fork('true', [], ['PATH=/usr/bin:/bin'], dir, 80, 24, -1, -1, true, '', () => later.push(1))!;
    await waitUntil(() => later.length === 1, { what: 'a later exit' });
    expect(calls.sort()).toEqual([[0, 15], [7, 0]]);
    for (const r of [a, b, c]) closeSync(r.fd);
  });

  test('a missing program: no child from the addon; node-pty\'s fork runs it through the wrapper, and fails it as rows did before', async () => {
    expect(addon.fork!('swb-no-such-program-xyz', [], ['PATH=/usr/bin:/bin'], dir, 80, 24, -1, -1, true, '', () => {})).toBeNull();
    expect(addon.fork!('/nonexistent/swb-prog', [], ['PATH=/usr/bin:/bin'], dir, 80, 24, -1, -1, true, '', () => {})).toBeNull();
    // A directory on PATH under the name, or a file that is not executable: execvp passes over both.
    mkdirSync(join(dir, 'p1', 'swb-not-a-program'), { recursive: true });
    writeFileSync(join(dir, 'p1', 'swb-plain'), 'echo hi\n');
    expect(addon.fork!('swb-not-a-program', [], [`PATH=${dir}/p1`], dir, 80, 24, -1, -1, true, '', () => {})).toBeNull();
    expect(addon.fork!('swb-plain', [], [`PATH=${dir}/p1`], dir, 80, 24, -1, -1, true, '', () => {})).toBeNull();
    // Declined, it goes to node-pty's fork through the descriptor-closing wrapper (that fork leaks
    // every earlier master): what a row printed for it before the addon, the wrapper's own words.
    const ours = start('swb-no-such-program-xyz', []);
    const wrapped = isolatedCommand('swb-no-such-program-xyz', []);
    const before = start(wrapped.file, wrapped.args, { fork: nodePtyFork });
    expect(await ours.exit).toEqual(await before.exit);
    expect(ours.text()).toMatch(/swb-exec: .*swb-no-such-program-xyz: not found/);
    expect(ours.text()).toBe(before.text());
  });

  test('uid/gid given: the addon declines (node-pty\'s fork switches user)', () => {
    expect(addon.fork!('true', [], ['PATH=/usr/bin:/bin'], dir, 80, 24, 0, 0, true, '', () => {})).toBeNull();
  });

  test('wrong arguments throw node-pty\'s usage error', () => {
    expect(() => addon.fork!('true', [], [], dir)).toThrow(/^Usage: pty\.fork\(file, args, env, cwd, cols, rows, uid, gid, utf8, helperPath, onexit\)$/);
  });

  test('resize still works (node-pty resizes through the master)', async () => {
    const s = start('sh', []);
    await waitUntil(() => s.text().includes('$ '), { what: 'the prompt', timeoutMs: 10_000 });
    s.pty.resize(50, 10);
    s.pty.write('stty size; exit\r');
    await s.exit;
    expect(s.text()).toContain('10 50');
  });

  test('a RowProcess starts through it and runs as before', async () => {
    const row = new RowProcess({ command: { shell: 'echo "ROW $$"; exit 3' }, env: buildRowEnv({ extra: { SHELL: '/bin/sh' } }), cols: 80, rows: 24, killGraceMs: 500 });
    liveRows.push(row);
    const chunks: Buffer[] = [];
    row.onData((c) => chunks.push(c));
    expect(await nextEvent(row.onExit, 'row exit')).toEqual({ exitCode: 3, signal: null });
    expect(Buffer.concat(chunks).toString()).toContain(`ROW ${row.pid}`);
  });
});

describe.runIf(!supported)('posix_spawn fork (elsewhere)', () => {
  test('node-pty\'s own fork stays', () => {
    expect(state.installed).toBe(false);
    expect(ptyNative.fork).toBe(nodePtyFork);
  });
});
