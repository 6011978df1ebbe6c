// bench:render --sched reads a keystroke's round trip out of scheduler wakeups: a synthetic trace
// with known hops must come out hop for hop.
import { describe, expect, test } from 'vitest';
// @ts-expect-error the bench is plain JavaScript, without types
import { echoChain } from '../../../bench/lib/render/sched-chain.mjs';

const SERVER = 100;
const PROGRAM = 200;
const BENCH = 300;
const KWORKER = 7;

/** One keystroke's wakeups from `t0` (µs), and the server's two slices on a CPU around them. */
function keystroke(t0: number) {
  const wake = (t: number, waker: number, wakerComm: string, wakee: number, wakeeComm: string) => ({ t: t0 + t, waker, wakerComm, wakee, wakeeComm });
  const wakes = [
    wake(0, KWORKER, 'kworker/u8:1', SERVER, 'node'), // the key arrives
    wake(90, SERVER, 'node', KWORKER, 'kworker/u8:1'), // its write into the row's pty
    wake(130, KWORKER, 'kworker/u8:1', PROGRAM, 'cat'),
    wake(200, KWORKER, 'kworker/u8:2', SERVER, 'node'), // the echo arrives
    wake(280, SERVER, 'node', KWORKER, 'kworker/u8:2'), // its write onto the terminal
    wake(330, KWORKER, 'kworker/u8:2', BENCH, 'node'), // the bench is woken to read it
  ];
  // Slice 1 starts 10 µs after the key's wakeup and ends 25 µs after the pty write; slice 2 starts
  // 5 µs after the echo's wakeup and ends 40 µs after the terminal write.
  const slices = [
    { end: t0 + 115, run: 105 },
    { end: t0 + 320, run: 115 },
  ];
  return { wakes, slices };
}

describe('echoChain', () => {
  test('reads each hop of a keystroke from the wakeups and the server slices', () => {
    const a = keystroke(1_000);
    const b = keystroke(50_000);
    const trace = { wakes: [...a.wakes, ...b.wakes], slices: new Map([[SERVER, [...a.slices, ...b.slices]]]) };
    expect(echoChain(trace, SERVER, PROGRAM, BENCH)).toEqual({
      n: 2,
      keyDelay: 10,
      keyToPty: 80,
      keyRunsOn: 25,
      ptyToProgram: 40,
      programToServer: 70,
      echoDelay: 5,
      echoToTerminal: 75,
      runsOn: 40,
      toReader: 50,
      total: 330,
    });
  });

  test('a chain that never reaches the bench, or spans too long, is no chain', () => {
    const a = keystroke(1_000);
    const noReader = { wakes: a.wakes.slice(0, -1), slices: new Map([[SERVER, a.slices]]) };
    expect(echoChain(noReader, SERVER, PROGRAM, BENCH)).toBeNull();
    const late = { wakes: [...a.wakes.slice(0, -1), { ...a.wakes[5]!, t: 1_000 + 25_000 }], slices: new Map([[SERVER, a.slices]]) };
    expect(echoChain(late, SERVER, PROGRAM, BENCH)).toBeNull();
  });

  test('a server whose keys reach the pty from another thread: each half is read on the thread it ran on', () => {
    const RELAY = 101;
    const a = keystroke(1_000);
    // The key comes in to, and goes out from, the relay thread; the main thread has the echo.
    const wakes = a.wakes.map((w, i) => (i === 0 ? { ...w, wakee: RELAY } : i === 1 ? { ...w, waker: RELAY } : w));
    // A wakeup of the main thread by a kworker before the key (another row's output) is not the key's.
    const other = { t: 990, waker: KWORKER, wakerComm: 'kworker/u8:3', wakee: SERVER, wakeeComm: 'node' };
    const trace = { wakes: [other, ...wakes], slices: new Map([[RELAY, [a.slices[0]!]], [SERVER, [a.slices[1]!]]]) };
    expect(echoChain(trace, new Set([SERVER, RELAY]), PROGRAM, BENCH)).toMatchObject({ n: 1, keyDelay: 10, keyToPty: 80, keyRunsOn: 25, echoDelay: 5, echoToTerminal: 75, total: 330 });
  });
});
