import unicode11 from '@xterm/addon-unicode11';
import { Terminal, type IBuffer, type IBufferCell } from '@xterm/headless';
import { afterEach, describe, expect, it } from 'vitest';
import { seededRandom } from '../../helpers/seeded-random.js';
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
  // Widths as the rows have them (RowScreen loads Unicode 11), as a modern terminal draws them.
  term.loadAddon(new unicode11.Unicode11Addon());
  term.unicode.activeVersion = '11';
  let bytes = 0;
  /** Each write the compositor made, in order (tests clear it to look at the next ones). */
  const frames: string[] = [];
  const write = (data: string) => {
    bytes += data.length;
    frames.push(data);
    term.write(data);
  };
  const text = () =>
    new Promise<string[]>((resolve) =>
      term.write('', () => {
        const lines: string[] = [];
        const b = term.buffer.active;
        for (let y = 0; y < term.rows; y++) lines.push(b.getLine(b.baseY + y)!.translateToString(true).trimEnd());
        resolve(lines);
      }),
    );
  return { write, text, bytes: () => bytes, term, frames };
}

describe('Compositor', () => {
  it('paints chrome lines and viewports into place, inside synchronized output', async () => {
    const o = outer(20, 6);
    const { frames } = o;
    const c = new Compositor(o.write);
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

  it("patches a segment's cells only while the terminal shows the text the patch was made from", async () => {
    const o = outer(20, 3);
    const c = new Compositor(o.write);
    const header = (age: string) => ({ key: 'h:a', x: 0, y: 0, text: `\x1b[0;1mrow a ${age}\x1b[0m` });
    c.paintDashboard({ ink: [], inkTop: 2, segments: [header('now')], viewports: [] }, { cols: 20, rows: 3 });
    o.frames.length = 0;
    // Made from another text than the one painted: refused, nothing sent.
    expect(c.patchSegments([{ segment: header(' 2m'), was: header('<1m').text, offset: 6, span: '\x1b[0;1m 2m\x1b[0m' }])).toBe(false);
    expect(o.frames).toEqual([]);
    expect(c.patchSegments([{ segment: header('<1m'), was: header('now').text, offset: 6, span: '\x1b[0;1m<1m\x1b[0m' }])).toBe(true);
    expect(o.frames).toEqual(['\x1b[?2026h\x1b[1;7H\x1b[0;1m<1m\x1b[0m\x1b[?2026l']);
    expect((await o.text())[0]).toBe('row a <1m');
    // Its text is now the patched one: a paint of that text sends nothing more.
    c.paintDashboard({ ink: [], inkTop: 2, segments: [header('<1m')], viewports: [] }, { cols: 20, rows: 3 });
    expect(o.frames).toHaveLength(1);
    // A clear is due: refused.
    c.invalidate();
    expect(c.patchSegments([{ segment: header(' 1m'), was: header('<1m').text, offset: 6, span: '\x1b[0;1m 1m\x1b[0m' }])).toBe(false);
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

  it('sends a keystroke\u2019s echo as the changed cells only, not the whole line again', async () => {
    const o = outer(200, 10);
    const { frames } = o;
    const c = new Compositor(o.write);
    const s = screen(200, 10);
    const src = { key: 'x', rect: { x: 0, y: 0, width: 200, height: 10 }, screen: s };
    s.write('\x1b[1;32muser@host\x1b[0m:\x1b[34m~/work\x1b[0m$ ');
    await s.flush();
    c.paintAttached(src, 'all');
    s.write('l');
    await s.flush();
    frames.length = 0;
    c.paintAttached(src, s.takeDirtyRows());
    expect(frames).toHaveLength(1);
    // The cell, its place and the cursor: no 200 columns of line.
    expect(frames[0]!.length).toBeLessThan(50);
    expect(frames[0]).toContain('l');
    s.write('s');
    await s.flush();
    c.paintAttached(src, s.takeDirtyRows());
    expect((await o.text())[0]).toBe('user@host:~/work$ ls');
    expectSameCells(o.term.buffer.active, s.buffer, 200, 10);
    // A full paint with nothing new sends nothing.
    frames.length = 0;
    c.paintAttached(src, 'all');
    expect(frames.join('')).not.toContain('ls');
  });

  it('sees a combined character replaced by another in the same cell (the cell words are equal; the text is aside)', async () => {
    const o = outer(10, 2);
    const c = new Compositor(o.write);
    const s = screen(10, 2);
    const src = { key: 'x', rect: { x: 0, y: 0, width: 10, height: 2 }, screen: s };
    s.write('e\u0301!');
    await s.flush();
    c.paintAttached(src, 'all');
    expect((await o.text())[0]).toBe('e\u0301!');
    s.write('\x1b[1;1Ha\u0308');
    await s.flush();
    c.paintAttached(src, s.takeDirtyRows());
    expect((await o.text())[0]).toBe('a\u0308!');
    s.write('\x1b[1;1Ho\u0303');
    await s.flush();
    c.paintAttached(src, 'all');
    expect((await o.text())[0]).toBe('o\u0303!');
  });

  it('fuzz: attached partial and full paints leave the terminal cell for cell like the row (colours, wide and combined characters, erases, inserts, scrolls, resizes, echoes sent ahead)', async () => {
    let aheads = 0;
    for (let seed = 1; seed <= 60; seed++) {
      const rand = seededRandom(seed);
      const pick = <T,>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
      let cols = 12 + Math.floor(rand() * 20);
      let rows = 3 + Math.floor(rand() * 5);
      const o = outer(cols, rows);
      const c = new Compositor(o.write);
      const s = screen(cols, rows);
      const src = () => ({ key: 'x', rect: { x: 0, y: 0, width: cols, height: rows }, screen: s });
      const pieces = [
        'a', 'bc', 'xyz ', ' ', '\u4e2d', '\u6587', '\ud83d\ude00', 'e\u0301', 'a\u0308', 'o\u0303\u0323', '\ud83d\udc4d\ud83c\udffd', '\u00e9', '\x1b[D\x1b[D',
        '\x1b[31m', '\x1b[1;44m', '\x1b[38;5;200m', '\x1b[48;2;10;20;30m', '\x1b[7m', '\x1b[0m', '\x1b[4m',
        '\r', '\n', '\b', '\t', '\x1b[K', '\x1b[1K', '\x1b[2K', '\x1b[J', '\x1b[2@', '\x1b[3P', '\x1b[2X',
        '\x1b[H', '\x1b[2;5H', '\x1b[C', '\x1b[3D', '\x1b[A', '\x1b[L', '\x1b[M', '\x1b[S', '\x1b[T', '\x1b[4h', '\x1b[4l',
        '\x1b[2;3r', '\x1b[r', '\x1b[?1049h', '\x1b[?1049l', '\x1b[?7l', '\x1b[?7h',
      ];
      const typed = ['a', 'ls', ' ', 'xyz', 'hello world', '~/$', 'q', 'B0', '[A'];
      const paint = (full: boolean) => {
        const dirty = s.takeDirtyRows();
        c.paintAttached(src(), full ? 'all' : dirty);
      };
      paint(true);
      for (let step = 0; step < 120; step++) {
        let chunk = '';
        const n = 1 + Math.floor(rand() * 4);
        for (let i = 0; i < n; i++) chunk += pick(pieces);
        // Half the time the chunk is typed text, which may go out ahead of the emulator.
        if (rand() < 0.5) chunk = pick(typed);
        const cursorLine = s.buffer.cursorY;
        const ahead = c.echoAhead('x', s, Buffer.from(chunk));
        if (ahead) aheads++;
        s.write(chunk);
        await s.flush();
        const resize = rand() < 0.04;
        if (resize) {
          // The row and the operator's terminal take a new size together, as an attach does.
          cols = 8 + Math.floor(rand() * 24);
          rows = 2 + Math.floor(rand() * 6);
          s.resize(cols, rows);
          o.term.resize(cols, rows);
          c.invalidate();
        }
        const full = rand() < 0.2;
        paint(full);
        if (ahead && !full && !resize) {
          // A partial paint compares the line the echo went ahead on, reported changed or not.
          await o.text();
          expectSameCells(o.term.buffer.active, s.buffer, cols, rows, `seed ${seed}, step ${step}, echoed ahead ${JSON.stringify(chunk)}`, cursorLine);
        }
        if (full) {
          await o.text();
          expectSameCells(o.term.buffer.active, s.buffer, cols, rows, `seed ${seed}, step ${step}`);
        }
      }
      paint(true);
      await o.text();
      expectSameCells(o.term.buffer.active, s.buffer, cols, rows, `seed ${seed}, end`);
    }
    // The fuzz reached the echo-ahead path often, not only its refusals.
    expect(aheads).toBeGreaterThan(200);
  });

  describe('echoAhead', () => {
    async function prompt(cols = 40, rows = 4) {
      const o = outer(cols, rows);
      const { frames } = o;
      const c = new Compositor(o.write);
      const s = screen(cols, rows);
      const src = { key: 'x', rect: { x: 0, y: 0, width: cols, height: rows }, screen: s };
      s.write('\x1b[1;32m$\x1b[0m ');
      await s.flush();
      c.paintAttached(src, 'all');
      await o.text();
      const after = async (chunk: string) => {
        s.write(chunk);
        await s.flush();
        c.paintAttached(src, s.takeDirtyRows());
        await o.text();
      };
      /** `ahead` goes to the terminal ahead of the emulator, then the program's `output` is parsed and painted. */
      const aheadThen = async (ahead: string, output: string) => {
        expect(c.echoAhead('x', s, Buffer.from(ahead)), JSON.stringify(ahead)).toBe(true);
        await after(output);
      };
      return { o, c, s, src, frames, after, aheadThen };
    }

    it('puts typed text on the terminal before the emulator parsed it, and the paint after agrees', async () => {
      const { o, c, s, frames, after, aheadThen } = await prompt();
      frames.length = 0;
      expect(c.echoAhead('x', s, Buffer.from('l'))).toBe(true);
      // On the terminal already; the row's screen has not seen it yet.
      expect((await o.text())[0]).toBe('$ l');
      expect(s.buffer.getLine(0)!.translateToString(true)).toBe('$ ');
      expect(frames).toHaveLength(1);
      expect(frames[0]!.length).toBeLessThan(10);
      await after('l');
      await aheadThen('s -la', 's -la');
      expect((await o.text())[0]).toBe('$ ls -la');
      expect([o.term.buffer.active.cursorX, o.term.buffer.active.cursorY]).toEqual([8, 0]);
      expectSameCells(o.term.buffer.active, s.buffer, 40, 4);
      expect(c.stats.echoesAhead).toBe(2);
    });

    it("the key relay's echo: echoColumns says how much may go ahead where echoAhead could, echoedAhead records what went, and the paint after the parse sends nothing", async () => {
      const { o, c, s, frames, after } = await prompt(10, 3);
      // "$ " takes 2 of 10 columns: anything shorter than 8 fits before the last.
      expect(c.echoColumns('x', s)).toBe(8);
      expect(c.echoColumns('y', s)).toBeNull();
      // The thread wrote it onto the terminal (the row's screen has not seen it yet).
      o.write('\x1b[0mls');
      c.echoedAhead('x', s, Buffer.from('ls'));
      expect(c.stats.echoesAhead).toBe(1);
      // Not sent again when the row gets it, nor armed again before a paint.
      expect(c.echoAhead('x', s, Buffer.from('ls'))).toBe(false);
      expect(c.echoColumns('x', s)).toBeNull();
      frames.length = 0;
      await after('ls');
      expect(frames).toEqual([]);
      expectSameCells(o.term.buffer.active, s.buffer, 10, 3);
      expect([o.term.buffer.active.cursorX, o.term.buffer.active.cursorY]).toEqual([4, 0]);
      expect(c.echoColumns('x', s)).toBe(6);
    });

    it("the key relay's echo landing after something else was written: the cell and the cursor are not assumed, and the next paint puts both right", async () => {
      const { o, c, s, src, after } = await prompt(10, 3);
      expect(c.echoColumns('x', s)).toBe(8);
      o.write('\x1b[0ma');
      // A status line was painted (and the cursor put back where the compositor believed it) before the echo landed.
      c.paintAttached(src, 'none', { y: 2, line: 'status' });
      c.echoedAhead('x', s, Buffer.from('a'));
      await after('a');
      expectSameCells(o.term.buffer.active, s.buffer, 10, 2);
      expect([o.term.buffer.active.cursorX, o.term.buffer.active.cursorY]).toEqual([3, 0]);
    });

    it('sends nothing after the parse when the program printed just what went ahead, and moves the cursor when it moved', async () => {
      const { o, c, s, frames, after } = await prompt();
      expect(c.echoAhead('x', s, Buffer.from('ls'))).toBe(true);
      frames.length = 0;
      await after('ls');
      // The cells match what went ahead and the terminal's cursor is already after them.
      expect(frames).toEqual([]);
      // A move of the cursor alone (no cell changed) is still sent.
      await after('\x1b[D');
      expect(frames).toHaveLength(1);
      expect([o.term.buffer.active.cursorX, o.term.buffer.active.cursorY]).toEqual([3, 0]);
      // Parsed since the last paint and not painted yet (the cursor moved back again): nothing
      // goes ahead, since where the program's cursor is now is not where the terminal's is.
      s.write('\x1b[D');
      await s.flush();
      expect(s.settled).toBe(true);
      expect(c.echoAhead('x', s, Buffer.from('a'))).toBe(false);
      c.paintAttached({ key: 'x', rect: { x: 0, y: 0, width: 40, height: 4 }, screen: s }, s.takeDirtyRows());
      expect(c.echoAhead('x', s, Buffer.from('a'))).toBe(true);
      frames.length = 0;
      await after('a');
      expect(frames).toEqual([]);
      expect((await o.text())[0]).toBe('$ as');
      expectSameCells(o.term.buffer.active, s.buffer, 40, 4);
      expect([o.term.buffer.active.cursorX, o.term.buffer.active.cursorY]).toEqual([3, 0]);
    });

    it('refuses what could mean more than printing at the cursor: control bytes, escapes, non-ASCII, the last column, a parser inside a sequence, unparsed output, a hidden cursor, another viewport', async () => {
      const { c, s, src, after, aheadThen } = await prompt(10, 3);
      for (const chunk of ['\r', '\x1b[31m', 'caf\u00e9', 'a\nb', '\x7f']) expect(c.echoAhead('x', s, Buffer.from(chunk)), JSON.stringify(chunk)).toBe(false);
      expect(c.echoAhead('y', s, Buffer.from('a'))).toBe(false);
      expect(c.echoAhead('x', s, Buffer.alloc(0))).toBe(false);
      // "$ " is 2 columns of 10: 7 more fit before the last column, 8 would reach it.
      expect(c.echoAhead('x', s, Buffer.from('12345678'))).toBe(false);
      expect(c.echoAhead('x', s, Buffer.from('x'.repeat(65)))).toBe(false);
      // Output written but not parsed yet: the cursor the compositor knows may be stale.
      s.write('z');
      expect(s.settled).toBe(false);
      expect(c.echoAhead('x', s, Buffer.from('a'))).toBe(false);
      await s.flush();
      c.paintAttached(src, s.takeDirtyRows());
      // A sequence begun and not finished: "31m" would be its end, not text.
      s.write('\x1b[');
      await s.flush();
      expect(s.settled).toBe(false);
      expect(c.echoAhead('x', s, Buffer.from('31m'))).toBe(false);
      await after('31m');
      await aheadThen('a', 'a');
      // The program hid its cursor: where the terminal's is, is not known.
      await after('\x1b[?25l');
      expect(c.echoAhead('x', s, Buffer.from('a'))).toBe(false);
      await after('\x1b[?25h');
      await aheadThen('a', 'a');
      // A dashboard frame (or anything else) since the attached paint: not known either.
      c.invalidate();
      expect(c.echoAhead('x', s, Buffer.from('a'))).toBe(false);
    });

    it('is put right by the next paint when the program meant something else: other colours, insert mode, line drawing, or no text at all', async () => {
      const { o, c, s, after, aheadThen } = await prompt(30, 3);
      await after('abcdef\x1b[4D');
      // Colours the terminal was not told of yet.
      await after('\x1b[1;31m');
      await aheadThen('RED', 'RED\x1b[0m');
      // The DEC line-drawing set: "qqq" is three horizontal lines.
      await after('\x1b(0');
      await aheadThen('qqq', 'qqq\x1b(B\x1b[3D');
      // Insert mode: the rest of the line moves right instead of being overwritten.
      await after('\x1b[4h');
      await aheadThen('ins', 'ins\x1b[4l');
      expectSameCells(o.term.buffer.active, s.buffer, 30, 3);
      expect((await o.text())[0]).toBe('$ abREDins\u2500\u2500\u2500');
      // Text sent ahead that the program never printed (a mode change came instead): the paint
      // after takes it away.
      expect(c.echoAhead('x', s, Buffer.from('oops'))).toBe(true);
      expect((await o.text())[0]).toContain('oops');
      await after('\x1b[?2004h');
      expect((await o.text())[0]).not.toContain('oops');
      expectSameCells(o.term.buffer.active, s.buffer, 30, 3);
    });
  });
});

/** Every visible cell of the operator's terminal equals the row's: character, width, colours and attributes. */
function expectSameCells(shown: IBuffer, row: IBuffer, cols: number, rows: number, where = '', only?: number): void {
  const a = shown.getNullCell();
  const b = row.getNullCell();
  // xterm can leave half a wide character behind: a right half whose left half was deleted (CSI P)
  // shows as a blank and is painted as one; a left half whose right half was overwritten still
  // covers the next cell, whatever that holds. A wide character in the last column (autowrap off)
  // has no room and is painted as a blank. All are compared as what shows.
  const describe = (cell: IBufferCell, orphan: boolean, covered: boolean, last = false) =>
    covered ? 'covered' : `${JSON.stringify(last && cell.getWidth() === 2 ? ' ' : cell.getChars() || ' ')}/${orphan || (last && cell.getWidth() === 2) ? 1 : cell.getWidth()} fg${cell.getFgColorMode()}:${cell.getFgColor()} bg${cell.getBgColorMode()}:${cell.getBgColor()} ` +
    [cell.isBold(), cell.isItalic(), cell.isUnderline(), cell.isInverse(), cell.isDim(), cell.isStrikethrough()].map((f) => (f ? 1 : 0)).join('');
  for (let y = only ?? 0; y < (only === undefined ? rows : only + 1); y++) {
    const sl = shown.getLine(shown.baseY + y)!;
    const rl = row.getLine(row.baseY + y)!;
    const got: string[] = [];
    const want: string[] = [];
    let shownWidth = 1;
    let rowWidth = 1;
    for (let x = 0; x < cols; x++) {
      const sc = sl.getCell(x, a)!;
      const rc = rl.getCell(x, b)!;
      got.push(describe(sc, sc.getWidth() === 0 && shownWidth !== 2, shownWidth === 2, x === cols - 1));
      want.push(describe(rc, rc.getWidth() === 0 && rowWidth !== 2, rowWidth === 2, x === cols - 1));
      shownWidth = sc.getWidth();
      rowWidth = rc.getWidth();
    }
    expect(got, `${where} line ${y}`).toEqual(want);
  }
}
