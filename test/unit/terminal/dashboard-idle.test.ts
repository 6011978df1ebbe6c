// An idle dashboard wakes only when a header's age would read differently, and then sends only the
// cells that changed (issue #33: 16 idle rows cost 0.46 % of a core and 22.5 KB in their first
// minute). On a fake clock: every timer the painter arms is counted, every byte it writes kept.
import { afterEach, describe, expect, it } from 'vitest';
import { Terminal } from '@xterm/headless';
import { rowHeader } from '../../../components/row-header-line.js';
import { formatAge, initialState, type AppState } from '../../../src/app/app-state.js';
import { LayoutSource } from '../../../src/app/layout-source.js';
import { loadTheme } from '../../../src/config/theme.js';
import { RowScreen } from '../../../src/rows/row-screen.js';
import type { Row } from '../../../src/rows/row.js';
import type { RowManager } from '../../../src/rows/row-manager.js';
import { Compositor } from '../../../src/terminal/compositor.js';
import { DashboardPainter } from '../../../src/terminal/dashboard-painter.js';
import { InkStdout } from '../../../src/terminal/ink-surface.js';
import type { Disposable } from '../../../src/util/lifecycle.js';
import { FakeClock } from '../../helpers/fake-clock.js';
import { row as rowView } from '../app/fixtures.js';

const theme = (() => {
  const t = loadTheme('dark');
  if (!t.ok) throw new Error(t.error.message);
  return t.theme;
})();

/** A fake clock that counts the timers that fired. */
class CountingClock extends FakeClock {
  fired = 0;
  override setTimer(fn: () => void, ms: number): Disposable {
    return super.setTimer(() => {
      this.fired++;
      fn();
    }, ms);
  }
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
const t0 = Date.UTC(2026, 11, 1, 12, 0, 0);

describe('an idle dashboard', () => {
  const cleanup: Array<() => void> = [];
  afterEach(() => {
    while (cleanup.length > 0) cleanup.pop()!();
  });

  /** 16 rows that printed at t0 and went quiet, their real headers, painted once (at `start`). */
  function dashboard(start = t0) {
    const clock = new CountingClock(start);
    const names = Array.from({ length: 16 }, (_, i) => `i${i + 1}`);
    const rows = new Map<string, Row>();
    for (const name of names) {
      const screen = new RowScreen({ cols: 40, rows: 8 });
      cleanup.push(() => screen.dispose());
      rows.set(name, { name, screen, lastOutputAt: t0 } as unknown as Row);
    }
    let state: AppState = { ...initialState({ cols: 200, rows: 50 }, 'grid', 'dark'), rows: names.map((n) => rowView(n, { lastOutputAt: t0 })), focused: 'i1' };
    const writes: string[] = [];
    const rendered = { headers: 0 };
    const painter = new DashboardPainter({
      compositor: new Compositor((data) => writes.push(data)),
      ink: new InkStdout({ cols: 200, rows: 50 }, () => {}),
      rows: { get: (name: string) => rows.get(name) } as unknown as RowManager,
      getState: () => state,
      layouts: new LayoutSource(1),
      writeModes: () => {},
      renderHeader: (row, width, focused, now) => {
        rendered.headers++;
        return rowHeader({ row, width, focused, now, theme });
      },
      separatorStyle: () => '',
      clock,
    });
    cleanup.push(() => painter.dispose());
    painter.paint();
    const first = writes.splice(0).join('');
    return { clock, writes, rendered, first, setState: (next: AppState) => (state = next), getState: () => state };
  }

  /** The terminal's cells after `data`: each line's text and each cell's colours and weight. */
  function terminalAfter(data: string): Promise<string[]> {
    const term = new Terminal({ cols: 200, rows: 50, allowProposedApi: true });
    cleanup.push(() => term.dispose());
    return new Promise((resolve) =>
      term.write(data, () => {
        const lines: string[] = [];
        const b = term.buffer.active;
        for (let y = 0; y < 50; y++) {
          const line = b.getLine(b.baseY + y)!;
          let cells = '';
          for (let x = 0; x < 200; x++) {
            const c = line.getCell(x)!;
            cells += `${c.getChars() || ' '}${c.getFgColorMode()}:${c.getFgColor()}/${c.getBgColorMode()}:${c.getBgColor()}/${c.isBold()}|`;
          }
          lines.push(`${line.translateToString(true)} ${cells}`);
        }
        resolve(lines);
      }),
    );
  }

  it('arms one timer, for the next age turn, and writes nothing until an age reads differently', async () => {
    const { clock, writes } = dashboard();
    expect(clock.pendingTimers).toBe(1);
    clock.advance(9_999);
    await turn();
    expect(clock.fired).toBe(0);
    expect(writes).toEqual([]);
    clock.advance(1);
    await turn();
    expect(clock.fired).toBe(1);
    expect(formatAge(t0, clock.now())).toBe('<1m');
    expect(writes.length).toBe(1);
    // Between the turns ("<1m" until the minute), nothing.
    writes.length = 0;
    clock.advance(49_999);
    await turn();
    expect(clock.fired).toBe(1);
    expect(writes).toEqual([]);
  });

  it('in its first five minutes wakes once per age turn and sends under 1 KB a turn', async () => {
    const { clock, writes } = dashboard();
    const perTurn: number[] = [];
    for (let s = 1; s <= 300; s++) {
      clock.advance(1_000);
      await turn();
      if (writes.length > 0) perTurn.push(Buffer.byteLength(writes.splice(0).join('')));
    }
    // "now" -> "<1m" at 10 s, then "1m" ... "5m": six turns, six wakes, six frames.
    expect(clock.fired).toBe(6);
    expect(perTurn).toHaveLength(6);
    // One or two cells of 16 headers, each with its colours: under 1 KB a turn (the whole header lines were 2.6 KB).
    for (const bytes of perTurn) expect(bytes).toBeLessThan(1024);
  });

  it("turns ages without rendering a header, sending only the age fields' cells, and leaves the terminal as a full paint would", async () => {
    const { clock, writes, rendered, first } = dashboard();
    let sent = first;
    const visible: string[] = [];
    rendered.headers = 0;
    for (let s = 1; s <= 300; s++) {
      clock.advance(1_000);
      await turn();
      for (const w of writes.splice(0)) {
        sent += w;
        // The cells of each age field that changed: a move, the header's colours, one to three cells, a reset.
        const moves = w.match(/\x1b\[\d+;\d+H/g) ?? [];
        expect(moves).toHaveLength(16);
        visible.push(w.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, ''));
      }
    }
    // "now" -> "<1m" -> " 1m" -> " 2m" ... " 5m": after the first turn, one cell a header.
    expect(visible).toEqual(['<1m'.repeat(16), ' '.repeat(16), '2'.repeat(16), '3'.repeat(16), '4'.repeat(16), '5'.repeat(16)]);
    expect(clock.fired).toBe(6);
    expect(rendered.headers).toBe(0);
    // What a dashboard painted from scratch now shows, cell for cell.
    const fresh = dashboard(clock.now());
    expect(await terminalAfter(sent)).toEqual(await terminalAfter(fresh.first));
  });

  it('paints in full when more than an age changed since the last paint', async () => {
    const { clock, writes, rendered, setState, getState } = dashboard();
    // The state moved on (an unread letter) and no paint followed it yet: the turn paints it all.
    setState({ ...getState(), rows: getState().rows.map((r, i) => (i === 0 ? { ...r, unread: 1 } : r)) });
    rendered.headers = 0;
    clock.advance(10_000);
    await turn();
    expect(rendered.headers).toBe(16);
    expect(writes.join('')).toContain('✉ 1');
  });
});
