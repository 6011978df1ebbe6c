#!/usr/bin/env node
// npm run bench:render [-- --quick] [--only=flood,idle,echo,first] [--systems=swb,tmux,floor] [--flood-reps=N] [--history=N] [--tmux-history=N] [--prof] [--idle-preamble=BYTES]
//
// Rendering cost of the dashboard beside tmux, measured the same way in the same run: both at
// 200x50 with a client attached through a pty (this process is the terminal; it reads all
// output), NODE_ENV=production for swb. Needs `npm run build` first (runs dist/bin/swb.js) and
// tmux on PATH.
//   flood  8 rows `cat` ~5 MB of SGR-coloured text each; then 8 rows `seq 1 200000` each. All
//          rows start together at a FIFO barrier. CPU of the multiplexer's own processes (swb: the
//          node process; tmux: server + client; never the programs in the rows), and wall time
//          until every row shows its last line (a DONE marker printed after the work, seen in the
//          client's output; afterwards checked on an emulated screen of the client). Each flood
//          runs --flood-reps times per system (default 3, interleaved); the table shows medians.
//   idle   16 rows that printed ~1 MB each (full scrollback) and wait on input (`cat`, pty raw):
//          CPU over 10 s once settled, as % of one core (schedstat, ns resolution); then the
//          peak RSS (VmHWM) of swb / of the tmux server.
//   echo   in that session, attach the first row (swb: Enter; tmux: zoom the pane) and time a
//          keystroke written to the client pty until it comes back out of it; p50/p99.
//   first  start (spawn) to the first frame showing all 8 rows' output (swb also: headers).
// --prof (or SWB_BENCH_PROF=1) runs swb under `node --cpu-prof` and prints the hot spots of each
// measured span (the profiler's own sampling thread inflates swb's idle CPU in that mode).
// Figures from a loaded machine are noisy: the machine line shows the load average.
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execFileSync } from 'node:child_process';
import { cpuMeter, cpuSeconds, loadAverage, memory } from './lib/render/proc.mjs';
import { PtyClient, sleep } from './lib/render/pty-client.mjs';
import { COLS, HISTORY_LINES, ROWS, TMUX_HISTORY_ARGS, TMUX_HISTORY_LINES, clientEnv, killAllTmux, killTmuxServer, listProfiles, startFloor, startSwb, startTmux } from './lib/render/systems.mjs';
import { Barrier, floodCommand, helloCommand, idleCommand, shq, writeColouredText } from './lib/render/workloads.mjs';
import { formatProfile, summariseProfile } from './lib/render/cpuprofile.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const argv = process.argv.slice(2);
const flag = (name) => argv.includes(`--${name}`);
const option = (name) => argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
if (flag('help')) {
  process.stdout.write(readUsage());
  process.exit(0);
}
const quick = flag('quick');
const prof = flag('prof') || process.env.SWB_BENCH_PROF === '1';
const only = new Set((option('only') ?? 'flood,idle,echo,first').split(','));
const systems = (option('systems') ?? 'swb,tmux,floor').split(',');
/** The floor (node-pty + @xterm/headless alone) only runs the floods: it has no dashboard to idle, attach or draw. */
const dashboards = systems.filter((s) => s !== 'floor');

/** --flood-reps=N: a whole number from 1 (default 3; 1 with --quick or --prof). */
function floodRepsOption() {
  const text = option('flood-reps');
  if (text === undefined) return quick || prof ? 1 : 3;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) {
    process.stderr.write(`--flood-reps wants a whole number from 1, not ${JSON.stringify(text)}\n`);
    process.exit(2);
  }
  return n;
}

const P = {
  colourBytes: quick ? 2 * 1024 * 1024 : 5 * 1024 * 1024,
  seqN: quick ? 80000 : 200000,
  floodTimeoutMs: quick ? 60000 : 120000,
  floodReps: floodRepsOption(),
  idlePreambleBytes: option('idle-preamble') !== undefined ? Number(option('idle-preamble')) : quick ? 512 * 1024 : 1024 * 1024,
  idleSeconds: quick ? 5 : 10,
  idleRows: 16,
  echoSamples: quick ? 100 : 200,
  echoWarmup: 10,
  firstReps: quick ? 1 : 3,
};

