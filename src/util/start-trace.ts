// Where a cold start spends its time (issue #33): `swb` starts a node, which starts another node
// (the server), which loads its bundle, opens the store, listens, hears the client's HELLO, starts
// the rows and paints. A CPU profile shows one process; this shows both on one clock.
// SWB_START_TRACE=FILE makes every swb process on the way append `pid ms cpu label` lines to FILE,
// ms on CLOCK_MONOTONIC (process.hrtime), which every process on the machine shares, so a harness
// can subtract its own spawn time, and cpu the process's CPU so far in ms (on a loaded machine the
// wall times stretch, the CPU does not). The first mark of a process also writes when its node
// started.
// Unset (always, outside a measurement), a mark is one comparison.
import { appendFileSync } from 'node:fs';

const traceFile = process.env.SWB_START_TRACE || undefined;
let marked = false;

/** Appends one timing mark to SWB_START_TRACE's file; nothing when it is unset. */
export function startMark(label: string): void {
  if (traceFile === undefined) return;
  const nowMs = Number(process.hrtime.bigint()) / 1e6;
  const cpu = process.cpuUsage();
  let lines = '';
  // performance.now() counts from this process's start: the node start on the same clock.
  if (!marked) lines += `${process.pid} ${(nowMs - performance.now()).toFixed(2)} 0 node started (${process.argv[2] ?? 'dashboard'})\n`;
  marked = true;
  lines += `${process.pid} ${nowMs.toFixed(2)} ${((cpu.user + cpu.system) / 1000).toFixed(1)} ${label}\n`;
  try {
    appendFileSync(traceFile, lines);
  } catch {
    // A trace that cannot be written is no reason to fail a start.
  }
}

/** `write`, marking `label` at its first call when tracing; `write` itself otherwise (no cost on a hot path). */
export function markFirstCall<A extends unknown[]>(label: string, write: (...args: A) => void): (...args: A) => void {
  if (traceFile === undefined) return write;
  let first = true;
  return (...args: A) => {
    if (first) startMark(label);
    first = false;
    write(...args);
  };
}
