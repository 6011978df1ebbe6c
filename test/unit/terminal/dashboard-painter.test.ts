import { afterEach, describe, expect, it } from 'vitest';
import { initialState, type AppState } from '../../../src/app/app-state.js';
import { LayoutSource } from '../../../src/app/layout-source.js';
import { RowScreen } from '../../../src/rows/row-screen.js';
import type { Row } from '../../../src/rows/row.js';
import type { RowManager } from '../../../src/rows/row-manager.js';
import { Compositor } from '../../../src/terminal/compositor.js';
import { FLOOD_GAP_MS } from '../../../src/rows/flood-policy.js';
import { DashboardPainter } from '../../../src/terminal/dashboard-painter.js';
import { InkStdout } from '../../../src/terminal/ink-surface.js';
import type { Clock } from '../../../src/util/clock.js';
import { FakeClock } from '../../helpers/fake-clock.js';
import { waitUntil } from '../../helpers/wait-until.js';
import { row as rowView } from '../app/fixtures.js';

/** What a Row gives the painter: its name, screen and last output. */
function fakeRow(name: string, screen: RowScreen): Row {
  return { name, screen, lastOutputAt: Date.now() } as unknown as Row;
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
const lines = (from: number, to: number) => {
  let out = '';
  for (let i = from; i <= to; i++) out += `${i}\r\n`;
  return out;
};

describe('DashboardPainter', () => {
  const cleanup: Array<() => void> = [];
  afterEach(() => {
    while (cleanup.length > 0) cleanup.pop()!();
  });

  /**
   * A dashboard of one row, painted once; frames capped far apart (a minute) unless told. The row's
   * screen tells "still printing" from "paused" on `screenClock` (default: the real one). With
   * `shown`, the row's first output is painted already (it paints at once: its own test below), so
   * what follows is capped.
   */
  async function shownDashboard(timing: { frameMs?: number; clock?: Clock; screenClock?: Clock } = {}) {
    const d = dashboard(timing);
    d.screen.write('first output\r\n');
    await d.screen.flush();
    d.painter.rowChanged(d.row);
    await waitUntil(() => d.output().includes('first output'), { timeoutMs: 5000 });
    return d;
  }

  function dashboard(timing: { frameMs?: number; clock?: Clock; screenClock?: Clock } = {}) {
    let out = '';
    const screen = new RowScreen({ cols: 40, rows: 8, ...(timing.screenClock ? { clock: timing.screenClock } : {}) });
    const row = fakeRow('r1', screen);
    const state: AppState = { ...initialState({ cols: 40, rows: 12 }, 'grid', 'default'), rows: [rowView('r1')], focused: 'r1' };
    const painter = new DashboardPainter({
      compositor: new Compositor((data) => (out += data)),
      ink: new InkStdout({ cols: 40, rows: 12 }, () => {}),
      rows: { get: (name: string) => (name === 'r1' ? row : undefined) } as unknown as RowManager,
      getState: () => state,
      layouts: new LayoutSource(1),
      writeModes: () => {},
      renderHeader: (view, width) => view.name.padEnd(width),
      separatorStyle: () => '',
      frameMs: timing.frameMs ?? 60_000,
      ...(timing.clock ? { clock: timing.clock } : {}),
    });
    cleanup.push(() => painter.dispose(), () => screen.dispose());
    painter.paint();
    return { screen, row, painter, output: () => out, clear: () => (out = '') };
  }

  it('a row whose output stopped paints at once; one still printing waits for the frame cap', async () => {
    // The screen's own clock: "still printing" is output within FLOOD_GAP_MS (15 ms), which a loaded
    // machine's flush and turns could outlast on the real clock, and the row would read as paused.
    const screenClock = new FakeClock();
    const d = await shownDashboard({ screenClock });
    // A row still printing: its change waits for the next frame (a minute away here).
    d.screen.write('still printing\r\n');
    await d.screen.flush();
    d.clear();
    d.painter.rowChanged(d.row);
    await turn();
    await turn();
    expect(d.output()).not.toContain('still printing');
    // A flood whose output paused: parsed once it paused (RowScreen's flood wait), and shown then.
    d.screen.write(lines(1, 400));
    expect(d.screen.quiet).toBe(false);
    screenClock.advance(FLOOD_GAP_MS);
    await waitUntil(() => d.screen.quiet, { timeoutMs: 5000 });
    d.painter.rowChanged(d.row);
    await waitUntil(() => d.output().includes('400'), { timeoutMs: 5000 });
  });

  it('a row\'s first output paints on the next turn, not at the frame cap; its next output waits for the frame', async () => {
    // Issue #33: at a cold start every row's first line comes just after the chrome's first paint.
    const screenClock = new FakeClock();
    const d = dashboard({ screenClock });
    d.clear();
    d.screen.write('hello from the row\r\n');
    await d.screen.flush();
    expect(d.screen.quiet).toBe(false);
    d.painter.rowChanged(d.row);
    await waitUntil(() => d.output().includes('hello from the row'), { timeoutMs: 5000 });
    // Still printing: the frame cap (a minute here) holds the rest back.
    d.clear();
    d.screen.write('second line\r\n');
    await d.screen.flush();
    d.painter.rowChanged(d.row);
    await turn();
    await turn();
    expect(d.output()).not.toContain('second line');
  });

  it("a row still printing paints at the frame cap, timed on the painter's clock", async () => {
    const clock = new FakeClock();
    const d = await shownDashboard({ frameMs: 33, clock });
    // Told in the same turn as the write: the row is printing (not quiet), whatever the machine's load.
    d.clear();
    d.screen.write('next frame\r\n');
    d.painter.rowChanged(d.row);
    await d.screen.flush();
    await turn();
    clock.advance(32);
    expect(d.output()).not.toContain('next frame');
    clock.advance(1);
    expect(d.output()).toContain('next frame');
  });
});
