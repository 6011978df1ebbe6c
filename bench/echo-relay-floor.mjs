#!/usr/bin/env node
// npm run bench:relay — the echo floor under swb's design, beside tmux, in one run. swb's server
// reads the operator's terminal and writes it itself (src/server/client-tty.ts), as tmux's does,
// so a keystroke takes the same hops in both: terminal -> multiplexer -> the row's pty -> `cat` ->
// back. What differs is the multiplexer. Measured here, through the same harness pty and emulator
// as bench:render's echo, keystrokes alternating between:
//   pty      `cat` straight in the harness pty: no multiplexer at all (the hops' own cost);
//   tmux     tmux 3.x with `cat` in its one pane, attached;
//   node     a bare node process in the harness pty that does only what swb's server must per
//            keystroke: read the terminal, write the key into a node-pty `cat` (a direct write, as
//            swb's pty-direct-write does), write the echo back to the terminal. No emulation, no
//            drawing: the least a node multiplexer can pay;
//   node+xt  the same, with the echo parsed by @xterm/headless first (as a row's screen is);
//   swb      the built swb (dist/bin/swb.js) with `cat` in its one row, attached.
// Prints p50/p99 of each and the ratios to tmux. node/tmux says how close to tmux any node server
// can come on this machine, node+xt/tmux the same with a terminal emulator in it, swb/tmux how
// close swb comes (bench:render's echo-interleaved measures the same with 16 rows). Beside each:
// the CPU the relay spent per keystroke (its processes' threads, from /proc/PID/task/*/schedstat,
// over the whole sampling; cat's own CPU is not counted), the cost a faster machine hides less.
//   --prof   runs swb's server (and swb@B's) under node --cpu-prof and prints where its CPU went
//            while the keystrokes were sampled (the whole echo: the write into the row, the echo,
//            the parse and the paint after it).
//   --compare=DIR  adds `swb@B`: the swb built in another checkout (DIR/dist/bin/swb.js, e.g. a git
//            worktree of an older commit), interleaved with the rest, for an A/B in one run.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { echoOnce, sampleEcho } from './lib/render/echo.mjs';
import { formatProfile, summariseProfile } from './lib/render/cpuprofile.mjs';
import { preciseCpuSeconds } from './lib/render/proc.mjs';
import { PtyClient, sleep } from './lib/render/pty-client.mjs';
import { clientEnv, COLS, ROWS, startSwb, startTmux, killAllTmux } from './lib/render/systems.mjs';

const SAMPLES = Number(process.env.BENCH_RELAY_SAMPLES ?? 300);
const compareDir = process.argv.find((a) => a.startsWith('--compare='))?.slice('--compare='.length);
const compareBin = compareDir ? join(compareDir, 'dist/bin/swb.js') : undefined;
if (compareBin && !existsSync(compareBin)) {
  console.error(`--compare: ${compareBin} does not exist (build that checkout first)`);
  process.exit(2);
}
const WARMUP = 20;
const prof = process.argv.includes('--prof');
const root = new URL('..', import.meta.url).pathname;

// The node floor: one process, the harness terminal on its stdin/stdout, `cat` in a node-pty.
const nodeFloor = (parse) => `
  const { writeSync } = require('node:fs');
  const pty = require(${JSON.stringify(join(root, 'node_modules/node-pty'))});
  ${parse ? `const { Terminal } = require(${JSON.stringify(join(root, 'node_modules/@xterm/headless'))}); const term = new Terminal({ cols: ${COLS}, rows: ${ROWS}, allowProposedApi: true });` : ''}
  const p = pty.spawn('/bin/sh', ['-c', 'stty raw -echo; echo READY-FLOOR; exec cat'], { cols: ${COLS}, rows: ${ROWS} });
  process.stdin.setRawMode(true);
  process.stdin.on('data', (key) => { writeSync(p.fd, key); ${parse ? "term.input('', true);" : ''} });
  p.onData((d) => { ${parse ? 'term.write(d);' : ''} process.stdout.write(d); });
`;

