import { describe, expect, test } from 'vitest';
import { ParseScheduler, type ParseClient } from '../../../src/rows/parse-scheduler.js';
import { RowScreen } from '../../../src/rows/row-screen.js';
import { FakeClock } from '../../helpers/fake-clock.js';

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('ParseScheduler', () => {
  test('feeds clients in a later turn, splitting the budget between them', async () => {
    const scheduler = new ParseScheduler({ bytesPerTurn: 1000, minSliceBytes: 100 });
    const budgets: number[] = [];
    const client = (): ParseClient => ({ feed: (budget) => budgets.push(budget) });
    scheduler.request(client());
    scheduler.request(client());
    expect(budgets).toEqual([]);
    await nextTurn();
    expect(budgets).toEqual([500, 500]);
  });

  test('yieldOnce: turns due now wait for a timer (the loop blocks first), once', async () => {
    // The hold's timer on a fake clock: whether a real 1 ms timer or the check phase comes first
    // depends on how busy the machine is, and the rule is about order, not about that race.
    const clock = new FakeClock();
    const scheduler = new ParseScheduler({ clock });
    let fed = 0;
    const client: ParseClient = { feed: () => fed++ };
    scheduler.request(client);
    scheduler.yieldOnce();
    scheduler.yieldOnce(); // one wait however often it is asked for
    await nextTurn(); // the check phase the turn was due in: it waits
    expect(fed).toBe(0);
    clock.advance(0); // the timer is due: the turn runs, once
    expect(fed).toBe(1);
    clock.advance(10);
    expect(fed).toBe(1);
    // The wait was spent: the next turn is a check phase again.
    scheduler.request(client);
    await nextTurn();
    expect(fed).toBe(2);
  });

  test('a share never drops below the minimum slice', async () => {
    const scheduler = new ParseScheduler({ bytesPerTurn: 1000, minSliceBytes: 300 });
    const budgets: number[] = [];
    for (let i = 0; i < 10; i++) scheduler.request({ feed: (budget) => budgets.push(budget) });
    await nextTurn();
    expect(budgets).toEqual(new Array(10).fill(300));
  });

  test('a flooded screen parses at most its share per turn and still gets everything parsed', async () => {
    const scheduler = new ParseScheduler({ bytesPerTurn: 64 * 1024, minSliceBytes: 1024 });
    const flooded = new RowScreen({ cols: 80, rows: 24, scheduler, highWatermark: 1 << 30 });
    const quiet = new RowScreen({ cols: 80, rows: 24, scheduler });
    const chunk = 'x'.repeat(4000) + '\r\n';
    for (let i = 0; i < 200; i++) flooded.write(chunk);
    quiet.write('hello');
    let maxParsedPerTurn = 0;
    let before = flooded.pendingBytes;
    let turns = 0;
    while (flooded.pendingBytes > 0 && turns < 10_000) {
      await new Promise((resolve) => setTimeout(resolve, 0));
      maxParsedPerTurn = Math.max(maxParsedPerTurn, before - flooded.pendingBytes);
      before = flooded.pendingBytes;
      turns++;
    }
    await quiet.flush();
    expect(flooded.pendingBytes).toBe(0);
    expect(quiet.snapshot().lines[0]).toBe('hello');
    // Whole chunks are handed over, so a share can overshoot by one chunk.
    expect(maxParsedPerTurn).toBeLessThanOrEqual(2 * (32 * 1024 + chunk.length));
    expect(turns).toBeGreaterThan(5);
    flooded.dispose();
    quiet.dispose();
  });
});
