#!/usr/bin/env node
// npm run bench:mail-syscalls — the kernel's side of one mail accept (issue #33): what swb's hub asks
// of the kernel per sequential accept from one sender, beside the floor hub
// (bench/lib/mail-floor-hub.mjs) in the same run. bench:mail reports the hub's CPU per accept and
// how much of it is user time; this says which system calls the rest is made of, so a difference
// can be named (a second write per answer, an extra fsync, a thread-pool hop, a timer per request)
// instead of guessed.
//
// Two passes per system, taking turns: one without a tracer (CPU user/system and context switches
// per accept, read from /proc: strace slows every call and would distort them), and one under
// `strace -f -c` (the count of each system call per accept, all threads, the thread pool included).
// Then a pass tracing only fsync/fdatasync with their durations: the commit's wait for the disk is
// wall time in the kernel, not CPU. A WAL frame is two pwrite64 calls (a 24-byte header and a 4096-byte
// page), so the frames a commit writes are half its pwrite64 calls; `strace -f -e trace=pwrite64`
// shows which pages (a page's number is the first word of its frame header).
//   --compare=DIR  also the hub built in checkout DIR (a built worktree of the base)
//   --n=N          accepts per pass (default 2000)   --rounds=N (default 2)   --no-strace
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnListening } from './lib/spawn-listening.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const { HubClient } = await import(join(root, 'dist', 'src', 'client', 'hub-client.js'));
const { resolveRuntimePaths } = await import(join(root, 'dist', 'src', 'hub', 'runtime-paths.js'));

const option = (name) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const n = Number(option('n') ?? 2000);
const rounds = Number(option('rounds') ?? 2);
const withStrace = !process.argv.includes('--no-strace');
const compareDir = option('compare');

function swbSystem(label, dir) {
  const bin = join(dir, 'dist', 'bin', 'swb.js');
  if (!existsSync(bin)) throw new Error(`${bin} is missing (build that checkout first)`);
  const home = mkdtempSync(join(tmpdir(), 'swb-bench-sys-'));
  const env = { ...process.env, SWB_HOME: home };
  for (const k of ['SWB_SOCKET', 'SWB_SESSION', 'SWB_TOKEN']) delete env[k];
  return { label, home, env, args: [bin, 'hub', '--max-unread', '0', '--rate', '0'], socket: resolveRuntimePaths({ cwd: root, env }).socketPath };
}
function floorSystem() {
  const home = mkdtempSync(join(tmpdir(), 'swb-bench-sys-floor-'));
  const socket = join(home, 'floor.sock');
  return { label: 'floor', home, env: process.env, args: [join(root, 'bench', 'lib', 'mail-floor-hub.mjs'), socket, join(home, 'floor.db')], socket };
}

function start(sys) {
  return spawnListening(sys.args, { cwd: root, env: sys.env, label: sys.label });
}

async function connect(sys, session) {
  for (let i = 0; ; i++) {
    try {
      const c = await HubClient.open(sys.socket);
      await c.sayHello({ session });
      return c;
    } catch (err) {
      if (i > 500) throw err;
      await new Promise((r) => setTimeout(r, 10));
    }
  }
}

let seq = 0;
async function accepts(client, count) {
  for (let i = 0; i < count; i++) await client.request('mail.send', { to: ['sink'], text: `syscall probe ${i}`, messageId: `sys-${seq++}` });
}

