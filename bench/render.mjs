#!/usr/bin/env node
// npm run bench:render [-- --quick] [--only=flood,idle,idle-start,echo,echo-interleaved,first,reattach,echo-under-load,scale,memory] [--systems=swb,tmux,floor] [--floods=colour,seq] [--flood-reps=N] [--load-reps=N] [--load-shapes=steady,burst] [--load-rounds=N] [--idle-minutes=N] [--history=N] [--tmux-history=N] [--sched] [--prof] [--idle-preamble=BYTES] [--first-reps=N] [--compare=DIR]
//
// Rendering cost of the dashboard beside tmux, measured the same way in the same run: both at
// 200x50 with a client attached through a pty (this process is the terminal; it reads all
// output), NODE_ENV=production for swb. Both are client/server: swb's thin client in the pty
// starts a detached workspace server that owns the rows and renders the dashboard, as the tmux
// client talks to its server; the CPU and memory that count are the multiplexer's own processes
// (swb: server + client; tmux: server + client; memory: the server), never the programs in the
// rows. Needs `npm run build` first (runs dist/bin/swb.js) and tmux on PATH.
//   flood  8 rows `cat` ~5 MB of SGR-coloured text each; then 8 rows `seq 1 200000` each. All
//          rows start together at a FIFO barrier. CPU of the multiplexer's processes, and wall
//          time until every row shows its last line (a DONE marker printed after the work, seen
//          in the client's output; afterwards checked on an emulated screen of the client), and of
//          it the end's share: from the last program's end (the time it wrote, just before its
//          DONE) to that DONE in the client's output; the
//          server's peak RSS (VmHWM) per row. Each flood runs --flood-reps times per system
//          (default 3, interleaved); the table shows medians (RSS: the highest peak).
//   idle   16 rows that printed ~1 MB each (full scrollback) and wait on input (`cat`, pty raw):
//          CPU over 10 s once at rest (settleIdle: 45 s after the output, for the one-off garbage
//          collections and label turns that follow a burst, then 3 s in a row under 2 ms CPU a
//          second and nothing written; the time and CPU that took are printed), as % of one core
//          (schedstat, ns resolution); then the server's peak RSS (VmHWM).
//   idle-start  every dashboard up at once, 16 rows each that print a READY line and wait (`cat`):
//          from each one's first full frame, --idle-minutes minutes (default 5) of CPU, wakeups
//          (times a thread of the multiplexer was scheduled) and bytes to the client, minute by
//          minute: the settling after a start (V8's memory reducer, the header ages' turns)
//          included, which `idle` waits out (lib/render/idle-window.mjs).
//   echo   in that session, attach the first row (swb: Enter; tmux: zoom the pane) and time a
//          keystroke written to the client pty until it comes back out of it; p50/p99.
//   first  start (spawn) to the first frame showing all 8 rows' output (swb also: headers), no
//          server running: swb's client starts its server, so the figure holds both node starts,
//          the server's load, its rows and its first paint (as it always did: the old shape and
//          the new are the same). --first-reps runs (default 5) of each system, interleaved, each
//          after a `node -e 0` whose median is the unit of issue #33's goal (<= 3x); swb's runs
//          are traced (SWB_START_TRACE) and the median timeline printed: which process, where.
//          The floor (with --systems=...,floor) takes its turn among them, traced alike.
//   reattach  (goal, issue #33: <= 1.5x a `node -e 0` taken beside each)
//          8 rows that printed a line, one client attached; a second client (swb attach /
//          tmux attach-session) from spawn to its first full frame (every row's line in its
//          output; swb also the headers); then it detaches (swb: d; tmux: the client ends).
//   echo-interleaved  swb and tmux side by side, each with the idle workload's rows and its first
//          row attached, and the keystrokes alternate between them (swb, tmux, swb, ...): a machine
//          that drifts (these shared 2-core machines do) moves both figures alike, so the ratio
//          holds still where `echo`, one system after the other, can swing it by 2x.
//   echo-under-load  the first row waits on input, 8 others each stream 400 lines/s (a node
//          loop paced by the clock; the rate reached is checked and printed). Every system is up
//          at once and they take turns: only the system in its turn has its streamers running
//          (the others' are stopped, and cost nothing). CPU of the multiplexer over 10 s of that
//          streaming with the dashboard showing every row (info), then with the first row
//          attached (tmux: zoomed; both then only parse the others' output), --load-reps turns
//          of each (the table shows medians), in each of --load-shapes: steady (the lines due every
//          10 ms, 4 at a time) and burst (40 lines every 100 ms, as an agent's Ink UI writes); then
//          30 rounds (--load-rounds) of echo in the attached row, 20
//          keystrokes a turn, the order rotating each round; p50/p99 over all of a system's
//          keystrokes. The floor runs it too, with e1 as its keyboard row (emulator-floor.mjs
//          --keys): the echo written straight back, every streaming row parsed as it comes.
//   scale  100 idle rows (`cat`, one READY line each): start to the first frame showing all 100
//          READY lines (swb: and all 100 headers; at 200x50 every row fits, swb's grid and
//          tmux's tiled window alike), idle CPU over 10 s once at rest (as idle), bytes written to the client in that
//          window, the server's peak RSS per row. tmux: one window of 100 tiled panes.
//   memory the server's peak RSS (VmHWM) with 1 and with 16 idle rows that printed the idle
//          preamble: the base (the server with no row, extrapolated) and each idle row's cost
//          (issue #33: base <= 60 MB, <= 2 MB an idle row; flooding rows: the floods' figure).
//          The floor's server is measured the same way, after swb's and tmux's.
// The floor column is a system that is the least of what it stands beside, on swb's own stack:
//   floods, echo-under-load: node-pty + @xterm/headless alone (lib/render/emulator-floor.mjs), each
//          row at its swb size, every byte parsed, nothing drawn.
//   first, memory: "two node starts and a frame" (lib/render/first-frame-floor.mjs): a thin client
//          (CommonJS, node built-ins only) that starts a detached server with the server's V8 flags
//          and relays its frames; the server loads one esbuild bundle of Ink + React + xterm +
//          node-pty with a warm V8 code cache, as swb loads its own (both built at bench start, in
//          node_modules/.cache), starts the rows with swb's posix_spawn, parses their output into
//          xterm terminals at their swb sizes and renders the grid (a header with the row's name
//          over its screen) with Ink. No store, hub, config, trust check, supervision, scrollback or
//          colour; NODE_EXTRA_CA_CERTS is unset for both of its processes (bin/swb sets it aside
//          for swb's). What swb spends above it is swb's own; what it spends is the stack's.
// --sched records echo-under-load's echo rounds with `perf sched record` and prints, per system, the
// median of each hop of a keystroke's round trip (lib/render/sched-chain.mjs): where swb's extra
// time goes beside tmux's and the floor's. perf's own tracing costs every system alike in that run.
// --compare=DIR adds another build of swb (DIR: a built checkout, e.g. a `git worktree` of another
// commit) to the floods, idle/echo, idle-start, echo-under-load, first, reattach and memory as system swb@B, as bench:relay's --compare does: both
// builds take their turns in the same run, so an A/B of a change is not two runs on a drifting machine.
// --prof (or SWB_BENCH_PROF=1) runs swb under `node --cpu-prof` and prints the hot spots of each
// measured span (the profiler's own sampling thread inflates swb's idle CPU in that mode).
// SWB_BENCH_PROF_INTERVAL=US samples every US microseconds (node's default is 1000).
// SWB_BENCH_SERVER_ARGS='FLAGS' runs swb's server node with FLAGS instead (e.g. --trace-gc), and
// SWB_BENCH_KEEP=1 keeps the bench's directory, the swb workspaces' server.out with it.
// Figures from a loaded machine are noisy: the machine line shows the load average.
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execFileSync } from 'node:child_process';
import { bestCpuS, cpuMeter, cpuSeconds, loadAverage, memory, settleIdle } from './lib/render/proc.mjs';
import { PtyClient, sleep } from './lib/render/pty-client.mjs';
import { COLS, HISTORY_LINES, ROWS, TMUX_HISTORY_ARGS, TMUX_HISTORY_LINES, clientEnv, killAllTmux, killTmuxServer, listProfiles, startFloor, startSwb, startTmux, swbClientRelay, swbCommand } from './lib/render/systems.mjs';
import { childNamed, echoChain, formatChain, readSchedTrace, startSchedRecord, threadsOf } from './lib/render/sched-chain.mjs';
import { Barrier, floodCommand, helloCommand, idleCommand, lastEnd, readStreamStatus, shq, streamCommand, writeColouredText, writeStreamScript } from './lib/render/workloads.mjs';
import { formatProfile, summariseProfile } from './lib/render/cpuprofile.mjs';
import { idleWindowMeter } from './lib/render/idle-window.mjs';
import { echoOnce, latencyStats, sampleEcho } from './lib/render/echo.mjs';
import { formatTrace, medianTrace, memoryModel, monotonicMs, nodeRss, nodeStartMs, privateRss, readStartTrace } from './lib/render/start-memory.mjs';
import { buildFirstFrameFloor, startFirstFrameFloor } from './lib/render/first-frame-floor.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const argv = process.argv.slice(2);
const WORKLOADS = ['flood', 'idle', 'idle-start', 'echo', 'echo-interleaved', 'first', 'reattach', 'echo-under-load', 'scale', 'memory'];
const flag = (name) => argv.includes(`--${name}`);
const option = (name) => argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
if (flag('help')) {
  process.stdout.write(readUsage());
  process.exit(0);
}
const quick = flag('quick');
const prof = flag('prof') || process.env.SWB_BENCH_PROF === '1';
const only = new Set((option('only') ?? WORKLOADS.join(',')).split(','));
for (const w of only) {
  if (!WORKLOADS.includes(w)) {
    process.stderr.write(`--only: no workload ${JSON.stringify(w)} (there are ${WORKLOADS.join(', ')})\n`);
    process.exit(2);
  }
}
const systems = (option('systems') ?? 'swb,tmux,floor').split(',');
/** --compare=DIR: a second swb build, run beside swb in echo-under-load (system swb@B). */
const compareBin = option('compare') === undefined ? undefined : join(option('compare'), 'dist', 'bin', 'swb.js');
if (compareBin !== undefined && !existsSync(compareBin)) {
  process.stderr.write(`--compare: ${compareBin} is missing (build that checkout first)\n`);
  process.exit(2);
}
/** echo-under-load's streaming shapes: the same 400 lines/s, written every 10 ms or in bursts every 100 ms. */
const STREAM_SHAPES = {
  steady: { periodMs: 10, label: '4 lines every 10 ms' },
  burst: { periodMs: 100, label: 'bursts of 40 lines every 100 ms' },
};
const loadShapes = (option('load-shapes') ?? 'steady,burst').split(',');
for (const shape of loadShapes) {
  if (!(shape in STREAM_SHAPES)) {
    process.stderr.write(`--load-shapes: no shape ${JSON.stringify(shape)} (there are ${Object.keys(STREAM_SHAPES).join(', ')})\n`);
    process.exit(2);
  }
}
const FLOODS = ['colour', 'seq'];
const floods = (option('floods') ?? FLOODS.join(',')).split(',');
for (const f of floods) {
  if (!FLOODS.includes(f)) {
    process.stderr.write(`--floods: no flood ${JSON.stringify(f)} (there are ${FLOODS.join(', ')})\n`);
    process.exit(2);
  }
}
/** The floor (node-pty + @xterm/headless alone) runs the floods and echo-under-load: it has no dashboard to idle, attach or draw. */
const dashboards = systems.filter((s) => s !== 'floor');
/** first and memory: the floor is the first-frame floor (lib/render/first-frame-floor.mjs), a dashboard of its own, built at start. */
const frameFloor = systems.includes('floor') && (only.has('first') || only.has('memory'));

