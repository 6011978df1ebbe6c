// The first-frame floor's start trace: the same lines swb's processes write to SWB_START_TRACE
// (src/util/start-trace.ts: `pid ms cpu label`, ms on CLOCK_MONOTONIC, cpu this process's so far),
// so the bench reads both with one reader (start-memory.mjs, readStartTrace) and prints the floor's
// timeline beside swb's. CommonJS, and its own copy of those few lines, so that the floor's client
// loads nothing but this file and the node built-ins it needs (an ES module entry costs node ~10 ms
// more to start, measured here).
'use strict';
const { appendFileSync } = require('node:fs');
const { basename } = require('node:path');

const traceFile = process.env.SWB_START_TRACE || undefined;
let marked = false;

/** Appends one timing mark to SWB_START_TRACE's file; nothing when it is unset. */
function startMark(label) {
  if (traceFile === undefined) return;
  const nowMs = Number(process.hrtime.bigint()) / 1e6;
  const cpu = process.cpuUsage();
  let lines = '';
  // performance.now() counts from this process's start: the node start on the same clock.
  if (!marked) lines += `${process.pid} ${(nowMs - performance.now()).toFixed(2)} 0 node started (${basename(process.argv[1] ?? '?')})\n`;
  marked = true;
  lines += `${process.pid} ${nowMs.toFixed(2)} ${((cpu.user + cpu.system) / 1000).toFixed(1)} ${label}\n`;
  try {
    appendFileSync(traceFile, lines);
  } catch {
    // a trace that cannot be written is no reason to fail a start
  }
}

module.exports = { startMark };