/** User and system CPU seconds and context switches (voluntary + involuntary, every thread) of `pid`. */
function counters(pid) {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  let switches = 0;
  for (const t of readdirSync(`/proc/${pid}/task`)) {
    try {
      for (const m of readFileSync(`/proc/${pid}/task/${t}/status`, 'utf8').matchAll(/ctxt_switches:\s+(\d+)/g)) switches += Number(m[1]);
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return { user: Number(f[11]) / 100, system: Number(f[12]) / 100, switches };
}

/** Runs `count` accepts under strace with `args` (its output to `outFile`). */
async function underStrace(args, pid, client, count, outFile) {
  const tracer = spawn('strace', [...args, '-o', outFile, '-p', String(pid)], { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  tracer.stderr.on('data', (d) => (err += d));
  // strace says "attached" per thread on stderr once it traces.
  while (!err.includes('attached')) {
    if (tracer.exitCode !== null) throw new Error(`strace exited: ${err}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  await accepts(client, count);
  const done = new Promise((r) => tracer.once('exit', r));
  tracer.kill('SIGINT');
  await done;
}

/** Runs `count` accepts under `strace -f -c`; returns calls per syscall name. */
async function traced(pid, client, count, outFile) {
  await underStrace(['-f', '-c'], pid, client, count, outFile);
  const calls = {};
  for (const line of readFileSync(outFile, 'utf8').split('\n')) {
    const m = /^\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(?:\d+\s+)?([a-z_0-9]+)$/.exec(line);
    if (m && m[2] !== 'total') calls[m[2]] = Number(m[1]);
  }
  return calls;
}

/**
 * Runs `count` accepts tracing only fsync and fdatasync with their durations (-T): the commit's wait
 * for the disk, which is wall time in the kernel but little CPU, so the CPU figures do not show it.
 * Returns the median duration in microseconds.
 */
async function syncTimes(pid, client, count, outFile) {
  await underStrace(['-f', '-T', '-e', 'trace=fsync,fdatasync'], pid, client, count, outFile);
  const us = [...readFileSync(outFile, 'utf8').matchAll(/f(?:data)?sync\(.*<([\d.]+)>$/gm)].map((m) => Number(m[1]) * 1e6);
  return us.sort((a, b) => a - b)[Math.floor(us.length / 2)] ?? 0;
}

const systems = [swbSystem('swb', root), floorSystem(), ...(compareDir ? [swbSystem('swb@B', compareDir)] : [])];
const hubs = new Map();
const figures = new Map(systems.map((s) => [s.label, { user: [], system: [], switches: [], ms: [], calls: [], sync: [] }]));
try {
  for (const sys of systems) {
    hubs.set(sys.label, await start(sys));
    (await connect(sys, 'sink')).close();
  }
  for (let r = 0; r < rounds; r++) {
    for (let i = 0; i < systems.length; i++) {
      const sys = systems[(i + r) % systems.length];
      const pid = hubs.get(sys.label).pid;
      const client = await connect(sys, 'lat');
      await accepts(client, 300); // warm-up
      const f = figures.get(sys.label);
      const before = counters(pid);
      const t0 = process.hrtime.bigint();
      await accepts(client, n);
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      const after = counters(pid);
      f.user.push(((after.user - before.user) * 1e6) / n);
      f.system.push(((after.system - before.system) * 1e6) / n);
      f.switches.push((after.switches - before.switches) / n);
      f.ms.push(ms / n);
      if (withStrace) {
        f.calls.push(await traced(pid, client, n, join(sys.home, 'strace.txt')));
        f.sync.push(await syncTimes(pid, client, n, join(sys.home, 'strace-sync.txt')));
      }
      client.close();
    }
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const fmt = (x, d) => x.toFixed(d);
  console.log(`mail accept, kernel side — ${new Date().toISOString()}, node ${process.version}; ${n} sequential accepts from one sender per pass, ${rounds} rounds, medians`);
  console.log(`${''.padEnd(30)}${systems.map((s) => s.label.padStart(12)).join('')}`);
  const row = (what, get, d) => console.log(`${what.padEnd(30)}${systems.map((s) => fmt(get(figures.get(s.label)), d).padStart(12)).join('')}`);
  row('ms per accept (untraced)', (f) => median(f.ms), 3);
  row('hub CPU user, us per accept', (f) => median(f.user), 0);
  row('hub CPU system, us per accept', (f) => median(f.system), 0);
  row('context switches per accept', (f) => median(f.switches), 2);
  if (withStrace) {
    console.log('system calls per accept (strace -f -c, every thread):');
    const names = new Set(systems.flatMap((s) => figures.get(s.label).calls.flatMap((c) => Object.keys(c))));
    const perAccept = (f, name) => median(f.calls.map((c) => (c[name] ?? 0) / n));
    const shown = [...names].filter((name) => systems.some((s) => perAccept(figures.get(s.label), name) >= 0.01));
    shown.sort((a, b) => perAccept(figures.get('swb'), b) - perAccept(figures.get('swb'), a));
    for (const name of shown) row(`  ${name}`, (f) => perAccept(f, name), 2);
    row('  total', (f) => median(f.calls.map((c) => Object.values(c).reduce((a, b) => a + b, 0) / n)), 2);
    row('  pwrite64 / 2 (~ WAL frames)', (f) => median(f.calls.map((c) => (c.pwrite64 ?? 0) / 2 / n)), 2);
    row('fsync duration p50, us (traced)', (f) => median(f.sync), 0);
  }
} finally {
  for (const hub of hubs.values()) hub.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 200));
  for (const sys of systems) rmSync(sys.home, { recursive: true, force: true });
}