/** --NAME=N: a whole number from 1 (default `full`; 1 with --quick or --prof, whose profile a second run would overwrite). */
function repsOption(name, full) {
  const text = option(name);
  if (text === undefined) return quick || prof ? 1 : full;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) {
    process.stderr.write(`--${name} wants a whole number from 1, not ${JSON.stringify(text)}\n`);
    process.exit(2);
  }
  return n;
}

const P = {
  colourBytes: quick ? 2 * 1024 * 1024 : 5 * 1024 * 1024,
  seqN: quick ? 80000 : 200000,
  floodTimeoutMs: quick ? 60000 : 120000,
  floodReps: repsOption('flood-reps', 3),
  idlePreambleBytes: option('idle-preamble') !== undefined ? Number(option('idle-preamble')) : quick ? 512 * 1024 : 1024 * 1024,
  idleSeconds: quick ? 5 : 10,
  idleRows: 16,
  echoSamples: quick ? 100 : 200,
  echoWarmup: 10,
  firstReps: repsOption('first-reps', 5),
  reattachRows: 8,
  reattachReps: quick ? 2 : 5,
  loadRows: 8,
  loadRate: 400,
  loadSeconds: quick ? 5 : 10,
  loadReps: repsOption('load-reps', 3),
  loadRounds: option('load-rounds') !== undefined ? Number(option('load-rounds')) : quick ? 10 : 30,
  loadKeysPerRound: quick ? 10 : 20,
  scaleRows: 100,
  scaleIdleSeconds: quick ? 5 : 10,
  idleStartMinutes: option('idle-minutes') !== undefined ? Number(option('idle-minutes')) : quick ? 1 : 5,
  sched: flag('sched'),
};

// The issues' figures for tmux 3.3a on this kind of machine (#10: echo under load, 64 idle rows).
const ISSUE_TMUX = { colourWall: 2.26, colourCpu: 2.11, seqWall: 0.98, seqCpu: 0.47, idlePct: 0.003, echoP50: 0.74, echoP99: 3.1, rssMb: 15, loadP50: 0.57, loadP99: 2.9, loadCpuS10: 0.25, idle64Pct: 0.004 };

const ctx = { dir: mkdtempSync(join(tmpdir(), 'swb-render-bench-')), swbBin: join(root, 'dist', 'bin', 'swb.js') };
const profDir = prof ? join(ctx.dir, 'profiles') : undefined;
const live = new Set();
/** Extra clients (reattach) still running. */
const extraClients = new Set();
const oneShotSockets = new Set();
/** Numbers the first-frame runs' trace files. */
let firstFrameRuns = 0;
/** --prof: spans of the swb profiles worth summarising ({ profName, label, fromUs, toUs }). */
const profWindows = [];
const monoUs = () => Number(process.hrtime.bigint() / 1000n);

