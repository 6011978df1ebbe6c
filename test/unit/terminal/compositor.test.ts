import { Terminal } from '@xterm/headless';
import { afterEach, describe, expect, it } from 'vitest';
import { RowScreen } from '../../../src/rows/row-screen.js';
import { Compositor } from '../../../src/terminal/compositor.js';

const screens: RowScreen[] = [];
afterEach(() => {
  for (const s of screens.splice(0)) s.dispose();
});

function screen(cols: number, rows: number): RowScreen {
  const s = new RowScreen({ cols, rows });
  screens.push(s);
  return s;
}

/** Plays the compositor's output into a real emulator, as the operator's terminal would. */
function outer(cols: number, rows: number) {
  const term = new Terminal({ cols, rows, allowProposedApi: true });
  let bytes = 0;
  const write = (data: string) => {
    bytes += data.length;
    term.write(data);
  };
  const text = () =>
    new Promise<string[]>((resolve) =>
      term.write('', () => {
        const lines: string[] = [];
        for (let y = 0; y < rows; y++) lines.push(term.buffer.active.getLine(y)!.translateToString(true).trimEnd());
        resolve(lines);
      }),
    );
  return { write, text, bytes: () => bytes, term };
}

describe('Compositor', () => {
  it('paints chrome lines and viewports into place, inside synchronized output', async () => {
    const o = outer(20, 6);
    const frames: string[] = [];
    const c = new Compositor((d) => {
      frames.push(d);
      o.write(d);
    });
    const s = screen(20, 3);
    s.write('one\r\ntwo\r\nthree');
    await s.flush();
    c.paintDashboard({ ink: ['HEADER', '', '', '', 'status'], inkTop: 0, segments: [], viewports: [{ key: 'a', rect: { x: 0, y: 1, width: 20, height: 3 }, screen: s }] }, { cols: 20, rows: 6 });
    const lines = await o.text();
    expect(lines.slice(0, 5)).toEqual(['HEADER', 'one', 'two', 'three', 'status']);
    expect(frames[0]!.startsWith('\x1b[?2026h')).toBe(true);
    expect(frames[0]!.endsWith('\x1b[?2026l')).toBe(true);
  });

  it('sends nothing when nothing changed, and only the changed line when one did', async () => {
    const o = outer(20, 6);
    const c = new Compositor(o.write);
    const s = screen(20, 3);
    s.write('one\r\ntwo\r\nthree');
    await s.flush();
    const vp = [{ key: 'a', rect: { x: 0, y: 1, width: 20, height: 3 }, screen: s }];
    const ink = ['HEADER', '', '', '', 'status'];
    c.paintDashboard({ ink: ink, inkTop: 0, segments: [], viewports: vp }, { cols: 20, rows: 6 });
    const afterFirst = o.bytes();
    c.paintDashboard({ ink: ink, inkTop: 0, segments: [], viewports: vp }, { cols: 20, rows: 6 });
    expect(o.bytes()).toBe(afterFirst);
    s.write('\x1b[2;1HTWO');
    await s.flush();
    const painted = c.stats.linesPainted;
    c.paintDashboard({ ink: ink, inkTop: 0, segments: [], viewports: vp }, { cols: 20, rows: 6 });
    expect(c.stats.linesPainted - painted).toBe(1);
    expect((await o.text())[2]).toBe('TWO');
  });

  it('repaints a viewport when chrome overwrote its lines', async () => {
    const o = outer(20, 4);
    const c = new Compositor(o.write);
    const s = screen(20, 2);
    s.write('keep\r\nme');
    await s.flush();
    const vp = [{ key: 'a', rect: { x: 0, y: 1, width: 20, height: 2 }, screen: s }];
    c.paintDashboard({ ink: ['H', '', '', 'S'], inkTop: 0, segments: [], viewports: vp }, { cols: 20, rows: 4 });
    c.paintDashboard({ ink: ['H', 'junk', '', 'S'], inkTop: 0, segments: [], viewports: vp }, { cols: 20, rows: 4 });
    expect((await o.text()).slice(0, 3)).toEqual(['H', 'keep', 'me']);
  });

  it('puts the cursor where the attached program has it', async () => {
    const o = outer(20, 5);
    const c = new Compositor(o.write);
    const s = screen(20, 5);
    s.write('abc\r\nde');
    await s.flush();
    c.paintAttached({ key: 'x', rect: { x: 0, y: 0, width: 20, height: 5 }, screen: s });
    await o.text();
    expect([o.term.buffer.active.cursorX, o.term.buffer.active.cursorY]).toEqual([2, 1]);
  });

  it('paints header segments only when their text changes, and a short Ink frame at the bottom', async () => {
    const o = outer(20, 5);
    const c = new Compositor(o.write);
    const frame = (header: string) => ({ ink: ['status'], inkTop: 4, segments: [{ key: 'h:a', x: 0, y: 0, text: header }], viewports: [] });
    c.paintDashboard(frame('row a'), { cols: 20, rows: 5 });
    const before = c.stats.linesPainted;
    c.paintDashboard(frame('row a'), { cols: 20, rows: 5 });
    expect(c.stats.linesPainted).toBe(before);
    c.paintDashboard(frame('row a ✉ 1'), { cols: 20, rows: 5 });
    expect(c.stats.linesPainted).toBe(before + 1);
    const lines = await o.text();
    expect(lines[0]).toBe('row a ✉ 1');
    expect(lines[4]).toBe('status');
  });

  it('repaints only the rows the emulator reports changed while attached, and everything on a full paint', async () => {
    const o = outer(20, 5);
    const c = new Compositor(o.write);
    const s = screen(20, 5);
    const src = { key: 'x', rect: { x: 0, y: 0, width: 20, height: 5 }, screen: s };
    s.write('one\r\ntwo\r\nthree');
    await s.flush();
    c.paintAttached(src, s.takeDirtyRows());
    s.write('\x1b[2;1HTWO');
    await s.flush();
    const changed = s.takeDirtyRows();
    // The touched row (and where the cursor came from), not the whole screen.
    expect(changed).not.toBe('all');
    expect(changed).toMatchObject({ start: 1 });
    const before = c.stats.linesPainted;
    c.paintAttached(src, changed);
    expect(c.stats.linesPainted - before).toBe(1);
    expect((await o.text()).slice(0, 3)).toEqual(['one', 'TWO', 'three']);
    // A change outside the reported rows waits for the next full paint.
    s.write('\x1b[1;1HONE');
    await s.flush();
    s.takeDirtyRows();
    c.paintAttached(src, { start: 4, end: 4 });
    expect((await o.text())[0]).toBe('one');
    c.paintAttached(src, 'all');
    expect((await o.text())[0]).toBe('ONE');
  });
});

