#!/usr/bin/env node
// npm run bench:hub-start — how long a headless `swb hub` takes from spawn to "listening on" (what
// a CLI command that finds no hub waits for), beside its floor in the same run: a bare node process
// that listens on a Unix socket and says so. Each run uses a fresh SWB_HOME, so the store is created.
//   node bench/hub-start.mjs [RUNS]   (default 9; runs alternate between the two)
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const runs = Number(process.argv[2] ?? 9);
const FLOOR = `require('node:net').createServer().listen(require('node:path').join(process.env.SWB_HOME, 's.sock'), () => process.stderr.write('listening on\\n'))`;

async function timeToListen(args, home) {
  const t0 = performance.now();
  const env = { ...process.env, SWB_HOME: home, XDG_CONFIG_HOME: home };
  for (const k of ['SWB_SOCKET', 'SWB_SESSION', 'SWB_TOKEN', 'SWB_CONFIG']) delete env[k];
  const child = spawn(process.execPath, args, { cwd: home, env, stdio: ['ignore', 'ignore', 'pipe'] });
  await new Promise((resolve, reject) => {
    let err = '';
    child.stderr.on('data', (d) => {
      err += d;
      if (err.includes('listening on')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${err}`)));
  });
  const ms = performance.now() - t0;
  child.removeAllListeners('exit');
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  return ms;
}

const hub = [];
const floor = [];
for (let i = 0; i < runs; i++) {
  for (const [list, args] of [
    [hub, [join(root, 'dist', 'bin', 'swb.js'), 'hub', '--workspace', 'bench']],
    [floor, ['-e', FLOOR]],
  ]) {
    const home = mkdtempSync(join(tmpdir(), 'swb-hubstart-'));
    try {
      list.push(await timeToListen(args, home));
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(`bench:hub-start — ${runs} runs each, spawn to "listening on"`);
console.log(`swb hub            median ${median(hub).toFixed(0)} ms   (all: ${hub.map((t) => t.toFixed(0)).join(' ')})`);
console.log(`floor (bare node)  median ${median(floor).toFixed(0)} ms   (all: ${floor.map((t) => t.toFixed(0)).join(' ')})`);
console.log(`swb hub / floor: ${(median(hub) / median(floor)).toFixed(2)}x`);
