// Issue #33's start and memory figures, measured the way its table states them:
//  - node's own start (`node -e 0`), taken in the same run right beside each start measured, as the
//    unit the start goals are written in (≤ 3x for a cold start with 8 rows, ≤ 1.5x for an attach);
//  - the start's timeline (SWB_START_TRACE, src/util/start-trace.ts): which process spent the time
//    where, on the one monotonic clock both processes and this harness share;
//  - the server's memory with 1 and with 16 idle rows (each printed the idle preamble, so its
//    scrollback holds what the idle workload's rows hold): the base (the server with no row, by
//    extrapolation of the two) and the cost of one idle row; peak RSS as the issue states it, and
//    beside it the private part (RssAnon): about 40 MB of any node's RSS is the node binary's own
//    pages (file-backed, shared by every node process), which `node -e 0` shows (nodeRssMb).
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';

/** One `node -e 0` (this node, this environment: NODE_EXTRA_CA_CERTS as the operator has it), in ms. */
export function nodeStartMs() {
  const t = performance.now();
  execFileSync(process.execPath, ['-e', '0'], { stdio: 'ignore' });
  return performance.now() - t;
}

/** `node -e 0`'s peak RSS (bytes): what any node process holds before any code of its own. */
export function nodeRss() {
  return 1024 * Number(execFileSync(process.execPath, ['-e', 'process.stdout.write(String(process.resourceUsage().maxRSS))'], { encoding: 'utf8' }));
}

/** A process's private resident memory (RssAnon, bytes): its RSS without the shared, file-backed pages. */
export function privateRss(pid) {
  try {
    const m = /^RssAnon:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/** CLOCK_MONOTONIC in ms, the clock the start trace writes. */
export function monotonicMs() {
  return Number(process.hrtime.bigint()) / 1e6;
}

/**
 * The marks in a start-trace file, relative to `t0Ms` (monotonic), in time order; each process's
 * marks once (a process that loads start-trace.ts twice, the entry and a bundle, writes its node
 * start twice).
 */
export function readStartTrace(file, t0Ms) {
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  rmSync(file, { force: true });
  const seen = new Set();
  const lines = [];
  const pids = [];
  for (const line of text.trim().split('\n')) {
    const m = /^(\d+) ([\d.]+) ([\d.]+) (.*)$/.exec(line);
    if (!m) continue;
    const key = `${m[1]} ${m[4]}`;
    if (seen.has(key)) continue;
    seen.add(key);
    if (!pids.includes(m[1])) pids.push(m[1]);
    lines.push(m);
  }
  // Which process is which: swb's server says so in its first mark (`node started (server)`), and
  // bin/swb starts it beside the client, so either may mark first; otherwise (the floor) the client
  // is the first to mark and its server the second.
  const server = lines.find((m) => m[4] === 'node started (server)')?.[1] ?? pids[1];
  const others = pids.filter((pid) => pid !== server);
  const role = (pid) => (pid === server ? 'server' : pid === others[0] ? 'client' : `process ${pids.indexOf(pid) + 1}`);
  const marks = lines.map((m) => ({ process: role(m[1]), ms: Number(m[2]) - t0Ms, cpuMs: Number(m[3]), label: m[4] }));
  return marks.sort((a, b) => a.ms - b.ms);
}

/** Several traces of the same start: the median time of each mark, in the order they came. */
export function medianTrace(traces) {
  const byKey = new Map();
  for (const t of traces) {
    for (const m of t) {
      // The code cache's state is part of a label; one key for all of them.
      const key = `${m.process}: ${m.label.replace(/ \(code cache .*\)$/, '')}`;
      if (!byKey.has(key)) byKey.set(key, { ms: [], cpuMs: [], labels: new Set() });
      byKey.get(key).ms.push(m.ms);
      byKey.get(key).cpuMs.push(m.cpuMs);
      byKey.get(key).labels.add(`${m.process}: ${m.label}`);
    }
  }
  const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
  return [...byKey].map(([, v]) => ({ key: [...v.labels].join(' | '), ms: med(v.ms), cpuMs: med(v.cpuMs) })).sort((a, b) => a.ms - b.ms);
}

/** The trace as lines: each mark's time since spawn and since the mark before. */
export function formatTrace(system, marks, shownMs) {
  const lines = [`  trace  ${system} start, median of the runs (ms since the client's spawn; + since the mark before; that process's CPU so far):`];
  let prev = 0;
  for (const m of [...marks, ...(Number.isFinite(shownMs) ? [{ key: 'harness: every row shown', ms: shownMs, cpuMs: Number.NaN }] : [])]) {
    const cpu = Number.isFinite(m.cpuMs) && !m.key.includes('node started') ? `cpu ${m.cpuMs.toFixed(0).padStart(4)}` : ''.padStart(8);
    lines.push(`    ${m.ms.toFixed(0).padStart(6)}  +${(m.ms - prev).toFixed(0).padStart(4)}  ${cpu}  ${m.key}`);
    prev = m.ms;
  }
  return lines.join('\n');
}

/**
 * From the server's memory with 1 and with `n` idle rows: the base (the server alone, by linear
 * extrapolation) and the cost of each idle row, for peak (VmHWM) and current (VmRSS) alike.
 */
export function memoryModel(one, many, n) {
  const perRow = (k) => (many[k] - one[k]) / (n - 1);
  return {
    hwm: { one: one.hwm, many: many.hwm, perRow: perRow('hwm'), base: one.hwm - perRow('hwm') },
    rss: { one: one.rss, many: many.rss, perRow: perRow('rss'), base: one.rss - perRow('rss') },
    anon: { one: one.anon, many: many.anon, perRow: perRow('anon'), base: one.anon - perRow('anon') },
  };
}