const dir = mkdtempSync(join(tmpdir(), 'swb-relay-'));
const ctx = { dir, swbBin: join(root, 'dist/bin/swb.js') };
const profDir = join(dir, 'profiles');
const profiled = (profName) => (prof ? { profDir, profName } : {});
/** The sampling's span, in the profiles' clock (CLOCK_MONOTONIC microseconds). */
const window = {};
const monoUs = () => Number(process.hrtime.bigint() / 1000n);
const env = clientEnv({});
const cat = "stty raw -echo; echo READY-FLOOR; exec cat";
const systems = [];
try {
  systems.push({ name: 'pty', client: new PtyClient({ file: '/bin/sh', args: ['-c', cat], env, cwd: dir, cols: COLS, rows: ROWS }), cpuPids: [] });
  const tmux = await startTmux(ctx, [{ name: 'e1', cmd: cat }]);
  systems.push({ name: 'tmux', client: tmux.client, stop: () => tmux.stop(), cpuPids: tmux.cpuPids });
  for (const [name, parse] of [['node', false], ['node+xt', true]]) {
    const client = new PtyClient({ file: process.execPath, args: ['-e', nodeFloor(parse)], env, cwd: dir, cols: COLS, rows: ROWS });
    systems.push({ name, client, cpuPids: [client.pid] });
  }
  const swb = await startSwb(ctx, [{ name: 'e1', cmd: cat }], profiled('swb'));
  systems.push({ name: 'swb', client: swb.client, stop: () => swb.stop(), cpuPids: swb.cpuPids });
  const other = compareBin ? await startSwb({ ...ctx, swbBin: compareBin }, [{ name: 'e1', cmd: cat }], profiled('swb@B')) : undefined;
  if (other) systems.push({ name: 'swb@B', client: other.client, stop: () => other.stop(), cpuPids: other.cpuPids });
  for (const s of systems) await s.client.waitForText('READY-FLOOR', 10000).catch(() => undefined);
  await sleep(1500);
  await tmux.attachFirst();
  await swb.attachFirst();
  await other?.attachFirst();
  await sleep(500);
  for (const s of systems) {
    // Proves each echoes before anything is timed.
    await echoOnce(s.client, 'x', 3000);
    await s.client.settle(50, 1000);
  }
  const cpuOf = (s) => s.cpuPids.reduce((sum, pid) => sum + preciseCpuSeconds(pid), 0);
  const cpuBefore = systems.map(cpuOf);
  window.fromUs = monoUs();
  const results = await sampleEcho(systems.map((s) => s.client), { warmup: WARMUP, samples: SAMPLES });
  window.toUs = monoUs();
  const cpuPerKey = systems.map((s, k) => ((cpuOf(s) - cpuBefore[k]) / (WARMUP + SAMPLES)) * 1e6);
  const tmuxIndex = systems.findIndex((s) => s.name === 'tmux');
  const tmuxResult = results[tmuxIndex];
  console.log(`echo floor, ${SAMPLES} keystrokes each, interleaved (harness: a node-pty terminal, ${COLS}x${ROWS}):`);
  systems.forEach((s, k) => {
    const { p50, p99 } = results[k];
    const cpu = s.cpuPids.length > 0 ? `, CPU ${cpuPerKey[k].toFixed(0)} us/key (${(cpuPerKey[k] / cpuPerKey[tmuxIndex]).toFixed(2)}x tmux)` : '';
    console.log(`  ${s.name.padEnd(8)} p50 ${p50.toFixed(3)} ms (${(p50 / tmuxResult.p50).toFixed(2)}x tmux), p99 ${p99.toFixed(3)} ms (${(p99 / tmuxResult.p99).toFixed(2)}x tmux)${cpu}`);
  });
} finally {
  for (const s of systems) {
    if (s.stop) await s.stop();
    else {
      await s.client.stop('SIGTERM', 2000).catch(() => undefined);
      s.client.dispose();
    }
  }
  killAllTmux();
  // A server writes its profile as it exits, and each has been stopped by now.
  if (prof) {
    for (const name of ['swb', ...(compareBin ? ['swb@B'] : [])]) {
      const file = join(profDir, `${name}.cpuprofile`);
      if (!existsSync(file)) console.log(`${name}: no profile written (the server did not exit cleanly?)`);
      else console.log(formatProfile(`${name} server, ${WARMUP + SAMPLES} keystrokes`, summariseProfile(file, root, 15, window)));
    }
  }
  rmSync(dir, { recursive: true, force: true });
}
