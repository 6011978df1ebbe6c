// readProcStat (src/rows/process-tree.ts) reads /proc/PID/stat into one buffer rather than through
// readFileSync: the fields still come out as the kernel wrote them, and a pid that is not there
// reads as undefined.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readProcStat } from '../../../src/rows/process-tree.js';

describe.runIf(process.platform === 'linux')('readProcStat', () => {
  it("reads this process's stat as the kernel writes it", () => {
    const stat = readProcStat(process.pid)!;
    expect(stat.pid).toBe(process.pid);
    expect(stat.ppid).toBe(process.ppid);
    expect(stat.state).toMatch(/^[RS]$/);
    const fields = readFileSync(`/proc/${process.pid}/stat`, 'latin1').split(') ')[1]!.split(' ');
    expect(stat.startTime).toBe(fields[19]);
    expect(stat.session).toBe(Number(fields[3]));
  });

  it('a pid that is not there reads as undefined', () => {
    expect(readProcStat(2 ** 22 + 1)).toBeUndefined();
  });
});
