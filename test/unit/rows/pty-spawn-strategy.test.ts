// The guard around node-pty's native module (src/rows/pty-spawn-strategy.ts): only node-pty 1.1.0's
// shape is touched, and where the posix_spawn fork declines (null) node-pty's own fork gets its
// arguments, the program rewritten by the wrapper it is given. The forks through real ptys:
// test/integration/rows/pty-spawn.test.ts.
import { describe, expect, test } from 'vitest';
import { replaceFork, type PtySpawnAddon } from '../../../src/rows/pty-spawn-strategy.js';

type SpawnFork = NonNullable<PtySpawnAddon['fork']>;
/** A wrapper that leaves the program as it is. */
const asIs = (file: string, args: readonly string[]) => ({ file, args: [...args] });
const ARGS = ['sh', ['-c', 'exit 0'], ['PATH=/bin'], '/tmp', 80, 24, -1, -1, true, '/helper', () => {}] as Parameters<SpawnFork>;

function nodePtyModule() {
  const calls: unknown[][] = [];
  const fork = (...args: unknown[]) => {
    calls.push(args);
    return { fd: 99, pid: 1234, pty: '/dev/pts/99' };
  };
  return { module: { fork, open: () => {}, resize: () => {}, process: () => {} } as Record<string, unknown>, fork, calls };
}

describe('replaceFork', () => {
  test('node-pty 1.1.0: its fork is replaced; a result from the posix_spawn fork is returned as is', () => {
    const { module, calls } = nodePtyModule();
    const ours = { fd: 7, pid: 42, pty: '/dev/pts/7' };
    expect(replaceFork(module, '1.1.0', () => ours, asIs)).toEqual({ installed: true });
    expect((module.fork as SpawnFork)(...ARGS)).toBe(ours);
    expect(calls).toEqual([]);
  });

  test('where the posix_spawn fork declines, node-pty\'s fork runs with the same arguments (a wrapper that leaves them as they are)', () => {
    const { module, calls } = nodePtyModule();
    const seen: unknown[][] = [];
    replaceFork(
      module,
      '1.1.0',
      (...args) => {
        seen.push(args);
        return null;
      },
      asIs,
    );
    expect((module.fork as SpawnFork)(...ARGS)).toEqual({ fd: 99, pid: 1234, pty: '/dev/pts/99' });
    expect(seen).toEqual([ARGS]);
    expect(calls).toEqual([ARGS]);
  });

  test("what the posix_spawn fork declines goes to node-pty's fork through the wrapper it is given (its fork leaks descriptors)", () => {
    const { module, calls } = nodePtyModule();
    replaceFork(module, '1.1.0', () => null, (file, args) => ({ file: '/bin/bash', args: ['-c', 'wrap', file, ...args] }));
    (module.fork as SpawnFork)(...ARGS);
    expect(calls).toEqual([['/bin/bash', ['-c', 'wrap', 'sh', '-c', 'exit 0'], ...ARGS.slice(2)]]);
  });

  test('another node-pty version or shape is left alone, and says why', () => {
    for (const [version, change, reason] of [
      ['1.2.0', () => {}, /node-pty is 1\.2\.0, not 1\.1\.0/],
      ['1.1.0', (m: Record<string, unknown>) => delete m.resize, /no resize\(\)/],
      ['1.1.0', (m: Record<string, unknown>) => (m.fork = 'not a function'), /no fork\(\)/],
    ] as const) {
      const { module } = nodePtyModule();
      change(module);
      const before = { ...module };
      const state = replaceFork(module, version, () => null, asIs);
      expect(state.installed).toBe(false);
      expect(state.installed ? '' : state.reason).toMatch(reason);
      expect(module).toEqual(before);
    }
    expect(replaceFork(undefined, '1.1.0', () => null, asIs)).toEqual({ installed: false, reason: "node-pty's native module has another shape" });
  });
});
