// The flood policy's timing, exact on a fake clock: a plain flood in a row that is not attached
// waits while it keeps coming (output within FLOOD_GAP_MS), at most maxDeferMs, and a screen is
// quiet FLOOD_GAP_MS after its last write.
import { describe, expect, it } from 'vitest';
import { FLOOD_GAP_MS } from '../../../src/rows/flood-policy.js';
import type { ParseClient } from '../../../src/rows/parse-scheduler.js';
import { RowScreen } from '../../../src/rows/row-screen.js';
import { FakeClock } from '../../helpers/fake-clock.js';

const bytes = (text: string) => Buffer.from(text, 'latin1');
const lines = (from: number, to: number) => {
  let out = '';
  for (let i = from; i <= to; i++) out += `${i}\r\n`;
  return out;
};

/** Turns run only when the test says so. */
class ManualScheduler {
  private clients: ParseClient[] = [];
  request(client: ParseClient): void {
    this.clients.push(client);
  }
  run(): void {
    const clients = this.clients;
    this.clients = [];
    for (const client of clients) client.feed(1 << 30);
  }
}

function setup(maxDeferMs: number) {
  const clock = new FakeClock();
  const scheduler = new ManualScheduler();
  const screen = new RowScreen({ cols: 40, rows: 10, scrollback: 100, scheduler, maxDeferMs, clock, highWatermark: 1 << 30 });
  return { clock, scheduler, screen };
}

describe('FloodPolicy', () => {
  it('parses a waiting flood FLOOD_GAP_MS after its output paused, not before', () => {
    const { clock, scheduler, screen } = setup(60_000);
    screen.write(bytes(lines(1, 50)));
    scheduler.run();
    expect(screen.pendingBytes).toBeGreaterThan(0);
    clock.advance(FLOOD_GAP_MS - 1);
    scheduler.run();
    expect(screen.pendingBytes).toBeGreaterThan(0);
    clock.advance(1); // the wait ends: a turn is asked for
    scheduler.run();
    expect(screen.pendingBytes).toBe(0);
    expect(screen.snapshot().lines[8]).toBe('50');
    screen.dispose();
  });

  it('shows a flood that keeps coming once its oldest output waited maxDeferMs', () => {
    const { clock, scheduler, screen } = setup(100);
    let next = 1;
    for (let t = 0; t < 90; t += 10) {
      screen.write(bytes(lines(next, next + 49)));
      next += 50;
      scheduler.run();
      clock.advance(10);
    }
    expect(screen.snapshot().lines[0]).toBe(''); // still gathering at 90 ms
    screen.write(bytes(lines(next, next + 49)));
    scheduler.run();
    clock.advance(10); // 100 ms since the first write: the wait is over though output keeps coming
    scheduler.run();
    expect(screen.pendingBytes).toBe(0);
    expect(screen.snapshot().lines[8]).toBe(String(next + 49));
    screen.dispose();
  });

  it('never holds short output or an attached row\u2019s flood', () => {
    const { scheduler, screen } = setup(60_000);
    screen.write(bytes('a\r\nb\r\n'));
    scheduler.run();
    expect(screen.pendingBytes).toBe(0);
    screen.urgent = true;
    screen.write(bytes(lines(1, 50)));
    scheduler.run();
    expect(screen.pendingBytes).toBe(0);
    screen.dispose();
  });

  it('does not hold what came before the row stopped reading (a batch of a row nobody draws); the next write may wait again', () => {
    const { clock, scheduler, screen } = setup(60_000);
    screen.write(bytes(lines(1, 50)));
    screen.readsPaused();
    scheduler.run();
    expect(screen.pendingBytes).toBe(0);
    expect(screen.snapshot().lines[8]).toBe('50');
    screen.write(bytes(lines(51, 100)));
    scheduler.run();
    expect(screen.pendingBytes).toBeGreaterThan(0);
    clock.advance(FLOOD_GAP_MS);
    scheduler.run();
    expect(screen.pendingBytes).toBe(0);
    screen.dispose();
  });

  it('calls a screen quiet FLOOD_GAP_MS after its last write, once everything is parsed', async () => {
    const { clock, scheduler, screen } = setup(60_000);
    expect(screen.quiet).toBe(true);
    screen.write(bytes('output\r\n'));
    expect(screen.quiet).toBe(false);
    scheduler.run();
    await screen.flush();
    clock.advance(FLOOD_GAP_MS - 1);
    expect(screen.quiet).toBe(false);
    clock.advance(1);
    expect(screen.quiet).toBe(true);
    screen.dispose();
  });
});
