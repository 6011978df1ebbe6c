#!/usr/bin/env node
// npm run bench:usage — usage tracking (issue #38) beside a floor measured in the same run (needs a
// build: it runs dist/src/usage/ and dist/src/store/):
//  1. 8 rows' transcripts, each appended 1 MB a minute (Claude Code lines from the real fixture, a
//     write every 250 ms) by a writer process. Two follower processes watch the same 8 files: the
//     tracker (RowUsageTracker: fs.watch, parse, commit to a real mail.db) and the floor (fs.watch and
//     a read of the new bytes, nothing else). CPU of each as a share of one core, and the ratio.
//     The goal: tracking <= 0.5 % of a core.
//  2. A 200 MB transcript already there: summed once by the tracker (MB/s; the goal >= 100), beside the
//     floor of reading the same bytes; then 1 MB appended and followed: the time it takes and the bytes
//     read show the cost is that of the new bytes, not of the file.
//   node bench/usage.mjs [SECONDS] [MB]   (default 30 s of appending, a 200 MB file)
//   SWB_BENCH_PROFILE=DIR writes a CPU profile of the tracker process (part 1) into DIR.
import { spawn } from 'node:child_process';
import { appendFileSync, closeSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, readSync, rmSync, statSync, watch, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = (p) => join(root, 'dist', 'src', p);
const role = process.argv[2];
const WARMUP_MS = 4000;

/** Claude Code transcript lines from the real fixture; assistant lines get a fresh message id each time. */
function templateLines() {
  const dir = join(root, 'test', 'fixtures', 'usage', 'claude', 'project');
  const main = readdirSync(dir).find((f) => f.endsWith('.jsonl'));
  return readFileSync(join(dir, main), 'utf8').split('\n').filter((l) => l !== '');
}
let uniq = 0;
function* transcriptLines(lines) {
  for (;;) for (const l of lines) yield l.includes('"usage"') ? l.replace(/"id":"msg_/g, `"id":"msg_${uniq++}_`) : l;
}

async function followerProcess(kind, files, seconds) {
  const cpu0 = process.cpuUsage();
  let bytes = 0;
  const disposers = [];
  if (kind === 'tracker') {
    const { openDatabase } = await import(dist('store/open-database.js'));
    const { UsageStore } = await import(dist('usage/usage-store.js'));
    const { RowUsageTracker } = await import(dist('usage/row-usage-tracker.js'));
    const { loadPriceFiles, mergePrices } = await import(dist('usage/price-table.js'));
    const db = openDatabase(join(files[0], '..', '..', 'mail.db'));
    const ledger = new UsageStore(db);
    const prices = mergePrices(loadPriceFiles());
    const trackers = files.map((f, i) => new RowUsageTracker({ row: `row${i}`, format: 'claude', locate: () => f, ledger, prices }));
    for (const t of trackers) t.look();
    // Measured after a warm-up: V8's background threads compile the modules just loaded, and that
    // process-wide CPU is startup, not tracking.
    await new Promise((r) => setTimeout(r, WARMUP_MS));
    const cpuStart = process.cpuUsage(cpu0);
    const w0 = performance.now();
    await new Promise((r) => setTimeout(r, seconds * 1000));
    for (const t of trackers) t.look();
    const cpu = process.cpuUsage(cpu0);
    const turns = trackers.reduce((n, t) => n + t.snapshot().turns, 0);
    for (const t of trackers) t.dispose();
    db.close();
    return { cpuMs: (cpu.user + cpu.system - cpuStart.user - cpuStart.system) / 1000, wallMs: performance.now() - w0, turns };
  }
  // The floor: be woken by the same watches and read the new bytes.
  const offsets = files.map(() => 0);
  const buf = Buffer.allocUnsafe(1 << 20);
  files.forEach((f, i) => {
    const w = watch(join(f, '..'), { persistent: false }, () => {
      const fd = openSync(f, 'r');
      for (;;) {
        const n = readSync(fd, buf, 0, buf.length, offsets[i]);
        if (n === 0) break;
        offsets[i] += n;
        bytes += n;
      }
      closeSync(fd);
    });
    disposers.push(() => w.close());
  });
  await new Promise((r) => setTimeout(r, WARMUP_MS));
  const cpuStart = process.cpuUsage(cpu0);
  const w0 = performance.now();
  await new Promise((r) => setTimeout(r, seconds * 1000));
  const cpu = process.cpuUsage(cpu0);
  for (const d of disposers) d();
  return { cpuMs: (cpu.user + cpu.system - cpuStart.user - cpuStart.system) / 1000, wallMs: performance.now() - w0, bytes };
}

if (role === 'follower') {
  const [, , , kind, seconds, ...files] = process.argv;
  const r = await followerProcess(kind, files, Number(seconds));
  process.stdout.write(`${JSON.stringify(r)}\n`);
  process.exit(0);
}

const seconds = Number(process.argv[2] ?? 30);
const bigMb = Number(process.argv[3] ?? 200);
const base = mkdtempSync(join(tmpdir(), 'swb-bench-usage-'));
const lines = templateLines();

function runChild(args) {
  const child = spawn(process.execPath, [...(process.env.SWB_BENCH_PROFILE && args[0] === 'tracker' ? ['--cpu-prof', `--cpu-prof-dir=${process.env.SWB_BENCH_PROFILE}`] : []), fileURLToPath(import.meta.url), 'follower', ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  return new Promise((resolve, reject) => child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`follower exited ${code}`)))));
}

try {
  // 1. Eight rows appending 1 MB a minute each.
  const files = Array.from({ length: 8 }, (_, i) => {
    const dir = join(base, 'projects', `row${i}`);
    mkdirSync(dir, { recursive: true });
    const f = join(dir, 'session.jsonl');
    writeFileSync(f, '');
    return f;
  });
  const writeEveryMs = 250;
  const bytesPerMs = (1024 * 1024) / 60_000;
  const gens = files.map(() => transcriptLines(lines));
  const perFile = files.map(() => 0);
  const tracker = runChild(['tracker', String(seconds), ...files]);
  const floor = runChild(['floor', String(seconds), ...files]);
  await new Promise((r) => setTimeout(r, 1500)); // both watching before the first write
  let written = 0;
  const startedAt = performance.now();
  const writer = setInterval(() => {
    // Whole lines, each file kept at 1 MB a minute on average since the start.
    const due = (performance.now() - startedAt) * bytesPerMs;
    files.forEach((f, i) => {
      let chunk = '';
      while (perFile[i] + chunk.length < due) chunk += `${gens[i].next().value}\n`;
      if (chunk === '') return;
      appendFileSync(f, chunk);
      perFile[i] += chunk.length;
      written += chunk.length;
    });
  }, writeEveryMs);
  const [t, fl] = await Promise.all([tracker, floor]);
  clearInterval(writer);
  const share = (r) => (100 * r.cpuMs) / r.wallMs;
  console.log(`1. 8 rows × 1 MB/min for ${seconds} s (${(written / 1e6).toFixed(1)} MB written, ${t.turns} turns counted)`);
  console.log(`   tracker: ${share(t).toFixed(3)} % of a core (${t.cpuMs.toFixed(0)} ms CPU)   floor (watch + read): ${share(fl).toFixed(3)} % (${fl.cpuMs.toFixed(0)} ms)   ratio ${(t.cpuMs / Math.max(1, fl.cpuMs)).toFixed(2)}×   goal ≤ 0.5 %: ${share(t) <= 0.5 ? 'met' : 'NOT met'}`);

  // 2. A 200 MB transcript summed once, then followed.
  const bigDir = join(base, 'projects', 'big');
  mkdirSync(bigDir, { recursive: true });
  const big = join(bigDir, 'session.jsonl');
  const gen = transcriptLines(lines);
  const target = bigMb * 1024 * 1024;
  const fd = openSync(big, 'w');
  for (let size = 0; size < target; ) {
    let block = '';
    while (block.length < 4 * 1024 * 1024) block += `${gen.next().value}\n`;
    appendFileSync(fd, block);
    size += Buffer.byteLength(block);
  }
  closeSync(fd);
  const bytes = statSync(big).size;
  const mb = bytes / 1024 / 1024;

  const floorBuf = Buffer.allocUnsafe(4 * 1024 * 1024);
  const readAll = () => {
    const t0 = performance.now();
    const f = openSync(big, 'r');
    let nl = 0;
    for (let off = 0; ; ) {
      const n = readSync(f, floorBuf, 0, floorBuf.length, off);
      if (n === 0) break;
      for (let p = floorBuf.indexOf(10); p >= 0 && p < n; p = floorBuf.indexOf(10, p + 1)) nl++;
      off += n;
    }
    closeSync(f);
    return { ms: performance.now() - t0, nl };
  };
  readAll(); // warm the page cache for both
  const fl2 = readAll();

  const { openDatabase } = await import(dist('store/open-database.js'));
  const { UsageStore } = await import(dist('usage/usage-store.js'));
  const { RowUsageTracker } = await import(dist('usage/row-usage-tracker.js'));
  const { loadPriceFiles, mergePrices } = await import(dist('usage/price-table.js'));
  const db = openDatabase(join(base, 'big.db'));
  const trackerBig = new RowUsageTracker({ row: 'big', format: 'claude', locate: () => big, ledger: new UsageStore(db), prices: mergePrices(loadPriceFiles()) });
  // The tracker goes on in slices on the event loop; here they are taken back to back to time the sum.
  const followed = [];
  const t0 = performance.now();
  await new Promise((resolve) => {
    const sub = trackerBig.onChange(() => {});
    trackerBig.look();
    const check = () => {
      const s = trackerBig.snapshot();
      followed.push(s.turns);
      if (db.prepare('SELECT offset FROM usage_files').get()?.offset === bytes) {
        sub.dispose();
        resolve();
      } else setImmediate(check);
    };
    setImmediate(check);
  });
  const sumMs = performance.now() - t0;
  const turnsBig = trackerBig.snapshot().turns;
  console.log(`2. a ${mb.toFixed(0)} MB transcript (${turnsBig} turns): summed once in ${sumMs.toFixed(0)} ms = ${(mb / (sumMs / 1000)).toFixed(0)} MB/s   floor (read + count lines): ${(mb / (fl2.ms / 1000)).toFixed(0)} MB/s   ratio ${(sumMs / fl2.ms).toFixed(2)}×   goal ≥ 100 MB/s: ${mb / (sumMs / 1000) >= 100 ? 'met' : 'NOT met'}`);

  let block = '';
  while (block.length < 1024 * 1024) block += `${gen.next().value}\n`;
  appendFileSync(big, block);
  const t1 = performance.now();
  trackerBig.look();
  const appendMs = performance.now() - t1;
  const offset = db.prepare('SELECT offset FROM usage_files').get().offset;
  console.log(`   then 1 MB appended: followed in ${appendMs.toFixed(1)} ms, reading ${((offset - bytes) / 1024 / 1024).toFixed(2)} MB (the new bytes; the file is ${(offset / 1024 / 1024).toFixed(0)} MB), turns now ${trackerBig.snapshot().turns}`);
  trackerBig.dispose();
  db.close();
} finally {
  rmSync(base, { recursive: true, force: true });
}