const ISSUE_TMUX = { colourWall: 2.26, colourCpu: 2.11, seqWall: 0.98, seqCpu: 0.47, idlePct: 0.003, echoP50: 0.74, echoP99: 3.1, rssMb: 15 };

const ctx = { dir: mkdtempSync(join(tmpdir(), 'swb-render-bench-')), swbBin: join(root, 'dist', 'bin', 'swb.js') };
const profDir = prof ? join(ctx.dir, 'profiles') : undefined;
const live = new Set();
const oneShotSockets = new Set();
/** --prof: spans of the swb profiles worth summarising ({ profName, label, fromUs, toUs }). */
const profWindows = [];
const monoUs = () => Number(process.hrtime.bigint() / 1000n);

function cleanup() {
  for (const s of live) {
    try {
      process.kill(s.client.pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
  killAllTmux();
  for (const sock of oneShotSockets) {
    try {
      killTmuxServer(sock);
    } catch {
      // gone
    }
  }
  oneShotSockets.clear();
  if (!prof) rmSync(ctx.dir, { recursive: true, force: true });
  else for (const f of ['coloured.txt', 'preamble.txt']) rmSync(join(ctx.dir, f), { force: true });
}
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(sig, () => {
    cleanup();
    process.exit(130);
  });
}

async function start(system, rows, profName) {
  const s =
    system === 'swb' ? startSwb(ctx, rows, prof ? { profDir, profName } : {}) : system === 'floor' ? await startFloor(ctx, rows) : await startTmux(ctx, rows);
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
  const rows = barrier.paths.map((p, i) => ({ name: `${tag}${i + 1}`, cmd: floodCommand(p, work, `${tag}${i + 1}`) }));
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
    const m = meter();
    if (system === 'swb') profWindows.push({ profName: `flood-${kind}`, label: `flood ${kind} (barrier release to last DONE)`, fromUs, toUs: monoUs() });
    const harness = process.cpuUsage(harness0);
    const result = {
      wallS: (at - t0) / 1000,
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
      const bytes0 = s.client.bytes;
      const meter = cpuMeter(s.cpuPids);
      const fromUs = monoUs();
      await sleep(P.idleSeconds * 1000);
      const m = meter();
      if (system === 'swb') profWindows.push({ profName: 'idle-echo', label: `idle ${P.idleRows} rows`, fromUs, toUs: monoUs() });
      const cpu = Number.isFinite(m.preciseS) && m.preciseS >= 0 ? m.preciseS : m.cpuS;
      result.idle = { pct: (100 * cpu) / m.wallS, cpuS: cpu, tickCpuS: m.cpuS, outBytes: s.client.bytes - bytes0, seconds: m.wallS };
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
  // Attaching repaints the whole screen (swb also reflows the row to full size): wait for that
  // paint to start and finish, so the first keystroke is not read together with the Enter.
  const bytes0 = s.client.bytes;
  const a0 = performance.now();
  await s.attachFirst();
  while (s.client.bytes === bytes0 && performance.now() - a0 < 10000) await sleep(2);
  const attachMs = performance.now() - a0;
  await s.client.settle(300, 5000);
  // The first keystroke also proves the attach worked.
  const probeOk = await echoOnce(s.client, 'x', 3000).catch(() => null);
  if (probeOk === null) {
    const screen = (await s.client.screenLines()).filter((l) => l.trim() !== '');
    throw new Error(`no echo from the attached row (attach failed?); the screen's last lines:\n    ${screen.slice(-4).join('\n    ')}`);
  }
  await s.client.settle(50, 1000);
  const letters = 'abcdefghijklmnopqrstuvwxyz';
  const keysFromUs = monoUs();
  const lat = [];
  let timeouts = 0;
  for (let i = 0; i < P.echoWarmup + P.echoSamples; i++) {
    let ms;
    try {
      ms = await echoOnce(s.client, letters[i % letters.length], 1000);
    } catch {
      timeouts++;
      if (timeouts > 5) throw new Error('echo timed out repeatedly');
      continue;
    }
    if (i >= P.echoWarmup) lat.push(ms);
    if (i % 40 === 39) {
      s.client.write('\r\n');
      await s.client.settle(30, 500);
    }
    // Keystrokes a human-ish distance apart, never coalesced with the previous echo's paint.
    await sleep(4 + Math.random() * 6);
  }
  lat.sort((a, b) => a - b);
  return { p50: percentile(lat, 0.5), p99: percentile(lat, 0.99), max: lat[lat.length - 1], n: lat.length, timeouts, attachMs, keysFromUs };
}

async function echoOnce(client, ch, timeoutMs) {
  const seen = client.waitForText(ch, timeoutMs);
  const t = performance.now();
  client.write(ch);
  const at = await seen;
  return at - t;
}

function percentile(sorted, q) {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

async function runFirstFrame(system) {
  const rows = Array.from({ length: 8 }, (_, i) => ({ name: `f${i + 1}`, cmd: helloCommand(`f${i + 1}`) }));
  const markers = rows.map((r) => `HELLO-${r.name}`);
  const t0 = performance.now();
  const profName = `first-frame-${profWindows.length}-${Date.now()}`;
  let s;
  if (system === 'swb') s = await start('swb', rows, profName);
  else s = startTmuxOneShot(rows);
  live.add(s);
  try {
    // swb: the row headers (Ink's chrome) must be there too, not only the rows' screens.
    const headers = system === 'swb' ? rows.map((r) => ` ${r.name} · `) : [];
    const { at } = await s.client.waitForMarkers([...markers, ...headers], 30000);
    const ms = at - t0;
    if (system === 'swb') profWindows.push({ profName, label: 'start to first frame', toUs: monoUs() });
    // CPU the multiplexer spent getting there (swb: its node process; tmux: the client, which
    // forks the server; the server's share is read from its pid below).
    let cpuS = cpuSeconds(s.client.pid);
    if (system === 'tmux') cpuS += s.serverCpu();
    const lines = await s.client.screenLines();
    const problems = [];
    for (const m of markers) if (!lines.some((l) => l.includes(m))) problems.push(`${m} not on screen`);
    if (system === 'swb') for (const r of rows) if (!lines.some((l) => l.includes(` ${r.name} · `))) problems.push(`header of ${r.name} not on screen`);
    return { ms, cpuS, problems };
  } finally {
    await stop(s);
  }
}

/** tmux started the way a user would: one client command that creates the session, splits and attaches. */
function startTmuxOneShot(rows) {
  const sock = `swb-bench-ff-${process.pid}-${Date.now()}`;
  oneShotSockets.add(sock);
  const args = ['-L', sock, '-f', '/dev/null', ...TMUX_HISTORY_ARGS, 'new-session', '-s', 'bench', rows[0].cmd];
  for (const r of rows.slice(1)) args.push(';', 'split-window', '-t', 'bench', r.cmd, ';', 'select-layout', '-t', 'bench', 'tiled');
  const client = new PtyClient({ file: 'tmux', args, env: clientEnv(), cwd: ctx.dir, cols: COLS, rows: ROWS });
  return {
    system: 'tmux',
    client,
    serverCpu() {
      try {
        return cpuSeconds(Number(execFileSync('tmux', ['-L', sock, 'display-message', '-p', '#{pid}'], { encoding: 'utf8' }).trim()));
      } catch {
        return Number.NaN;
      }
    },
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
  return `swb: ${ctx.swbBin} (built ${built}, HEAD ${head})\nmachine: ${cpus().length} CPUs (${cpus()[0]?.model ?? '?'}), load average ${loadAverage()}, node ${process.version}, ${tmuxVersion}\nhistory: swb scrollback and floor ${HISTORY_LINES} lines per row, tmux history-limit ${TMUX_HISTORY_LINES}${TMUX_HISTORY_LINES === HISTORY_LINES ? ' (the same: floods fill history)' : ''}`;
}

function readUsage() {
  return [
    'usage: node bench/render.mjs [--quick] [--only=flood,idle,echo,first] [--systems=swb,tmux,floor] [--flood-reps=N] [--history=N] [--tmux-history=N] [--prof] [--idle-preamble=BYTES]',
    '  --flood-reps=N  runs of each flood per system, interleaved; the table shows medians (default 3)',
    "  --history=N  lines of history every system keeps (default 5000, swb's scrollback; tmux's own default is 2000)",
    "  --tmux-history=N  tmux's history-limit alone (default: --history)",
    '  --quick   smaller flood (2 MB / seq 80000), 5 s idle, 100 echo samples, 1 first-frame run',
    '  --prof    run swb under node --cpu-prof and print its hot spots (also SWB_BENCH_PROF=1)',
    '  floor     node-pty + @xterm/headless alone on the floods, parsing every byte (swb fast-forwards plain floods)',
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

  const files = { colour: join(ctx.dir, 'coloured.txt'), preamble: join(ctx.dir, 'preamble.txt') };
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
    for (const kind of ['colour', 'seq']) {
      const what = kind === 'colour' ? `8 rows cat ${(colour.bytes / MB).toFixed(1)} MB coloured text` : `8 rows seq 1 ${P.seqN}`;
      const runs = Object.fromEntries(systems.map((system) => [system, []]));
      for (let rep = 0; rep < P.floodReps; rep++) {
        for (const system of systems) {
          const r = await attempt(`flood ${kind} ${system}`, () => runFlood(system, kind, files));
          if (!r) continue;
          runs[system].push(r);
          log(
            `  flood ${kind.padEnd(6)} ${system.padEnd(5)} ${what}: ${fmt(r.wallS)} s wall, ${fmt(r.cpuS)} s CPU` +
              (r.per.length > 1 ? ` (server ${fmt(r.per[0])} + client ${fmt(r.per[1])})` : '') +
              `, ${(r.outBytes / MB).toFixed(1)} MB to the client, peak RSS ${(r.hwm / MB).toFixed(0)} MB` +
              `, harness ${fmt(r.harnessCpuS)} s CPU${r.problems.length ? `; SCREEN CHECK: ${r.problems.join('; ')}` : ''}`,
          );
        }
      }
      for (const system of systems) {
        const all = runs[system];
        if (all.length === 0) continue;
        R[system][kind] = {
          ...all[all.length - 1],
          wallS: median(all.map((r) => r.wallS)),
          cpuS: median(all.map((r) => r.cpuS)),
          problems: [...new Set(all.flatMap((r) => r.problems))],
        };
      }
    }
  }

  if (only.has('idle') || only.has('echo')) {
    for (const system of dashboards) {
      const r = await attempt(`idle/echo ${system}`, () => runIdleEcho(system, files));
      if (!r) continue;
      Object.assign(R[system], r);
      if (r.idle) log(`  idle   ${system.padEnd(4)} ${P.idleRows} rows waiting on input, ${fmt(r.idle.seconds, 1)} s: ${fmt(r.idle.pct, 3)} % of a core (${fmt(r.idle.cpuS * 1000, 1)} ms CPU; /proc ticks ${fmt(r.idle.tickCpuS * 1000, 0)} ms), ${r.idle.outBytes} bytes to the client`);
      log(`  rss    ${system.padEnd(4)} ${P.idleRows} rows: peak ${(r.rss.hwm / MB).toFixed(1)} MB (${(r.rss.hwm / MB / r.rss.rows).toFixed(1)} MB per row)`);
      if (r.echo) log(`  echo   ${system.padEnd(4)} ${r.echo.n} keystrokes: p50 ${fmt(r.echo.p50, 2)} ms, p99 ${fmt(r.echo.p99, 2)} ms, max ${fmt(r.echo.max, 2)} ms; attach to first paint ${fmt(r.echo.attachMs, 0)} ms${r.echo.timeouts ? `, ${r.echo.timeouts} timeouts` : ''}`);
    }
  }

  if (only.has('first')) {
    for (const system of dashboards) {
      const runs = [];
      for (let i = 0; i < P.firstReps; i++) {
        const r = await attempt(`first frame ${system}`, () => runFirstFrame(system));
        if (r) runs.push(r);
      }
      if (runs.length === 0) continue;
      R[system].first = { ms: median(runs.map((r) => r.ms)), all: runs.map((r) => r.ms), problems: runs.flatMap((r) => r.problems) };
      log(`  first  ${system.padEnd(4)} 8 rows: ${runs.map((r) => `${r.ms.toFixed(0)} ms (${fmt(r.cpuS * 1000, 0)} ms CPU)`).join(', ')}${R[system].first.problems.length ? `; SCREEN CHECK: ${[...new Set(R[system].first.problems)].join('; ')}` : ''}`);
    }
  }

  log('');
  log(table(R));
  log('');
  log(`load average: ${loadBefore.toFixed(2)} at start, now ${loadAverage()}; took ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  log('CPU: swb = the swb node process; tmux = server + attached client; programs in rows/panes are not counted.');
  log(`tmux (issue) = the issue's figures for tmux 3.3a; they match this bench's tmux at tmux's default history (--tmux-history=2000).`);
  if (systems.includes('floor')) log('floor = node-pty + @xterm/headless alone (bench/lib/render/emulator-floor.mjs): each row at its swb size, every byte parsed, nothing drawn; what a dashboard on this stack pays without a fast-forward.');
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
  const add = (metric, a, b, digits, goalText, met, ref, f) => {
    const r = ratio(a, b);
    rows.push([metric, fmt(a, digits), fmt(b, digits), times(r), goalText, met === undefined ? 'n/a' : met ? 'yes' : 'NO', ref, f === undefined ? '' : fmt(f, digits), f === undefined ? '' : times(ratio(f, b)), f === undefined ? '' : times(ratio(a, f))]);
  };
  const within = (a, b, k) => (Number.isFinite(a) && Number.isFinite(b) ? a <= b * k : undefined);
  const below = (a, lim) => (Number.isFinite(a) ? a <= lim : undefined);
  const flood = (kind, label, refWall, refCpu) => {
    const a = swb[kind];
    const b = tmux[kind];
    const f = floor[kind];
    add(`${label} CPU (s)`, a?.cpuS, b?.cpuS, 2, '<= 1.5x tmux', within(a?.cpuS, b?.cpuS, 1.5), fmt(refCpu), f?.cpuS ?? Number.NaN);
    add(`${label} wall (s)`, a?.wallS, b?.wallS, 2, '<= 1.2x tmux', within(a?.wallS, b?.wallS, 1.2), fmt(refWall), f?.wallS ?? Number.NaN);
  };
  flood('colour', 'flood coloured', ISSUE_TMUX.colourWall, ISSUE_TMUX.colourCpu);
  flood('seq', 'flood seq', ISSUE_TMUX.seqWall, ISSUE_TMUX.seqCpu);
  add(`idle ${P.idleRows} rows (% core)`, swb.idle?.pct, tmux.idle?.pct, 3, '<= 0.5 %', below(swb.idle?.pct, 0.5), fmt(ISSUE_TMUX.idlePct, 3));
  add('echo p50 (ms)', swb.echo?.p50, tmux.echo?.p50, 2, '<= 1 ms', below(swb.echo?.p50, 1), fmt(ISSUE_TMUX.echoP50));
  add('echo p99 (ms)', swb.echo?.p99, tmux.echo?.p99, 2, '<= 5 ms', below(swb.echo?.p99, 5), fmt(ISSUE_TMUX.echoP99, 1));
  const mb = (x) => (Number.isFinite(x) ? x / MB : Number.NaN);
  add(`peak RSS ${P.idleRows} rows (MB)`, mb(swb.rss?.hwmAfterEcho ?? swb.rss?.hwm), mb(tmux.rss?.hwmAfterEcho ?? tmux.rss?.hwm), 1, `<= ${20 * P.idleRows} (20/row)`, below(mb(swb.rss?.hwmAfterEcho ?? swb.rss?.hwm), 20 * P.idleRows), fmt(ISSUE_TMUX.rssMb, 0));
  add('  per row (MB)', mb(swb.rss?.hwmAfterEcho ?? swb.rss?.hwm) / P.idleRows, mb(tmux.rss?.hwmAfterEcho ?? tmux.rss?.hwm) / P.idleRows, 1, '<= 20', below(mb(swb.rss?.hwmAfterEcho ?? swb.rss?.hwm) / P.idleRows, 20), '');
  add('first frame 8 rows (ms)', swb.first?.ms, tmux.first?.ms, 0, '<= 1000 ms', below(swb.first?.ms, 1000), '');
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
