#!/usr/bin/env node
// npm run bench:resources — reservations (issue #35) against a real headless hub, beside `flock(1)`
// in the same run:
//  1. hand-over latency: from the holder's command exiting (its last timestamp) to the next holder's
//     command starting (its first timestamp), for `swb run --resource` and for a bare `flock`; p50/p99
//     of each and the ratio. The goal: swb p50 <= 2x flock p50 + one FULL commit (a policy change's
//     round trip is measured as that commit, with its RPC).
//  2. 32 contenders on one resource, queued one after another: FIFO kept (they run in the order they
//     asked), no lost or doubled grant (each runs once, the marks never interleave).
//   node bench/resources.mjs [ROUNDS]   (default 30 hand-overs each)
import { spawn } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const swb = join(root, 'dist', 'bin', 'swb.js');
const { HubClient } = await import(join(root, 'dist', 'src', 'client', 'hub-client.js'));
const { resolveRuntimePaths } = await import(join(root, 'dist', 'src', 'hub', 'runtime-paths.js'));
const rounds = Number(process.argv[2] ?? 30);

const base = mkdtempSync(join(tmpdir(), 'swb-bench-res-'));
const home = join(base, 'home');
const work = join(base, 'work');
execFileSync('mkdir', ['-p', home, work]);
const env = { PATH: process.env.PATH, HOME: process.env.HOME, SWB_HOME: home, XDG_CONFIG_HOME: home };
const paths = resolveRuntimePaths({ cwd: work, env });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function start(cmd, args) {
  const child = spawn(cmd, args, { cwd: work, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal, err })));
  return { child, exited, stderr: () => err };
}

async function until(cond, what, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`bench: ${what} did not happen within ${timeoutMs} ms`);
    await sleep(5);
  }
}

const hub = start(process.execPath, [swb, 'hub']);
await until(() => hub.stderr().includes('listening on'), 'the hub listening');
const op = await HubClient.open(paths.socketPath);
await op.sayHello({ session: 'operator', token: readFileSync(paths.operatorTokenFile, 'utf8').trim() });
const queued = async (name) => (await op.request('resource.status', { name })).resources[0].queue.length;

/** One hand-over: A holds and waits on a fifo; B queues; A is let go; B's start minus A's end. */
async function handOver(kind, i) {
  const fifo = join(work, `fifo-${kind}-${i}`);
  const aEnd = join(work, `a-${kind}-${i}`);
  const bStart = join(work, `b-${kind}-${i}`);
  execFileSync('mkfifo', [fifo]);
  const holdCmd = ['sh', '-c', `read x < ${fifo}; date +%s%N > ${aEnd}`];
  const nextCmd = ['sh', '-c', `date +%s%N > ${bStart}`];
  const lock = join(work, 'flock.lock');
  const gate = (who, cmd) =>
    kind === 'swb' ? start(process.execPath, [swb, 'run', '--as', who, '--resource', 'db', '--', ...cmd]) : start('flock', [lock, ...cmd]);
  const a = gate('a', holdCmd);
  if (kind === 'swb') await until(async () => (await op.request('resource.status', { name: 'db' })).resources[0].holders[0]?.state === 'held', 'a holding');
  else await sleep(150); // flock shows no queue: give it time to take the lock
  const b = gate('b', nextCmd);
  if (kind === 'swb') await until(async () => (await queued('db')) === 1, 'b queued');
  else await sleep(250);
  writeFileSync(fifo, 'go\n');
  const [ra, rb] = await Promise.all([a.exited, b.exited]);
  if (ra.code !== 0 || rb.code !== 0) throw new Error(`bench: ${kind} round ${i} failed: ${ra.err} ${rb.err}`);
  const ns = BigInt(readFileSync(bStart, 'utf8').trim()) - BigInt(readFileSync(aEnd, 'utf8').trim());
  return Number(ns) / 1e6;
}

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};

try {
  const swbTimes = [];
  const flockTimes = [];
  for (let i = 0; i < rounds; i++) {
    swbTimes.push(await handOver('swb', i));
    flockTimes.push(await handOver('flock', i));
  }
  // One FULL commit, with its round trip: a policy change on a resource nobody uses.
  const commits = [];
  for (let i = 0; i < 20; i++) {
    const t0 = performance.now();
    await op.request('resource.policy', { name: 'bench:commit', capacity: 1 + (i % 2) });
    commits.push(performance.now() - t0);
  }

  // 32 contenders, queued in a known order behind the operator's own grant.
  const held = await op.request('resource.request', { resources: ['fifo'] });
  const marks = join(work, 'marks');
  const contenders = [];
  for (let i = 0; i < 32; i++) {
    const id = `c${String(i).padStart(2, '0')}`;
    contenders.push(start(process.execPath, [swb, 'run', '--as', id, '--resource', 'fifo', '--', 'sh', '-c', `echo "start ${id}" >> ${marks}; echo "end ${id}" >> ${marks}`]));
    await until(async () => (await queued('fifo')) === i + 1, `${id} queued`);
  }
  await op.request('resource.release', { ticket: held.ticket });
  const results = await Promise.all(contenders.map((c) => c.exited));
  const failed = results.filter((r) => r.code !== 0);
  const lines = existsSync(marks) ? readFileSync(marks, 'utf8').trim().split('\n') : [];
  const order = [];
  let clean = true;
  for (let i = 0; i < lines.length; i += 2) {
    const id = lines[i].replace(/^start /, '');
    if (!lines[i].startsWith('start ') || lines[i + 1] !== `end ${id}`) clean = false;
    order.push(id);
  }
  const expected = contenders.map((_, i) => `c${String(i).padStart(2, '0')}`);
  const fifoKept = JSON.stringify(order) === JSON.stringify(expected);
  const once = new Set(order).size === order.length && order.length === 32;

  const f = (x) => x.toFixed(1);
  const commit = pct(commits, 50);
  console.log(`bench:resources — ${rounds} hand-overs each, holder's exit to next holder's start`);
  console.log(`swb run --resource  p50 ${f(pct(swbTimes, 50))} ms  p99 ${f(pct(swbTimes, 99))} ms`);
  console.log(`flock(1)            p50 ${f(pct(flockTimes, 50))} ms  p99 ${f(pct(flockTimes, 99))} ms`);
  console.log(`one FULL commit (policy change round trip)  p50 ${f(commit)} ms`);
  console.log(`swb / flock: p50 ${(pct(swbTimes, 50) / pct(flockTimes, 50)).toFixed(2)}x  p99 ${(pct(swbTimes, 99) / pct(flockTimes, 99)).toFixed(2)}x`);
  console.log(`goal p50 <= 2x flock + one commit = ${f(2 * pct(flockTimes, 50) + commit)} ms: ${pct(swbTimes, 50) <= 2 * pct(flockTimes, 50) + commit ? 'met' : 'NOT met'}`);
  console.log(`32 contenders: ${32 - failed.length}/32 ran ok, FIFO ${fifoKept ? 'kept' : 'BROKEN'}, each once ${once ? 'yes' : 'NO'}, marks ${clean ? 'clean' : 'INTERLEAVED'}`);
  if (failed.length > 0 || !fifoKept || !once || !clean) process.exitCode = 1;
} finally {
  op.close();
  hub.child.kill('SIGTERM');
  await hub.exited;
  rmSync(base, { recursive: true, force: true });
}
