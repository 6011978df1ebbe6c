// Summarises a V8 .cpuprofile (node --cpu-prof): where the samples landed, by function (self
// time) and by file (self time), as shares of all non-idle samples.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { relative } from 'node:path';

function shortUrl(url, root) {
  if (!url) return '(native)';
  let path = url;
  try {
    if (url.startsWith('file://')) path = fileURLToPath(url);
  } catch {
    // keep it
  }
  const rel = root ? relative(root, path) : path;
  return rel.startsWith('..') ? path : rel;
}

/**
 * @returns {{ totalMs: number, idleMs: number, gcMs: number, functions: Array<{name, where, ms, pct}>, files: Array<{file, ms, pct}> }}
 */
export function summariseProfile(path, root, top = 15, window = {}) {
  const prof = JSON.parse(readFileSync(path, 'utf8'));
  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  const selfUs = new Map();
  const rawDeltas = prof.timeDeltas ?? [];
  // Sample times are CLOCK_MONOTONIC microseconds (as process.hrtime): keep those in the window.
  const from = window.fromUs ?? -Infinity;
  const to = window.toUs ?? Infinity;
  const deltas = [];
  let t = prof.startTime;
  for (let i = 0; i < prof.samples.length; i++) {
    t += rawDeltas[i] ?? 0;
    const next = t + (rawDeltas[i + 1] ?? 0);
    // A sample's weight is the time until the next sample.
    deltas.push(t >= from && next <= to ? Math.max(0, rawDeltas[i + 1] ?? 0) : 0);
  }
  deltas.unshift(0);
  for (let i = 0; i < prof.samples.length; i++) {
    const id = prof.samples[i];
    const dt = deltas[i + 1];
    if (dt > 0) selfUs.set(id, (selfUs.get(id) ?? 0) + dt);
  }
  let idleUs = 0;
  let gcUs = 0;
  let totalUs = 0;
  const fn = new Map();
  const files = new Map();
  for (const [id, us] of selfUs) {
    const node = byId.get(id);
    const cf = node.callFrame;
    const name = cf.functionName || '(anonymous)';
    if (name === '(idle)') {
      idleUs += us;
      continue;
    }
    if (name === '(garbage collector)') gcUs += us;
    totalUs += us;
    const file = shortUrl(cf.url, root);
    const where = cf.url ? `${file}:${cf.lineNumber + 1}` : file;
    const key = `${name} ${where}`;
    const e = fn.get(key) ?? { name, where, us: 0 };
    e.us += us;
    fn.set(key, e);
    files.set(file, (files.get(file) ?? 0) + us);
  }
  // Inclusive time: a function counts once per sample it is anywhere on the stack of.
  const parent = new Map();
  for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const incl = new Map();
  for (let i = 0; i < prof.samples.length; i++) {
    const dt = Math.max(0, deltas[i + 1] ?? 0);
    const seenKeys = new Set();
    for (let id = prof.samples[i]; id !== undefined; id = parent.get(id)) {
      const cf = byId.get(id).callFrame;
      const name = cf.functionName || '(anonymous)';
      if (name === '(root)' || name === '(idle)' || name === '(program)' || !cf.url) continue;
      const key = `${name} ${shortUrl(cf.url, root)}:${cf.lineNumber + 1}`;
      if (seenKeys.has(key)) continue;
      seenKeys.add(key);
      incl.set(key, (incl.get(key) ?? 0) + dt);
    }
  }
  const pct = (us) => (totalUs > 0 ? (100 * us) / totalUs : 0);
  return {
    totalMs: totalUs / 1000,
    idleMs: idleUs / 1000,
    gcMs: gcUs / 1000,
    functions: [...fn.values()]
      .sort((a, b) => b.us - a.us)
      .slice(0, top)
      .map((e) => ({ name: e.name, where: e.where, ms: e.us / 1000, pct: pct(e.us) })),
    inclusive: [...incl.entries()]
      .filter(([key]) => !key.includes('node:internal'))
      .sort((a, b) => b[1] - a[1])
      .slice(0, top + 10)
      .map(([key, us]) => ({ key, ms: us / 1000, pct: pct(us) })),
    files: [...files.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([file, us]) => ({ file, ms: us / 1000, pct: pct(us) })),
  };
}

export function formatProfile(title, s) {
  const lines = [`${title}: ${s.totalMs.toFixed(0)} ms busy (GC ${s.gcMs.toFixed(0)} ms), ${s.idleMs.toFixed(0)} ms idle`];
  lines.push('  self time by function:');
  for (const f of s.functions) lines.push(`    ${f.pct.toFixed(1).padStart(5)} %  ${f.ms.toFixed(0).padStart(6)} ms  ${f.name}  ${f.where}`);
  lines.push('  inclusive (self + callees), outside node internals:');
  for (const f of s.inclusive) lines.push(`    ${f.pct.toFixed(1).padStart(5)} %  ${f.ms.toFixed(0).padStart(6)} ms  ${f.key}`);
  lines.push('  self time by file:');
  for (const f of s.files.slice(0, 10)) lines.push(`    ${f.pct.toFixed(1).padStart(5)} %  ${f.ms.toFixed(0).padStart(6)} ms  ${f.file}`);
  return lines.join('\n');
}
