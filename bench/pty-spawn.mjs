#!/usr/bin/env node
// node bench/pty-spawn.mjs [ROUNDS] [HOLD_MB] — what starting a row's program costs the server's
// thread (issue #33): node-pty 1.1.0's fork (forkpty + execvp) against the posix_spawn fork
// (native/pty-spawn.c, src/rows/pty-spawn-strategy.ts), side by side in one process that holds
// about HOLD_MB of memory as the server does (fork copies its page tables; posix_spawn does not).
// Each round starts 8 rows (`sh -c 'exit 0'`, as node-pty's spawn() does for a row) with one fork,
// then 8 with the other, the order alternating; the time is that of the synchronous spawn() call,
// and of it the native fork's. Prints the median and p90 per spawn of each. Needs `npm run build` (dist/) and the addon.
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const rounds = Number(process.argv[2] ?? 15);
const holdMb = Number(process.argv[3] ?? 80);
const ROWS = 8;

const require = createRequire(`${root}package.json`);
const native = require('node-pty/lib/utils.js').loadNativeModule('pty').module;
const nodePtyFork = native.fork;
const { installPtySpawn } = await import(`${root}dist/src/rows/pty-spawn-strategy.js`);
const state = installPtySpawn();
if (!state.installed) throw new Error(`the posix_spawn fork is not installed: ${state.reason}`);
const spawnFork = native.fork;
const { spawn } = require('node-pty');

// Up to HOLD_MB resident, as the server: a quarter in a touched Buffer, the rest in V8 heap objects.
const held = Buffer.alloc((holdMb / 4) * 1024 * 1024, 1);
const heap = [];
while (process.memoryUsage().rss < holdMb * 1024 * 1024) {
  for (let i = 0; i < 10_000; i++) heap.push({ i, s: `row ${heap.length}`.padEnd(64, '.') });
}
const rssMb = process.memoryUsage().rss / 1024 / 1024;

/** `fork`, timed: the native call alone, beside the whole spawn() (node-pty's JavaScript around it). */
let nativeMs = 0;
const timed = (fork) => (...args) => {
  const t0 = process.hrtime.bigint();
  try {
    return fork(...args);
  } finally {
    nativeMs = Number(process.hrtime.bigint() - t0) / 1e6;
  }
};

async function round(fork) {
  native.fork = timed(fork);
  const times = [];
  const natives = [];
  const exits = [];
  for (let i = 0; i < ROWS; i++) {
    const t0 = process.hrtime.bigint();
    const pty = spawn('sh', ['-c', 'exit 0'], { cols: 80, rows: 24, cwd: root, env: process.env, encoding: null });
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
    natives.push(nativeMs);
    exits.push(new Promise((resolve) => pty.onExit(resolve)));
  }
  await Promise.all(exits);
  return { times, natives };
}

const results = { 'node-pty fork': [], posix_spawn: [] };
const nativeResults = { 'node-pty fork': [], posix_spawn: [] };
for (let r = 0; r < rounds; r++) {
  const order = r % 2 === 0 ? ['node-pty fork', 'posix_spawn'] : ['posix_spawn', 'node-pty fork'];
  for (const name of order) {
    const { times, natives } = await round(name === 'posix_spawn' ? spawnFork : nodePtyFork);
    results[name].push(...times);
    nativeResults[name].push(...natives);
  }
}

const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))];
console.log(`pty-spawn: ${rounds} rounds x ${ROWS} rows, process RSS ${rssMb.toFixed(0)} MB (heap ${heap.length} objects, buffer ${held.length >> 20} MB)`);
for (const [name, xs] of Object.entries(results)) {
  const ns = nativeResults[name];
  console.log(`  ${name.padEnd(14)} spawn() median ${pct(xs, 0.5).toFixed(2)} ms  p90 ${pct(xs, 0.9).toFixed(2)} ms; of it the native fork median ${pct(ns, 0.5).toFixed(2)} ms  p90 ${pct(ns, 0.9).toFixed(2)} ms  (n=${xs.length})`);
}
console.log(`  ratio (median) ${(pct(results['node-pty fork'], 0.5) / pct(results.posix_spawn, 0.5)).toFixed(1)}x`);