function cleanup() {
  for (const c of [...extraClients, ...[...live].map((s) => s.client)]) {
    try {
      process.kill(c.pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
  extraClients.clear();
  // A swb server is detached from its client: end it (and its rows) too.
  for (const s of live) s.killNow?.();
  live.clear();
  killAllTmux();
  for (const sock of oneShotSockets) {
    try {
      killTmuxServer(sock);
    } catch {
      // gone
    }
  }
  oneShotSockets.clear();
  ctx.firstFrameFloor?.dispose();
  ctx.firstFrameFloor = undefined;
  if (!prof && !process.env.SWB_BENCH_KEEP) rmSync(ctx.dir, { recursive: true, force: true });
  else for (const f of ['coloured.txt', 'preamble.txt']) rmSync(join(ctx.dir, f), { force: true });
}
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(sig, () => {
    cleanup();
    process.exit(130);
  });
}

/** `onClient` (swb): called with the client pty as soon as it exists, before the server is known. */
async function start(system, rows, profName, { onClient, keys, extraEnv } = {}) {
  const s =
    system === 'swb'
      ? await startSwb(ctx, rows, { ...(prof ? { profDir, profName } : {}), onClient, extraEnv })
      : system === 'swb@B'
        ? Object.assign(await startSwb({ ...ctx, swbBin: compareBin }, rows, { onClient, extraEnv }), { system: 'swb@B' })
        : system === 'floor'
          ? await startFloor(ctx, rows, { keys })
          : await startTmux(ctx, rows);
  live.add(s);
  return s;
}

async function stop(s) {
  live.delete(s);
  await s.stop();
}

// ---------------------------------------------------------------------------------------------

async function runFlood(system, kind, files) {
  const n = 8;
  const tag = kind === 'colour' ? 'c' : 's';
  const barrier = new Barrier(ctx.dir, n, `${system}-${tag}`);
  const work = kind === 'colour' ? `cat ${shq(files.colour)}` : `seq 1 ${P.seqN}`;
  const endFiles = barrier.paths.map((p) => `${p}.end`);
  const rows = barrier.paths.map((p, i) => ({ name: `${tag}${i + 1}`, cmd: floodCommand(p, work, `${tag}${i + 1}`, endFiles[i]) }));
  const s = await start(system, rows, `flood-${kind}`);
  try {
    // Every row drawn (its WAIT line on the client's screen) and blocked at the barrier, and the
    // multiplexer quiet: start-up is over.
    const drawn = s.client.waitForMarkers(
      rows.map((r) => `WAIT-${r.name}`),
      60000,
    );
    await barrier.ready(60000);
    await drawn;
    await s.client.settle(500, 5000);
    const memBefore = memory(s.memPid);
    // From here the harness only counts bytes and looks for markers; the screen is emulated afterwards.
    s.client.deferEmulation();
    const markers = rows.map((r) => `DONE-${r.name}`);
    const done = s.client.waitForMarkers(markers, P.floodTimeoutMs);
    const bytes0 = s.client.bytes;
    const harness0 = process.cpuUsage();
    const meter = cpuMeter(s.cpuPids);
    const t0 = performance.now();
    const fromUs = monoUs();
    barrier.release();
    const { at } = await done;
    // From the last program's end (as it wrote it, just before its DONE) to that DONE on the client.
    const endLagMs = Date.now() - (performance.now() - at) - lastEnd(endFiles);
    const m = meter();
    if (system === 'swb') profWindows.push({ profName: `flood-${kind}`, label: `flood ${kind} (barrier release to last DONE)`, fromUs, toUs: monoUs() });
    const harness = process.cpuUsage(harness0);
    const result = {
      wallS: (at - t0) / 1000,
      endLagMs,
      cpuS: m.cpuS,
      per: m.per.map((p) => p.cpuS),
      outBytes: s.client.bytes - bytes0,
      harnessCpuS: (harness.user + harness.system) / 1e6,
      hwm: memory(s.memPid).hwm,
      rssBefore: memBefore.rss,
    };
    await s.client.resumeEmulation();
    result.problems = checkScreen(await s.client.screenLines(), rows, kind === 'seq' ? String(P.seqN) : null);
    return result;
  } finally {
    barrier.close();
    for (const f of endFiles) rmSync(f, { force: true });
    await stop(s);
  }
}

/** Every DONE marker on the emulated screen; for seq, the last number right above it. */
function checkScreen(lines, rows, above) {
  const problems = [];
  for (const r of rows) {
    const marker = `DONE-${r.name}`;
    const y = lines.findIndex((l) => l.includes(marker));
    if (y < 0) {
      problems.push(`${marker} not on screen`);
      continue;
    }
    if (above !== null) {
      const x = lines[y].indexOf(marker);
      const prev = y > 0 ? lines[y - 1].slice(x, x + above.length + 1) : '';
      if (!new RegExp(`^${above}\\b`).test(prev)) problems.push(`${r.name}: line above ${marker} is ${JSON.stringify(prev)}, not ${above}`);
    }
  }
  return problems;
}

async function runIdleEcho(system, files) {
  const rows = Array.from({ length: P.idleRows }, (_, i) => ({ name: `i${i + 1}`, cmd: idleCommand(files.preamble, `i${i + 1}`) }));
  const s = await start(system, rows, 'idle-echo');
  const result = {};
  try {
    const ready = s.client.waitForMarkers(
      rows.map((r) => `READY-${r.name}`),
      90000,
    );
    await ready;
    // Let parsing, painting and layout-driven resizes finish before measuring.
    await sleep(quick ? 1500 : 2500);
    if (only.has('idle')) {
      // And what a burst leaves behind (garbage collected some seconds later, labels that turn);
      // the CPU that takes is printed beside the idle figure.
      const settling = await settleIdle(s.cpuPids, s.client);
      s.client.deferEmulation();
      const bytes0 = s.client.bytes;
      const meter = cpuMeter(s.cpuPids);
      const fromUs = monoUs();
      await sleep(P.idleSeconds * 1000);
      const m = meter();
      if (system === 'swb') profWindows.push({ profName: 'idle-echo', label: `idle ${P.idleRows} rows`, fromUs, toUs: monoUs() });
      const written = Buffer.concat(s.client.deferred ?? []);
      await s.client.resumeEmulation();
      const cpu = bestCpuS(m);
      const text = printable(written.toString('utf8')).slice(0, 100);
      result.idle = { pct: (100 * cpu) / m.wallS, cpuS: cpu, tickCpuS: m.cpuS, outBytes: s.client.bytes - bytes0, seconds: m.wallS, text, settling };
    }
    result.rss = { hwm: memory(s.memPid).hwm, rows: rows.length };
    if (only.has('echo')) {
      const fromUs = monoUs();
      result.echo = await measureEcho(s);
      if (system === 'swb') {
        const toUs = monoUs();
        profWindows.push({ profName: 'idle-echo', label: 'echo (attach and keystrokes)', fromUs, toUs });
        profWindows.push({ profName: 'idle-echo', label: 'echo (the measured keystrokes alone)', fromUs: result.echo.keysFromUs, toUs });
      }
    }
    result.rss.hwmAfterEcho = memory(s.memPid).hwm;
    return result;
  } finally {
    await stop(s);
  }
}

async function measureEcho(s) {
  const attachMs = await attachForEcho(s);
  return { ...(await echoSamples(s)), attachMs };
}

/** Attaches the first row and proves it echoes; resolves with the time from attach to first paint (ms). */
async function attachForEcho(s) {
  // Attaching repaints the whole screen (swb also reflows the row to full size): wait for that
  // paint to start and finish, so the first keystroke is not read together with the Enter.
  const bytes0 = s.client.bytes;
  const a0 = performance.now();
  await s.attachFirst();
  while (s.repaintsOnAttach !== false && s.client.bytes === bytes0 && performance.now() - a0 < 10000) await sleep(2);
  const attachMs = performance.now() - a0;
  await s.client.settle(300, 5000);
  // The first keystroke also proves the attach worked.
  const probeOk = await echoOnce(s.client, 'x', 3000).catch(() => null);
  if (probeOk === null) {
    const screen = (await s.client.screenLines()).filter((l) => l.trim() !== '');
    throw new Error(`no echo from the attached row (attach failed?); the screen's last lines:\n    ${screen.slice(-4).join('\n    ')}`);
  }
  await s.client.settle(50, 1000);
  return attachMs;
}

/** Keystrokes into the attached row, each timed from the write to its echo in the client's output. */
async function echoSamples(s) {
  const keysFromUs = monoUs();
  const [r] = await sampleEcho([s.client], { warmup: P.echoWarmup, samples: P.echoSamples });
  return { ...r, keysFromUs };
}

/** echo-interleaved: both dashboards up at once, keystrokes alternating between them. */
async function runEchoInterleaved(pair, files) {
  const rows = Array.from({ length: P.idleRows }, (_, i) => ({ name: `i${i + 1}`, cmd: idleCommand(files.preamble, `i${i + 1}`) }));
  const started = [];
  try {
    for (const system of pair) {
      const s = await start(system, rows, 'echo-interleaved');
      started.push(s);
      await s.client.waitForMarkers(rows.map((r) => `READY-${r.name}`), 90000);
    }
    await sleep(quick ? 1500 : 2500);
    for (const s of started) await attachForEcho(s);
    const results = await sampleEcho(started.map((s) => s.client), { warmup: P.echoWarmup, samples: P.echoSamples });
    return Object.fromEntries(pair.map((system, k) => [system, results[k]]));
  } finally {
    for (const s of started) await stop(s);
  }
}

async function runFirstFrame(system) {
  const rows = Array.from({ length: 8 }, (_, i) => ({ name: `f${i + 1}`, cmd: helloCommand(`f${i + 1}`) }));
  const markers = rows.map((r) => `HELLO-${r.name}`);
  // swb and the floor: where the time went, on the clock every process shares (issue #33; start-memory.mjs).
  const traceFile = system.startsWith('swb') || system === 'floor' ? join(ctx.dir, `start-trace-${++firstFrameRuns}`) : undefined;
  const t0 = performance.now();
  const t0Mono = monotonicMs();
  const profName = `first-frame-${profWindows.length}-${Date.now()}`;
  // swb (and the floor, which draws them as swb does): the row headers must be there too, not only the rows' screens.
  const drawsHeaders = system.startsWith('swb') || system === 'floor';
  const headers = drawsHeaders ? rows.map((r) => ` ${r.name} · `) : [];
  const { s, frame } = await startWatched(system, rows, profName, [...markers, ...headers], 30000, traceFile ? { SWB_START_TRACE: traceFile } : undefined);
  try {
    const { at } = await frame;
    const ms = at - t0;
    const trace = traceFile ? readStartTrace(traceFile, t0Mono) : [];
    if (system === 'swb') profWindows.push({ profName, label: 'start to first frame', toUs: monoUs() });
    // CPU the multiplexer spent getting there: the client, which starts the server, and the
    // server's share read from its pid (both for swb and tmux).
    let cpuS = cpuSeconds(s.client.pid);
    if (system === 'tmux') cpuS += s.serverCpu();
    else cpuS += cpuSeconds(s.serverPid);
    const lines = await s.client.screenLines();
    const problems = [];
    for (const m of markers) if (!lines.some((l) => l.includes(m))) problems.push(`${m} not on screen`);
    if (drawsHeaders) for (const r of rows) if (!lines.some((l) => l.includes(` ${r.name} · `))) problems.push(`header of ${r.name} not on screen`);
    return { ms, cpuS, problems, trace };
  } finally {
    await stop(s);
  }
}

/**
 * Starts `system` (swb, or tmux the one-shot way) watching the client's output for `markers` from
 * its first byte (swb's client starts before its server's pid is known). Resolves with the
 * session and the promise of the frame ({ at }).
 */
async function startWatched(system, rows, profName, markers, timeoutMs, extraEnv) {
  let frame;
  const watch = (client) => {
    frame = client.waitForMarkers(markers, timeoutMs);
    frame.catch(() => undefined); // awaited by the caller; not unhandled if the start fails
  };
  let s;
  if (system.startsWith('swb')) s = await start(system, rows, profName, { onClient: watch, extraEnv });
  else if (system === 'floor') s = await startFrameFloor(rows, { onClient: watch, extraEnv });
  else {
    s = startTmuxOneShot(rows);
    live.add(s);
    watch(s.client);
  }
  return { s, frame };
}

/** The first-frame floor (first and memory's floor system), started as swb's client is. */
async function startFrameFloor(rows, options) {
  if (!ctx.firstFrameFloor) throw new Error('the first-frame floor was not built (see its error above)');
  const s = await startFirstFrameFloor(ctx, ctx.firstFrameFloor, rows, options);
  live.add(s);
  return s;
}

/** tmux started the way a user would: one client command that creates the session, splits and attaches. */
function startTmuxOneShot(rows) {
  const sock = `swb-bench-ff-${process.pid}-${Date.now()}`;
  oneShotSockets.add(sock);
  const args = ['-L', sock, '-f', '/dev/null', ...TMUX_HISTORY_ARGS, 'new-session', '-s', 'bench', rows[0].cmd];
  for (const r of rows.slice(1)) args.push(';', 'split-window', '-t', 'bench', r.cmd, ';', 'select-layout', '-t', 'bench', 'tiled');
  const client = new PtyClient({ file: 'tmux', args, env: clientEnv(), cwd: ctx.dir, cols: COLS, rows: ROWS });
  const serverPid = () => {
    try {
      return Number(execFileSync('tmux', ['-L', sock, 'display-message', '-p', '#{pid}'], { encoding: 'utf8' }).trim());
    } catch {
      return Number.NaN;
    }
  };
  return {
    system: 'tmux',
    client,
    serverPid,
    serverCpu: () => cpuSeconds(serverPid()),
    async stop() {
      try {
        killTmuxServer(sock);
      } catch {
        // gone
      }
      oneShotSockets.delete(sock);
      await client.stop('SIGTERM', 2000);
      client.dispose();
    },
  };
}

// ---------------------------------------------------------------------------------------------

/** Median of the runs' figures, each run kept. */
function medianOf(runs, key) {
  return median(runs.map((r) => r[key]));
}

/**
 * memory: the server (swb: the workspace server; tmux: its server) with 1 and then with
 * P.idleRows idle rows, each of which printed the idle preamble; peak and current RSS once the
 * rows are drawn and the output parsed. start-memory.mjs's memoryModel makes a base and a per-row
 * cost of the two.
 */
async function runMemory(system, files) {
  const at = {};
  for (const n of [1, P.idleRows]) {
    const rows = Array.from({ length: n }, (_, i) => ({ name: `m${i + 1}`, cmd: idleCommand(files.preamble, `m${i + 1}`) }));
    const s = system === 'floor' ? await startFrameFloor(rows) : await start(system, rows, `memory-${n}`);
    try {
      await s.client.waitForMarkers(
        rows.map((r) => `READY-${r.name}`),
        90000,
      );
      // Parsing, painting and the resizes a layout makes over; then what a quiet second leaves.
      await s.client.settle(1000, 10000);
      await sleep(quick ? 1500 : 2500);
      at[n] = { ...memory(s.memPid), anon: privateRss(s.memPid) };
    } finally {
      await stop(s);
    }
  }
  return memoryModel(at[1], at[P.idleRows], P.idleRows);
}

/**
 * reattach: 8 rows that printed HELLO-<id>, one client attached; then, reattachReps times, a
 * second client from spawn to the first full frame in its own output (every HELLO line; swb also
 * the row headers), ended again before the next (swb: `d` detaches it; tmux: the client ends).
 */
async function runReattach(system) {
  const rows = Array.from({ length: P.reattachRows }, (_, i) => ({ name: `a${i + 1}`, cmd: helloCommand(`a${i + 1}`) }));
  const markers = rows.map((r) => `HELLO-${r.name}`);
  const headers = system.startsWith('swb') ? rows.map((r) => ` ${r.name} · `) : [];
  const s = await start(system, rows, 'reattach');
  try {
    await s.client.waitForMarkers([...markers, ...headers], 30000);
    await s.client.settle(500, 5000);
    const runs = [];
    for (let rep = 0; rep < P.reattachReps; rep++) {
      // The unit of issue #33's attach goal, taken right before it on the same machine.
      const nodeMs = nodeStartMs();
      const meter = cpuMeter(s.cpuPids);
      const fromUs = monoUs();
      const t0 = performance.now();
      const next = s.reattach();
      extraClients.add(next);
      try {
        const { at } = await next.waitForMarkers([...markers, ...headers], 15000);
        const ms = at - t0;
        if (system === 'swb' && rep === P.reattachReps - 1) profWindows.push({ profName: 'reattach', label: 'reattach (the last second client, spawn to first full frame)', fromUs, toUs: monoUs() });
        // The server (and the first client) since the spawn, plus all the new client spent.
        const cpuS = meter().cpuS + cpuSeconds(next.pid);
        const lines = await next.screenLines();
        const problems = [];
        for (const m of markers) if (!lines.some((l) => l.includes(m))) problems.push(`${m} not on the new client's screen`);
        for (const h of headers) if (!lines.some((l) => l.includes(h))) problems.push(`header${h}not on the new client's screen`);
        problems.push(...(await endExtraClient(s, next)));
        runs.push({ ms, cpuS, bytes: next.bytes, problems, nodeMs });
      } finally {
        extraClients.delete(next);
        await next.stop('SIGKILL', 1000);
        next.dispose();
      }
      await s.client.settle(200, 2000);
    }
    return { ms: medianOf(runs, 'ms'), cpuS: medianOf(runs, 'cpuS'), nodeMs: medianOf(runs, 'nodeMs'), all: runs.map((r) => r.ms), bytes: medianOf(runs, 'bytes'), problems: [...new Set(runs.flatMap((r) => r.problems))] };
  } finally {
    await stop(s);
  }
}

/** Ends a reattached client the way an operator would; returns what went wrong (if anything). */
async function endExtraClient(s, next) {
  if (!s.system.startsWith('swb')) {
    await next.stop('SIGTERM', 2000);
    return [];
  }
  next.write('d');
  const left = await Promise.race([next.exited, sleep(3000).then(() => null)]);
  const problems = left ? [] : ['d did not detach the second client within 3 s'];
  try {
    process.kill(s.serverPid, 0);
  } catch {
    problems.push('the server is gone after the second client detached');
  }
  return problems;
}

/**
 * echo-under-load: every system is up at once, each with row e1 waiting on input and l1..l8
 * streamers that start stopped; a system's streamers run only in its turn (SIGUSR2, SIGUSR1
 * after), so it is measured under exactly its own 8 x P.loadRate lines/s while the others idle.
 * Turns alternate between the systems throughout: P.loadReps CPU windows of P.loadSeconds each
 * with the dashboard showing every row (info), then, e1 attached (tmux: zoomed), as many with
 * e1 attached, then P.loadRounds rounds of echo in e1. Each system's echo figures are over all its
 * rounds' keystrokes together: a machine that drifts (these shared 2-core machines do, by 2x in
 * a minute) moves every system's figures alike instead of one system's run.
 */
async function runEchoUnderLoad(systems, files, log) {
  const started = [];
  const barriers = [];
  /** --sched: perf recording the echo rounds. */
  let sched = null;
  try {
    for (const system of systems) {
      const barrier = new Barrier(ctx.dir, P.loadRows, `${system}-load`);
      barriers.push(barrier);
      const statusFiles = barrier.paths.map((_, i) => join(ctx.dir, `stream-${system}-${i + 1}.status`));
      for (const f of statusFiles) rmSync(f, { force: true });
      const rows = [
        { name: 'e1', cmd: idleCommand(null, 'e1') },
        ...barrier.paths.map((p, i) => ({ name: `l${i + 1}`, cmd: streamCommand(p, files.stream, `l${i + 1}`, P.loadRate, statusFiles[i], { paused: true }) })),
      ];
      const s = await start(system, rows, 'echo-under-load', { keys: 'e1' });
      started.push({ system, s, statusFiles, visible: [], attached: [], echo: [] });
      await s.client.waitForMarkers(['READY-e1', ...rows.slice(1).map((r) => `WAIT-${r.name}`)], 60000);
      await barrier.ready(60000);
      barrier.release();
      const until = performance.now() + 15000;
      while (statusFiles.some((f) => readStreamStatus(f)?.pid === undefined)) {
        if (performance.now() > until) throw new Error(`${system}: the streaming rows did not start within 15 s`);
        await sleep(50);
      }
      await s.client.settle(300, 5000);
    }
    const signal = (t, sig) => {
      for (const f of t.statusFiles) process.kill(readStreamStatus(f).pid, sig);
    };
    /** `fn(t)` while t's streamers run (in `shape`), once they have run for `warmMs`; the others' are stopped. */
    const turn = async (t, warmMs, fn, shape = 'steady') => {
      setStreamShape(t.statusFiles, shape);
      signal(t, 'SIGUSR2');
      try {
        await sleep(warmMs);
        return await fn(t);
      } finally {
        signal(t, 'SIGUSR1');
      }
    };
    const w = (x) =>
      `${fmt(x.cpuS, 3)} s CPU in ${fmt(x.seconds, 1)} s (${fmt(x.pct, 2)} % of a core${x.per.length > 1 ? `; server ${fmt(x.per[0], 2)} + client ${fmt(x.per[1], 2)} s by ticks` : ''}), ${x.outBytes} bytes to the client, streamers at ${fmt(x.meanRate, 0)} lines/s (slowest ${fmt(x.minRate, 0)})`;
    const label = (t, what) => `  load   ${t.system.padEnd(5)} ${P.loadRows} rows x ${P.loadRate} lines/s, ${what}`;
    /** P.loadReps CPU windows of each system in `view` (the floor has no dashboard to show), interleaved; each shape in --load-shapes in turn. */
    const windows = async (view, what, systemsInView) => {
      for (const shape of loadShapes) {
        const key = shape === 'steady' ? view : `${view}Burst`;
        const shown = `${what}, ${STREAM_SHAPES[shape].label}`;
        for (let rep = 0; rep < P.loadReps; rep++) {
          for (const t of systemsInView) {
            const fromUs = monoUs();
            const r = await turn(t, 1000, () => streamWindow(t.s, t.statusFiles, P.loadSeconds), shape);
            if (t.system === 'swb' && rep === 0) profWindows.push({ profName: 'echo-under-load', label: `streaming ${P.loadRows}x${P.loadRate} lines/s, ${shown}`, fromUs, toUs: monoUs() });
            (t[key] ??= []).push(r);
            log(label(t, `${shown}: ${w(r)}`));
          }
        }
      }
    };
    await windows('visible', 'dashboard visible', started.filter((t) => t.system !== 'floor'));
    for (const t of started) t.attachMs = await attachForEcho(t.s);
    await windows('attached', 'first row attached', started);
    const echoFromUs = monoUs();
    sched = P.sched ? startSchedRecord(join(ctx.dir, 'echo-under-load.perf')) : null;
    if (sched?.problem) log(`  sched  not recorded: ${sched.problem}`);
    for (let round = 0; round < P.loadRounds; round++) {
      // Who goes first changes every round: none is always measured right after another's turn.
      for (let k = 0; k < started.length; k++) {
        const t = started[(round + k) % started.length];
        const [r] = await turn(t, 500, () => sampleEcho([t.s.client], { warmup: 2, samples: P.loadKeysPerRound }));
        t.echo.push(...r.all);
        t.timeouts = (t.timeouts ?? 0) + r.timeouts;
        t.s.client.write('\r\n');
        await t.s.client.settle(30, 500);
      }
    }
    if (sched && !sched.problem) {
      const problem = await sched.stop();
      if (problem) log(`  sched  not recorded: ${problem}`);
      else {
        // Every thread of each server: swb's keystrokes go to the pty from a thread of their own.
        const threads = new Map(started.map((t) => [t, threadsOf(t.s.cpuPids[0])]));
        const trace = readSchedTrace(join(ctx.dir, 'echo-under-load.perf'), new Set([...threads.values()].flatMap((s) => [...s])));
        for (const t of started) {
          const server = t.s.cpuPids[0];
          const program = childNamed(server, 'cat');
          log(program === null ? `  sched  ${t.system}: its row's program (cat) was not found` : formatChain(t.system, echoChain(trace, threads.get(t), program, process.pid)));
        }
      }
    }
    if (systems.includes('swb')) profWindows.push({ profName: 'echo-under-load', label: 'echo under load (the rounds, with the other systems\' turns between)', fromUs: echoFromUs, toUs: monoUs() });
    return Object.fromEntries(
      started.map((t) => {
        const echo = { ...latencyStats(t.echo), timeouts: t.timeouts ?? 0, attachMs: t.attachMs };
        return [t.system, { visible: t.visible, attached: t.attached, visibleBurst: t.visibleBurst ?? [], attachedBurst: t.attachedBurst ?? [], echo }];
      }),
    );
  } finally {
    if (sched && !sched.problem) await sched.stop();
    for (const b of barriers) b.close();
    for (const t of started) await stop(t.s);
  }
}

/** CPU of the multiplexer's processes and bytes to the client over `seconds`, and the rate the streamers reached meanwhile. */
async function streamWindow(s, statusFiles, seconds) {
  const st0 = statusFiles.map(readStreamStatus);
  const bytes0 = s.client.bytes;
  const meter = cpuMeter(s.cpuPids);
  await sleep(seconds * 1000);
  const m = meter();
  const st1 = statusFiles.map(readStreamStatus);
  const rates = st0.map((a, i) => {
    const b = st1[i];
    return a && b && b.atMs > a.atMs ? ((b.lines - a.lines) * 1000) / (b.atMs - a.atMs) : Number.NaN;
  });
  const cpu = bestCpuS(m);
  return { cpuS: cpu, tickCpuS: m.cpuS, per: m.per.map((p) => p.cpuS), pct: (100 * cpu) / m.wallS, seconds: m.wallS, outBytes: s.client.bytes - bytes0, minRate: Math.min(...rates), meanRate: rates.reduce((a, b) => a + b, 0) / rates.length };
}

/** The shape the streamers take when next started (they read STATUS.period on SIGUSR2). */
function setStreamShape(statusFiles, shape) {
  for (const f of statusFiles) writeFileSync(`${f}.period`, `${STREAM_SHAPES[shape].periodMs}\n`);
}

/** echo-under-load's CPU windows of swb and swb@B (--compare) beside tmux's, each shape and view. */
function logStreamingCompare(R, log) {
  const base = R.tmux?.load;
  if (!base) return;
  for (const [key, what] of [
    ['attached', `attached, ${STREAM_SHAPES.steady.label}`],
    ['attachedBurst', `attached, ${STREAM_SHAPES.burst.label}`],
    ['visible', `dashboard visible, ${STREAM_SHAPES.steady.label}`],
    ['visibleBurst', `dashboard visible, ${STREAM_SHAPES.burst.label}`],
  ]) {
    const t = base[key]?.cpuS;
    if (!Number.isFinite(t)) continue;
    const x = (system) => (Number.isFinite(R[system]?.load?.[key]?.cpuS) ? `${system} ${fmt(R[system].load[key].cpuS, 3)} s (${fmt(R[system].load[key].cpuS / t)}x)` : null);
    log(`  load   streaming CPU, ${what}, medians: tmux ${fmt(t, 3)} s; ${['swb', 'swb@B'].map(x).filter(Boolean).join('; ')}`);
  }
}

/**
 * idle-start: every dashboard system (and swb@B with --compare) up at once, each with P.idleRows
 * rows that print READY-<id> and wait (`cat`, pty raw); from each system's first full frame (every
 * READY line; swb also every header), P.idleStartMinutes minutes of CPU, wakeups and bytes to the
 * client, minute by minute: the settling after a start (V8's memory reducer, the header ages'
 * first turns) included, which `idle` waits out before it measures. The systems run side by side
 * (their windows start a few seconds apart, as each is started in turn); all are idle, so none
 * loads another beyond what it spends itself, which is what is counted.
 */
async function runIdleStart(idleSystems, log) {
  const started = [];
  try {
    for (const system of idleSystems) {
      const rows = Array.from({ length: P.idleRows }, (_, i) => ({ name: `i${i + 1}`, cmd: idleCommand(null, `i${i + 1}`) }));
      const markers = rows.map((r) => `READY-${r.name}`);
      const headers = system.startsWith('swb') ? rows.map((r) => ` ${r.name} · `) : [];
      const t0 = performance.now();
      const s = await start(system, rows, 'idle-start');
      await s.client.waitForMarkers([...markers, ...headers], 60000);
      const readyMs = performance.now() - t0;
      s.client.deferEmulation();
      // Which path the figures are of: an installed swb draws on the terminal itself, and its client sleeps.
      const relay = !system.startsWith('swb') ? null : s.env.SWB_DIRECT_TTY === '0' ? 'SWB_DIRECT_TTY=0 in its environment' : swbClientRelay(s.home);
      if (relay !== null) log(`  idle-start ${system.padEnd(5)} the client relays every frame (${relay}): not the path of an installed swb`);
      started.push({ system, s, readyMs, meter: idleWindowMeter(s.cpuPids, s.client), minutes: 0 });
    }
    // A minute closes for each system 60 s after its window opened, and so on.
    for (let minute = 1; minute <= P.idleStartMinutes; minute++) {
      for (const t of started) {
        const wait = t.meter.startedAt + minute * 60000 - performance.now();
        if (wait > 0) await sleep(wait);
        const m = t.meter.mark();
        log(`  idle-start ${t.system.padEnd(5)} minute ${minute}: ${fmt(m.cpuS * 1000, 1)} ms CPU (${m.perPidCpuS.map((c) => fmt(c * 1000, 1)).join(' + ')}), ${fmt(m.wakeups / m.seconds, 2)} wakeups/s, ${m.bytes} bytes to the client`);
      }
    }
    const out = {};
    for (const t of started) {
      out[t.system] = { ...t.meter.total(), readyMs: t.readyMs };
      const x = out[t.system];
      log(`  idle-start ${t.system.padEnd(5)} ${P.idleRows} rows, the first ${P.idleStartMinutes} min from the first full frame (${fmt(t.readyMs, 0)} ms after spawn): ${fmt(x.pct, 4)} % of a core (${fmt(x.cpuS * 1000, 1)} ms CPU), ${fmt(x.wakeupsPerS, 2)} wakeups/s, ${x.bytes} bytes to the client (${fmt(x.bytesPerMin, 0)} a minute)`);
    }
    return out;
  } finally {
    for (const t of started) {
      await t.s.client.resumeEmulation();
      await stop(t.s);
    }
  }
}

/**
 * scale: P.scaleRows idle rows (READY-<id>, then `cat`). Start (spawn) to the first frame with
 * every row's READY line (swb: and every header) in the client's output, checked on its
 * emulated screen; then idle CPU and bytes to the client over P.scaleIdleSeconds; the server's
 * peak RSS. tmux: the one-shot start (100 tiled panes in one window fit at 200x50: 10x10 panes
 * of 19x4).
 */
async function runScale(system) {
  const rows = Array.from({ length: P.scaleRows }, (_, i) => {
    // Three digits, so no marker is a prefix of another (READY-s1 / READY-s10).
    const id = `s${String(i + 1).padStart(3, '0')}`;
    return { name: id, cmd: idleCommand(null, id) };
  });
  const markers = rows.map((r) => `READY-${r.name}`);
  const headers = system === 'swb' ? rows.map((r) => ` ${r.name} · `) : [];
  const t0 = performance.now();
  const { s, frame } = await startWatched(system, rows, 'scale', [...markers, ...headers], 60000);
  try {
    const { at } = await frame;
    const ms = at - t0;
    if (system === 'swb') profWindows.push({ profName: 'scale', label: `start to first frame, ${P.scaleRows} rows`, toUs: monoUs() });
    const serverPid = system === 'swb' ? s.serverPid : s.serverPid();
    const firstCpuS = cpuSeconds(s.client.pid) + cpuSeconds(serverPid);
    const lines = await s.client.screenLines();
    const problems = [];
    const missing = markers.filter((m) => !lines.some((l) => l.includes(m)));
    if (missing.length) problems.push(`${missing.length} READY lines not on screen (${missing.slice(0, 3).join(', ')}...)`);
    const noHeader = headers.filter((h) => !lines.some((l) => l.includes(h)));
    if (noHeader.length) problems.push(`${noHeader.length} headers not on screen`);
    // Let start-up paints and layout-driven resizes finish: 5 s without output (tmux repaints
    // all 100 panes' borders about 1 s and again 4-5 s after its first frame), 15 s at most.
    await s.client.settle(5000, 15000);
    // 30 s more, not settleIdle's 45: with the 5-15 s above the window starts 35-45 s after the
    // rows printed, past the server's memory-reducer GCs and ending before the headers' "1m" turn.
    const settling = await settleIdle([serverPid, s.client.pid], s.client, { minSeconds: 30 });
    s.client.deferEmulation();
    const bytes0 = s.client.bytes;
    const meter = cpuMeter([serverPid, s.client.pid]);
    const fromUs = monoUs();
    await sleep(P.scaleIdleSeconds * 1000);
    const m = meter();
    if (system === 'swb') profWindows.push({ profName: 'scale', label: `idle ${P.scaleRows} rows`, fromUs, toUs: monoUs() });
    const written = Buffer.concat(s.client.deferred ?? []);
    await s.client.resumeEmulation();
    const cpu = bestCpuS(m);
    const text = printable(written.toString('utf8'));
    return {
      ms,
      firstCpuS,
      idle: { pct: (100 * cpu) / m.wallS, cpuS: cpu, tickCpuS: m.cpuS, seconds: m.wallS, outBytes: s.client.bytes - bytes0, text: text.slice(0, 100), settling },
      hwm: memory(serverPid).hwm,
      problems,
    };
  } finally {
    await stop(s);
  }
}

/** Terminal output as text for a log line: escape sequences dropped, runs of blanks made one. */
/** How the idle window was reached (settleIdle): after how long, and the CPU spent settling. */
function settled(x) {
  if (!x) return 'not settled';
  return `${x.settled ? 'at rest' : 'not at rest'} after ${x.seconds} s (${fmt(x.cpuS * 1000, 1)} ms CPU settling)`;
}

function printable(s) {
  return s
    .replace(/\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)/g, '')
    .replace(/\x1b\[[0-?]*[ -/]*[@-~]/g, '')
    .replace(/\x1b[ -/]*[0-~]/g, '')
    .replace(/[\x00-\x1f\x7f]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

// ---------------------------------------------------------------------------------------------

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? Number.NaN : s[Math.floor((s.length - 1) / 2)];
}

const MB = 1024 * 1024;
const fmt = (v, d = 2) => (v === undefined || v === null || Number.isNaN(v) ? 'n/a' : v.toFixed(d));

function machineInfo() {
  let tmuxVersion = '?';
  try {
    tmuxVersion = execFileSync('tmux', ['-V'], { encoding: 'utf8' }).trim();
  } catch {
    // reported below
  }
  let head = '?';
  try {
    head = execFileSync('git', ['-C', root, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    // not a checkout
  }
  const built = existsSync(ctx.swbBin) ? statSync(ctx.swbBin).mtime.toISOString() : 'missing';
  // Every swb process (server, clients) pays node's own start; it differs between machines and
  // environments (NODE_EXTRA_CA_CERTS alone adds ~130 ms here), so start-up figures need it beside them.
  const starts = Array.from({ length: 5 }, () => {
    const t = performance.now();
    execFileSync(process.execPath, ['-e', '0'], { stdio: 'ignore' });
    return performance.now() - t;
  }).sort((x, y) => x - y);
  const nodeStart = `node start (node -e 0, median of 5) ${starts[2].toFixed(0)} ms${process.env.NODE_EXTRA_CA_CERTS ? ', NODE_EXTRA_CA_CERTS set (node reads it at every start; bin/swb keeps it from the client, and the client from the server it launches: neither pays it, node -e 0 does)' : ''}`;
  const run = swbCommand(ctx, []);
  return `swb: ${ctx.swbBin} (built ${built}, HEAD ${head}), run as ${run.file === process.execPath ? 'node on it' : run.args[0]}\nmachine: ${cpus().length} CPUs (${cpus()[0]?.model ?? '?'}), load average ${loadAverage()}, node ${process.version}, ${tmuxVersion}\n${nodeStart}\nhistory: swb scrollback and floor ${HISTORY_LINES} lines per row, tmux history-limit ${TMUX_HISTORY_LINES}${TMUX_HISTORY_LINES === HISTORY_LINES ? ' (the same: floods fill history)' : ''}`;
}

function readUsage() {
  return [
    `usage: node bench/render.mjs [--quick] [--only=${WORKLOADS.join(',')}] [--systems=swb,tmux,floor] [--floods=colour,seq] [--flood-reps=N] [--load-reps=N] [--load-shapes=steady,burst] [--load-rounds=N] [--idle-minutes=N] [--history=N] [--tmux-history=N] [--sched] [--prof] [--idle-preamble=BYTES] [--first-reps=N] [--compare=DIR]`,
    '  --only=LIST  the workloads to run (default: all); idle and echo share one session',
    '  --floods=LIST  the floods to run (default: colour,seq)',
    '  --flood-reps=N  runs of each flood per system, interleaved; the table shows medians (default 3)',
    '  --load-reps=N  echo-under-load: CPU windows per system and view, interleaved; the table shows medians (default 3)',
    "  --history=N  lines of history every system keeps (default 5000, swb's scrollback; tmux's own default is 2000)",
    "  --tmux-history=N  tmux's history-limit alone (default: --history)",
    '  --compare=DIR  floods, idle, echo, idle-start, echo-under-load, first, reattach and memory: also run the swb built in checkout DIR (system swb@B), turn by turn with the others',
    '  --idle-minutes=N  idle-start: minutes measured from the first full frame (default 5; 1 with --quick)',
    '  --load-shapes=LIST  echo-under-load: the streaming shapes measured (default steady,burst: 4 lines every 10 ms, 40 every 100 ms)',
    '  --load-rounds=N  echo-under-load: rounds of echo after the CPU windows (default 30; 0: none)',
    '  --first-reps=N  first: cold starts per system, interleaved, each after a node -e 0; the table shows medians (default 5)',
    '  --quick   smaller flood (2 MB / seq 80000), 5 s idle, 100 echo samples, 1 first-frame run (unless --first-reps), 2 reattaches, 5 s streaming and scale windows',
    '  --sched   echo-under-load: record the echo rounds with perf sched and print each system\'s keystroke hop by hop (needs perf; see lib/render/sched-chain.mjs)',
    '  --prof    run swb under node --cpu-prof and print its hot spots (also SWB_BENCH_PROF=1)',
    '  floor     node-pty + @xterm/headless alone on the floods, parsing every byte (swb fast-forwards plain floods);',
    '            in first and memory, two node starts and a frame on the same stack (lib/render/first-frame-floor.mjs)',
    '  --idle-preamble=BYTES  coloured text each idle row prints before waiting (default 1 MiB; 0: none)',
    '',
  ].join('\n');
}

async function main() {
  if (!existsSync(ctx.swbBin)) throw new Error(`${ctx.swbBin} is missing: run npm run build first`);
  if (systems.includes('tmux')) execFileSync('tmux', ['-V'], { stdio: 'ignore' });
  const log = (s) => process.stdout.write(`${s}\n`);
  log(`swb render bench${quick ? ' (--quick: smaller workloads, not comparable with the issue figures)' : ''}: ${COLS}x${ROWS}, client attached through a pty`);
  log(machineInfo());
  const loadBefore = loadavg()[0];
  const t0 = performance.now();

  const files = { colour: join(ctx.dir, 'coloured.txt'), preamble: join(ctx.dir, 'preamble.txt'), stream: writeStreamScript(ctx.dir) };
  const colour = writeColouredText(files.colour, P.colourBytes);
  if (P.idlePreambleBytes > 0) writeColouredText(files.preamble, P.idlePreambleBytes);
  else files.preamble = null;

  const R = Object.fromEntries(systems.map((s) => [s, {}]));
  const errors = [];
  const attempt = async (label, fn) => {
    try {
      return await fn();
    } catch (err) {
      errors.push(`${label}: ${err instanceof Error ? err.message : String(err)}`);
      log(`  ${label}: FAILED: ${err instanceof Error ? err.message : String(err)}`);
      return undefined;
    }
  };

  if (only.has('flood')) {
    // Each system runs each flood P.floodReps times, interleaved (swb, tmux, floor, swb, ...), and
    // the table shows the medians: one run's figures swing by up to 2x on a shared machine.
    for (const kind of floods) {
      const what = kind === 'colour' ? `8 rows cat ${(colour.bytes / MB).toFixed(1)} MB coloured text` : `8 rows seq 1 ${P.seqN}`;
      const floodSystems = compareBin === undefined ? systems : [...systems, 'swb@B'];
      const runs = Object.fromEntries(floodSystems.map((system) => [system, []]));
      for (let rep = 0; rep < P.floodReps; rep++) {
        for (const system of floodSystems) {
          const r = await attempt(`flood ${kind} ${system}`, () => runFlood(system, kind, files));
          if (!r) continue;
          runs[system].push(r);
          log(
            `  flood ${kind.padEnd(6)} ${system.padEnd(5)} ${what}: ${fmt(r.wallS)} s wall (the last DONE ${fmt(r.endLagMs, 0)} ms after its program ended), ${fmt(r.cpuS)} s CPU` +
              (r.per.length > 1 ? ` (server ${fmt(r.per[0])} + client ${fmt(r.per[1])})` : '') +
              `, ${(r.outBytes / MB).toFixed(1)} MB to the client, peak RSS ${(r.hwm / MB).toFixed(0)} MB (${(r.hwm / MB / 8).toFixed(1)} MB per row)` +
              `, harness ${fmt(r.harnessCpuS)} s CPU${r.problems.length ? `; SCREEN CHECK: ${r.problems.join('; ')}` : ''}`,
          );
        }
      }
      for (const system of floodSystems) {
        const all = runs[system];
        if (all.length === 0) continue;
        (R[system] ??= {})[kind] = {
          ...all[all.length - 1],
          wallS: median(all.map((r) => r.wallS)),
          endLagMs: median(all.map((r) => r.endLagMs)),
          cpuS: median(all.map((r) => r.cpuS)),
          hwm: Math.max(...all.map((r) => r.hwm)),
          problems: [...new Set(all.flatMap((r) => r.problems))],
        };
      }
      const b = R['swb@B']?.[kind];
      const base = R.tmux?.[kind];
      if (b && base) {
        const x = (k) => (R.swb?.[kind] ? `swb ${fmt(R.swb[kind][k] / base[k])}x, ` : '');
        log(`  flood ${kind.padEnd(6)} swb@B (${option('compare')}) beside tmux, medians: CPU ${x('cpuS')}swb@B ${fmt(b.cpuS / base.cpuS)}x; wall ${x('wallS')}swb@B ${fmt(b.wallS / base.wallS)}x`);
      }
    }
  }

  if (only.has('idle') || only.has('echo')) {
    for (const system of compareBin === undefined ? dashboards : [...dashboards, 'swb@B']) {
      const r = await attempt(`idle/echo ${system}`, () => runIdleEcho(system, files));
      if (!r) continue;
      Object.assign((R[system] ??= {}), r);
      if (r.idle) log(`  idle   ${system.padEnd(4)} ${P.idleRows} rows waiting on input, ${settled(r.idle.settling)}, then ${fmt(r.idle.seconds, 1)} s: ${fmt(r.idle.pct, 3)} % of a core (${fmt(r.idle.cpuS * 1000, 1)} ms CPU; /proc ticks ${fmt(r.idle.tickCpuS * 1000, 0)} ms), ${r.idle.outBytes} bytes to the client${r.idle.outBytes > 0 ? ` (text in them: ${JSON.stringify(r.idle.text)})` : ''}`);
      log(`  rss    ${system.padEnd(4)} ${P.idleRows} rows: peak ${(r.rss.hwm / MB).toFixed(1)} MB (${(r.rss.hwm / MB / r.rss.rows).toFixed(1)} MB per row)`);
      if (r.echo) log(`  echo   ${system.padEnd(4)} ${r.echo.n} keystrokes: p50 ${fmt(r.echo.p50, 2)} ms, p99 ${fmt(r.echo.p99, 2)} ms, max ${fmt(r.echo.max, 2)} ms; attach to first paint ${fmt(r.echo.attachMs, 0)} ms${r.echo.timeouts ? `, ${r.echo.timeouts} timeouts` : ''}`);
    }
  }

  if (only.has('idle-start')) {
    const idleSystems = compareBin === undefined ? dashboards : [...dashboards, 'swb@B'];
    const r = await attempt('idle-start', () => runIdleStart(idleSystems, log));
    for (const [system, x] of Object.entries(r ?? {})) (R[system] ??= {}).idleStart = x;
    const base = R.tmux?.idleStart;
    if (r?.['swb@B']) {
      const x = (system) => `${system} ${fmt(r[system]?.pct, 4)} % (${fmt(r[system]?.wakeupsPerS, 2)} wakeups/s, ${fmt(r[system]?.bytesPerMin, 0)} B a minute)`;
      log(`  idle-start first ${P.idleStartMinutes} min: ${x('swb')}; ${x('swb@B')}${base ? `; ${x('tmux')}` : ''}`);
    }
  }

  if (only.has('echo-interleaved') && dashboards.length === 2) {
    const r = await attempt('echo-interleaved', () => runEchoInterleaved(dashboards, files));
    if (r) {
      for (const system of dashboards) {
        R[system].echoPair = r[system];
        log(`  echo   ${system.padEnd(4)} interleaved with ${dashboards.find((d) => d !== system)}, ${r[system].n} keystrokes: p50 ${fmt(r[system].p50, 2)} ms, p99 ${fmt(r[system].p99, 2)} ms, max ${fmt(r[system].max, 2)} ms${r[system].timeouts ? `, ${r[system].timeouts} timeouts` : ''}`);
      }
    }
  }

  if (frameFloor) {
    const t = performance.now();
    ctx.firstFrameFloor = await attempt('first-frame floor build', () => buildFirstFrameFloor(ctx.dir));
    if (ctx.firstFrameFloor) log(`  floor  first-frame floor built (${ctx.firstFrameFloor.bundle}, warm code cache ${(ctx.firstFrameFloor.cacheBytes / MB).toFixed(2)} MB) in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  }
  /** first and memory's systems: the floor last, so the others keep their order. */
  const withFrameFloor = (list) => (ctx.firstFrameFloor ? [...list, 'floor'] : list);

  if (only.has('first')) {
    // Each system's cold starts interleave (swb, tmux, swb@B, floor, swb, ...), each right after a
    // `node -e 0`: the goal's unit, from the same minute of the same machine.
    const firstSystems = withFrameFloor(compareBin === undefined ? dashboards : [...dashboards, 'swb@B']);
    const runs = Object.fromEntries(firstSystems.map((system) => [system, []]));
    const nodeRuns = [];
    for (let i = 0; i < P.firstReps; i++) {
      for (const system of firstSystems) {
        nodeRuns.push(nodeStartMs());
        const r = await attempt(`first frame ${system}`, () => runFirstFrame(system));
        if (r) runs[system].push(r);
      }
    }
    (R.node ??= {}).firstMs = median(nodeRuns);
    log(`  node   node -e 0 beside each start: ${nodeRuns.map((ms) => ms.toFixed(0)).join(', ')} ms (median ${fmt(R.node.firstMs, 0)} ms)`);
    for (const system of firstSystems) {
      const all = runs[system];
      if (all.length === 0) continue;
      (R[system] ??= {}).first = { ms: median(all.map((r) => r.ms)), all: all.map((r) => r.ms), problems: all.flatMap((r) => r.problems) };
      log(`  first  ${system.padEnd(5)} 8 rows, no server running: ${all.map((r) => `${r.ms.toFixed(0)} ms (${fmt(r.cpuS * 1000, 0)} ms CPU)`).join(', ')}; median ${fmt(R[system].first.ms, 0)} ms = ${fmt(R[system].first.ms / R.node.firstMs)}x node -e 0${R[system].first.problems.length ? `; SCREEN CHECK: ${[...new Set(R[system].first.problems)].join('; ')}` : ''}`);
      if (all.some((r) => r.trace.length > 0)) log(formatTrace(system, medianTrace(all.map((r) => r.trace)), R[system].first.ms));
    }
  }

  if (only.has('reattach')) {
    const reattachSystems = compareBin === undefined ? dashboards : [...dashboards, 'swb@B'];
    for (const system of reattachSystems) {
      const r = await attempt(`reattach ${system}`, () => runReattach(system));
      if (!r) continue;
      (R[system] ??= {}).reattach = r;
      log(
        `  reattach ${system.padEnd(5)} ${P.reattachRows} rows, second client to first full frame: ${r.all.map((ms) => `${ms.toFixed(0)} ms`).join(', ')} (median ${fmt(r.ms, 0)} ms = ${fmt(r.ms / r.nodeMs)}x node -e 0 (${fmt(r.nodeMs, 0)} ms beside it), ${fmt(r.cpuS * 1000, 0)} ms CPU, ${r.bytes} bytes)` +
          `${r.problems.length ? `; CHECK: ${r.problems.join('; ')}` : ''}`,
      );
    }
  }

  if (only.has('memory')) {
    R.node = { ...R.node, rss: nodeRss() };
    log(`  memory node -e 0: peak RSS ${(R.node.rss / MB).toFixed(1)} MB (the node binary's pages, shared by every node process, are most of it)`);
    const memorySystems = withFrameFloor(compareBin === undefined ? dashboards : [...dashboards, 'swb@B']);
    for (const system of memorySystems) {
      const r = await attempt(`memory ${system}`, () => runMemory(system, files));
      if (!r) continue;
      (R[system] ??= {}).memory = r;
      const mbs = (x) => `${(x / MB).toFixed(1)} MB`;
      log(
        `  memory ${system.padEnd(5)} server with 1 / ${P.idleRows} idle rows: peak ${mbs(r.hwm.one)} / ${mbs(r.hwm.many)} (now ${mbs(r.rss.one)} / ${mbs(r.rss.many)});` +
          ` base ${mbs(r.hwm.base)}, ${mbs(r.hwm.perRow)} per idle row (now: base ${mbs(r.rss.base)}, ${mbs(r.rss.perRow)} per row; private (RssAnon): base ${mbs(r.anon.base)}, ${mbs(r.anon.perRow)} per row)`,
      );
    }
  }

  if (only.has('echo-under-load')) {
    const loadSystems = compareBin === undefined ? systems : [...systems, 'swb@B'];
    const r = await attempt('echo-under-load', () => runEchoUnderLoad(loadSystems, files, log));
    for (const [system, x] of Object.entries(r ?? {})) {
      log(`  load   ${system.padEnd(5)} echo, ${x.echo.n} keystrokes in ${P.loadRounds} rounds: p50 ${fmt(x.echo.p50, 2)} ms, p99 ${fmt(x.echo.p99, 2)} ms, max ${fmt(x.echo.max, 2)} ms; attach to first paint ${fmt(x.echo.attachMs, 0)} ms${x.echo.timeouts ? `, ${x.echo.timeouts} timeouts` : ''}`);
      (R[system] ??= {}).load = {
        echo: { p50: x.echo.p50, p99: x.echo.p99 },
        attached: { cpuS: median(x.attached.map((w) => w.cpuS)) },
        visible: { cpuS: median(x.visible.map((w) => w.cpuS)) },
        attachedBurst: { cpuS: median(x.attachedBurst.map((w) => w.cpuS)) },
        visibleBurst: { cpuS: median(x.visibleBurst.map((w) => w.cpuS)) },
      };
    }
    logStreamingCompare(R, log);
    const b = R['swb@B']?.load;
    const base = R.tmux?.load;
    if (b && base) {
      const x = (k) => (R.swb?.load ? `swb ${fmt(R.swb.load.echo[k] / base.echo[k])}x, ` : '');
      log(`  load   swb@B (${option('compare')}) beside tmux: p50 ${x('p50')}swb@B ${fmt(b.echo.p50 / base.echo.p50)}x; p99 ${x('p99')}swb@B ${fmt(b.echo.p99 / base.echo.p99)}x`);
    }
  }

  if (only.has('scale')) {
    for (const system of dashboards) {
      const r = await attempt(`scale ${system}`, () => runScale(system));
      if (!r) continue;
      R[system].scale = r;
      log(
        `  scale  ${system.padEnd(4)} ${P.scaleRows} rows: start to first frame (all ${P.scaleRows} READY lines${system === 'swb' ? ' and headers' : ''}) ${fmt(r.ms, 0)} ms (${fmt(r.firstCpuS * 1000, 0)} ms CPU)` +
          `; ${settled(r.idle.settling)}, then idle ${fmt(r.idle.seconds, 1)} s: ${fmt(r.idle.pct, 3)} % of a core (${fmt(r.idle.cpuS * 1000, 1)} ms CPU; ticks ${fmt(r.idle.tickCpuS * 1000, 0)} ms), ${r.idle.outBytes} bytes to the client` +
          `${r.idle.outBytes > 0 ? ` (text in them: ${JSON.stringify(r.idle.text)})` : ''}; peak RSS ${(r.hwm / MB).toFixed(1)} MB (${(r.hwm / MB / P.scaleRows).toFixed(2)} MB per row)` +
          `${r.problems.length ? `; SCREEN CHECK: ${r.problems.join('; ')}` : ''}`,
      );
    }
  }

  log('');
  log(table(R));
  log('');
  log(`load average: ${loadBefore.toFixed(2)} at start, now ${loadAverage()}; took ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  log('CPU: swb = workspace server + attached thin client; tmux = server + attached client; programs in rows/panes are not counted. RSS: the server (VmHWM).');
  log(`tmux (issue) = the issues' figures for tmux 3.3a; they match this bench's tmux at tmux's default history (--tmux-history=2000). Streaming CPU: over a 10 s window; scale: 64 idle rows.`);
  if (systems.includes('floor') && (only.has('flood') || only.has('echo-under-load'))) log('floor (floods, echo under load) = node-pty + @xterm/headless alone (bench/lib/render/emulator-floor.mjs): each row at its swb size, every byte parsed, nothing drawn; what a dashboard on this stack pays without a fast-forward.');
  if (frameFloor) log("floor (first frame, memory) = two node starts and a frame on swb's stack (bench/lib/render/first-frame-floor.mjs): a thin client that starts a detached server, which loads one code-cached bundle of Ink + React + xterm + node-pty, starts the rows with swb's posix_spawn and renders them with Ink; no store, hub, config, scrollback or colour.");
  if (errors.length) log(`errors: ${errors.join(' | ')}`);

  if (prof) {
    log('');
    writeFileSync(join(profDir, 'windows.json'), JSON.stringify(profWindows, null, 1));
    const files = new Set(listProfiles(profDir));
    const shown = new Set();
    for (const w of profWindows) {
      const f = `${w.profName}.cpuprofile`;
      if (!files.has(f)) {
        log(`swb profile for ${w.label}: ${f} was not written (swb did not exit cleanly?)`);
        continue;
      }
      if (w.label === 'start to first frame' && shown.has(w.label)) continue;
      shown.add(w.label);
      try {
        log(formatProfile(`swb profile, ${w.label} [${f}]`, summariseProfile(join(profDir, f), root, 15, w)));
      } catch (err) {
        log(`${f}: ${err.message}`);
      }
      log('');
    }
    log(`profiles kept in ${profDir} (open them in Chrome DevTools > Performance)`);
  }
  return errors.length ? 1 : 0;
}

function table(R) {
  const swb = R.swb ?? {};
  const tmux = R.tmux ?? {};
  const floor = R.floor ?? {};
  const rows = [];
  const ratio = (a, b) => (Number.isFinite(a) && Number.isFinite(b) && b > 0 ? a / b : Number.NaN);
  const times = (r) => (Number.isFinite(r) ? `${r.toFixed(2)}x` : 'n/a');
  // The floor columns: node-pty + @xterm/headless alone on the same flood (floods only).
  // met: true / false, undefined (a figure is missing: n/a), null (no goal: the row is information).
  // A workload left out (--only, --systems) leaves no figure: its rows are left out too.
  const add = (metric, a, b, digits, goalText, met, ref, f) => {
    if (![a, b, f].some(Number.isFinite)) return;
    const r = ratio(a, b);
    rows.push([metric, fmt(a, digits), fmt(b, digits), times(r), goalText, met === null ? '' : met === undefined ? 'n/a' : met ? 'yes' : 'NO', ref, f === undefined ? '' : fmt(f, digits), f === undefined ? '' : times(ratio(f, b)), f === undefined ? '' : times(ratio(a, f))]);
  };
  // Issue #10's goals: ratios to tmux in this same run where it says so, absolute limits elsewhere.
  const within = (a, b, k) => (Number.isFinite(a) && Number.isFinite(b) ? a <= b * k : undefined);
  const below = (a, lim) => (Number.isFinite(a) ? a <= lim : undefined);
  const mb = (x) => (Number.isFinite(x) ? x / MB : Number.NaN);
  const flood = (kind, label, refWall, refCpu) => {
    const a = swb[kind];
    const b = tmux[kind];
    const f = floor[kind];
    add(`${label} CPU (s)`, a?.cpuS, b?.cpuS, 2, '<= 1.0x tmux', within(a?.cpuS, b?.cpuS, 1.0), fmt(refCpu), f?.cpuS ?? Number.NaN);
    add(`${label} wall (s)`, a?.wallS, b?.wallS, 2, '<= 1.0x tmux', within(a?.wallS, b?.wallS, 1.0), fmt(refWall), f?.wallS ?? Number.NaN);
    // Of the wall time, how long the end took to show: the last program's end to its DONE on screen.
    add(`  of it, end to screen (ms)`, a?.endLagMs, b?.endLagMs, 0, '', null, '', f?.endLagMs ?? Number.NaN);
    // The server's peak RSS (VmHWM, read once every row is done) over the 8 rows; the highest of the runs.
    const perRow = (x) => mb(x?.hwm) / 8;
    add(`  peak RSS per row (MB)`, perRow(a), perRow(b), 1, '<= 15', below(perRow(a), 15), '', perRow(f));
    if (R['swb@B']?.[kind]) add(`  swb@B (--compare) per row (MB)`, perRow(R['swb@B'][kind]), perRow(b), 1, '(before)', null, '', perRow(f));
  };
  flood('colour', 'flood coloured', ISSUE_TMUX.colourWall, ISSUE_TMUX.colourCpu);
  flood('seq', 'flood seq', ISSUE_TMUX.seqWall, ISSUE_TMUX.seqCpu);
  add(`idle ${P.idleRows} rows (% core)`, swb.idle?.pct, tmux.idle?.pct, 3, '<= 0.05 %', below(swb.idle?.pct, 0.05), fmt(ISSUE_TMUX.idlePct, 3));
  const is = swb.idleStart;
  const it = tmux.idleStart;
  add(`idle ${P.idleRows} rows, first ${P.idleStartMinutes} min (% core)`, is?.pct, it?.pct, 4, '<= 0.05 %', below(is?.pct, 0.05), '');
  add(`  wakeups/s`, is?.wakeupsPerS, it?.wakeupsPerS, 2, '(info)', null, '');
  add(`  bytes to client a minute`, is?.bytesPerMin, it?.bytesPerMin, 0, '<= 1024', below(is?.bytesPerMin, 1024), '');
  add('echo p50 (ms)', swb.echo?.p50, tmux.echo?.p50, 2, '<= 1.2x tmux', within(swb.echo?.p50, tmux.echo?.p50, 1.2), fmt(ISSUE_TMUX.echoP50));
  add('echo p99 (ms)', swb.echo?.p99, tmux.echo?.p99, 2, '<= 2x tmux', within(swb.echo?.p99, tmux.echo?.p99, 2), fmt(ISSUE_TMUX.echoP99, 1));
  add('echo interleaved p50 (ms)', swb.echoPair?.p50, tmux.echoPair?.p50, 2, '<= 1.2x tmux', within(swb.echoPair?.p50, tmux.echoPair?.p50, 1.2), '');
  add('echo interleaved p99 (ms)', swb.echoPair?.p99, tmux.echoPair?.p99, 2, '<= 2x tmux', within(swb.echoPair?.p99, tmux.echoPair?.p99, 2), '');
  const idleRss = (x) => mb(x?.rss?.hwmAfterEcho ?? x?.rss?.hwm);
  add(`peak RSS ${P.idleRows} idle rows (MB)`, idleRss(swb), idleRss(tmux), 1, `<= ${20 * P.idleRows} (20/row)`, below(idleRss(swb), 20 * P.idleRows), fmt(ISSUE_TMUX.rssMb, 0));
  add('  per row (MB)', idleRss(swb) / P.idleRows, idleRss(tmux) / P.idleRows, 1, '<= 20', below(idleRss(swb) / P.idleRows, 20), '');
  // Issue #33's start goals are in units of node's own start, measured beside each start.
  const node = R.node?.firstMs;
  const swbB = R['swb@B'] ?? {};
  add('first frame 8 rows (ms)', swb.first?.ms, tmux.first?.ms, 0, '<= 1000 ms', below(swb.first?.ms, 1000), '', floor.first ? floor.first.ms : undefined);
  add('  in node starts (x node -e 0)', swb.first?.ms / node, tmux.first?.ms / node, 2, '<= 3x', below(swb.first?.ms / node, 3), '', floor.first ? floor.first.ms / node : undefined);
  add('  swb@B (--compare), x node -e 0', swbB.first?.ms / node, tmux.first?.ms / node, 2, '(before)', null, '');
  add(`reattach ${P.reattachRows} rows, first frame (ms)`, swb.reattach?.ms, tmux.reattach?.ms, 0, '<= 150 ms', below(swb.reattach?.ms, 150), '');
  add('  in node starts (x node -e 0)', swb.reattach?.ms / swb.reattach?.nodeMs, tmux.reattach?.ms / tmux.reattach?.nodeMs, 2, '<= 1.5x', below(swb.reattach?.ms / swb.reattach?.nodeMs, 1.5), '');
  add('  swb@B (--compare), x node -e 0', swbB.reattach?.ms / swbB.reattach?.nodeMs, tmux.reattach?.ms / tmux.reattach?.nodeMs, 2, '(before)', null, '');
  const sm = swb.memory;
  const tm = tmux.memory;
  const fm = floor.memory;
  add('server base, peak RSS (MB)', mb(sm?.hwm.base), mb(tm?.hwm.base), 1, '<= 60', below(mb(sm?.hwm.base), 60), '', fm ? mb(fm.hwm.base) : undefined);
  add('  swb@B (--compare)', mb(swbB.memory?.hwm.base), mb(tm?.hwm.base), 1, '(before)', null, '');
  add('  above node -e 0 (MB)', mb(sm?.hwm.base - R.node?.rss), mb(tm?.hwm.base), 1, '(info)', null, '', fm ? mb(fm.hwm.base - R.node?.rss) : undefined);
  add('  private, RssAnon (MB)', mb(sm?.anon.base), mb(tm?.anon.base), 1, '(info)', null, '', fm ? mb(fm.anon.base) : undefined);
  add('    swb@B (--compare)', mb(swbB.memory?.anon.base), mb(tm?.anon.base), 1, '(before)', null, '');
  add('per idle row, peak RSS (MB)', mb(sm?.hwm.perRow), mb(tm?.hwm.perRow), 2, '<= 2', below(mb(sm?.hwm.perRow), 2), '', fm ? mb(fm.hwm.perRow) : undefined);
  add('  swb@B (--compare)', mb(swbB.memory?.hwm.perRow), mb(tm?.hwm.perRow), 2, '(before)', null, '');
  const sl = swb.load;
  const tl = tmux.load;
  const fl = floor.load;
  add(`echo under load p50 (ms)`, sl?.echo.p50, tl?.echo.p50, 2, '<= 1.2x tmux', within(sl?.echo.p50, tl?.echo.p50, 1.2), fmt(ISSUE_TMUX.loadP50), fl?.echo.p50);
  add(`echo under load p99 (ms)`, sl?.echo.p99, tl?.echo.p99, 2, '<= 2x tmux', within(sl?.echo.p99, tl?.echo.p99, 2), fmt(ISSUE_TMUX.loadP99, 1), fl?.echo.p99);
  add(`streaming CPU, attached (s/${P.loadSeconds} s)`, sl?.attached.cpuS, tl?.attached.cpuS, 3, '<= 1.5x tmux', within(sl?.attached.cpuS, tl?.attached.cpuS, 1.5), fmt(ISSUE_TMUX.loadCpuS10), fl?.attached.cpuS);
  add(`  dashboard visible (s/${P.loadSeconds} s)`, sl?.visible.cpuS, tl?.visible.cpuS, 3, '(info)', null, '');
  add(`streaming CPU, bursts, attached (s/${P.loadSeconds} s)`, sl?.attachedBurst.cpuS, tl?.attachedBurst.cpuS, 3, '<= 1.5x tmux', within(sl?.attachedBurst.cpuS, tl?.attachedBurst.cpuS, 1.5), '', fl?.attachedBurst.cpuS);
  add(`  dashboard visible, bursts (s/${P.loadSeconds} s)`, sl?.visibleBurst.cpuS, tl?.visibleBurst.cpuS, 3, '(info)', null, '');
  const sc = swb.scale;
  const tc = tmux.scale;
  add(`scale ${P.scaleRows} rows first frame (ms)`, sc?.ms, tc?.ms, 0, '<= 2000 ms', below(sc?.ms, 2000), '');
  add(`  idle (% core)`, sc?.idle.pct, tc?.idle.pct, 3, '<= 0.1 %', below(sc?.idle.pct, 0.1), fmt(ISSUE_TMUX.idle64Pct, 3));
  add(`  bytes to client in ${P.scaleIdleSeconds} s idle`, sc?.idle.outBytes, tc?.idle.outBytes, 0, '0', below(sc?.idle.outBytes, 0), '0');
  add(`  peak RSS per row (MB)`, mb(sc?.hwm) / P.scaleRows, mb(tc?.hwm) / P.scaleRows, 2, '<= 3', below(mb(sc?.hwm) / P.scaleRows, 3), '');
  const head = ['metric', 'swb', 'tmux', 'swb/tmux', 'goal (swb)', 'met?', 'tmux (issue)', 'floor', 'floor/tmux', 'swb/floor'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  return [line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

main().then(
  (code) => {
    cleanup();
    process.exit(code);
  },
  (err) => {
    process.stderr.write(`bench:render: ${err instanceof Error ? err.stack : String(err)}\n`);
    cleanup();
    process.exit(1);
  },
);
