// A hook's start as the kernel tells it (src/util/process-start.ts): a real process that waits before
// it becomes Node (as a hook does behind a shell and the launcher on a loaded machine) is dated from
// its spawn, not from Node's start-up; and this process's own start is never after Node's.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { processStartedAt, startFromProcStat } from '../../../src/util/process-start.js';

const PROBE = `
const fs = require('node:fs');
const now = Date.now();
process.stdout.write(JSON.stringify({ stat: fs.readFileSync('/proc/self/stat', 'latin1'), uptime: fs.readFileSync('/proc/uptime', 'latin1'), now, nodeStart: now - process.uptime() * 1000 }));
`;

describe.skipIf(process.platform !== 'linux')('the start of a process', () => {
  it('is its spawn, before a delayed Node start-up (sh sleeps 400 ms, then execs node in the same pid)', () => {
    const spawnedAt = Date.now();
    const out = JSON.parse(execFileSync('/bin/sh', ['-c', 'sleep 0.4; exec "$0" -e "$1"', process.execPath, PROBE], { encoding: 'utf8' })) as {
      stat: string;
      uptime: string;
      now: number;
      nodeStart: number;
    };
    const start = startFromProcStat(out.stat, out.uptime, out.now)!;
    expect(start).toBeDefined();
    // The kernel's start is the spawn (to its 10 ms ticks, and the two reads' rounding)...
    expect(start).toBeGreaterThan(spawnedAt - 30);
    // ...and Node's own start came after the 400 ms the shell slept.
    expect(out.nodeStart - start).toBeGreaterThanOrEqual(380);
  });

  it("is never after Node's own start, and close to it for a process that is Node from its spawn", () => {
    const nodeStart = Date.now() - process.uptime() * 1000;
    const start = processStartedAt();
    expect(start).toBeLessThanOrEqual(nodeStart + 1);
    expect(start).toBeGreaterThan(nodeStart - 60_000);
  });

  it('says nothing for text that is not a stat line, and reads a comm holding spaces and parens', () => {
    expect(startFromProcStat('garbage', '12.5 3.0', 0)).toBeUndefined();
    expect(startFromProcStat('1 (a) b', 'x', 0)).toBeUndefined();
    const fields = ['S', ...Array.from({ length: 18 }, () => '0'), '1000', '0'];
    // 1000 ticks = 10 s after boot; now is 12.5 s after boot at t=100000: started 2.5 s before.
    expect(startFromProcStat(`42 (we (ird) name) ${fields.join(' ')}`, '12.50 3.00\n', 100_000)).toBe(97_500);
  });
});
