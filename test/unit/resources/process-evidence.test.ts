// Evidence of a launch, from what /proc would say (a fake reader): the pid with its start time, its
// process group, and pid reuse.
import { describe, expect, it } from 'vitest';
import { launchEvidence, linuxProc, type ProcReader } from '../../../src/resources/process-evidence.js';
import type { ProcStat } from '../../../src/rows/process-tree.js';

function procOf(stats: Array<Partial<ProcStat> & { pid: number }>): ProcReader {
  const full = stats.map((s) => ({ ppid: 1, state: 'S', pgrp: s.pid, session: s.pid, ttyNr: 0, tpgid: -1, startTime: '100', ...s }));
  return {
    stat: (pid) => full.find((s) => s.pid === pid),
    groupMembers: (pgid) => full.filter((s) => s.pgrp === pgid && s.state !== 'Z').map((s) => s.pid),
  };
}

const launch = { pid: 500, startTime: '100', pgid: 500 };

describe('launchEvidence', () => {
  it('is alive while the process with that start time runs', () => {
    expect(launchEvidence(launch, procOf([{ pid: 500 }])).alive).toBe(true);
  });

  it('is alive while a helper of its group runs after the process itself ended', () => {
    expect(launchEvidence(launch, procOf([{ pid: 501, pgrp: 500 }])).alive).toBe(true);
  });

  it('is gone when neither the process nor its group has a live member (zombies do not count)', () => {
    const e = launchEvidence(launch, procOf([{ pid: 500, state: 'Z' }, { pid: 777, pgrp: 777 }]));
    expect(e).toMatchObject({ alive: false, why: expect.stringMatching(/group 500/) });
  });

  it('is gone when the pid now names another process, even one that leads a group of that number', () => {
    expect(launchEvidence(launch, procOf([{ pid: 500, startTime: '900' }, { pid: 502, pgrp: 500 }])).alive).toBe(false);
  });

  it('reads this very process from /proc as alive', () => {
    const me = linuxProc.stat(process.pid)!;
    expect(launchEvidence({ pid: process.pid, startTime: me.startTime, pgid: me.pgrp }).alive).toBe(true);
    expect(launchEvidence({ pid: process.pid, startTime: `${me.startTime}1`, pgid: 4_000_000 }).alive).toBe(false);
  });
});
