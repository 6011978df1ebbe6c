// History in two parts: the emulator's own scrollback as cells and older lines spilled as text.
// The text must be what xterm's translateToString(true) gives for the same line, the ring must keep
// exactly its capacity, and nothing may be lost or doubled at the seam, through resizes too.
import { describe, expect, it } from 'vitest';
import xtermHeadless from '@xterm/headless';
import unicode11 from '@xterm/addon-unicode11';
import { RowScreen } from '../../../src/rows/row-screen.js';
import { tapScrollback } from '../../../src/rows/scrollback-tap.js';
import { SpilledHistory, type BufferLineCells } from '../../../src/rows/spilled-history.js';

const { Terminal } = xtermHeadless;

function numbered(from: number, to: number): string {
  let out = '';
  for (let i = from; i < to; i++) out += `line ${i}\r\n`;
  return out;
}

async function screenWith(data: string, opts: { cols: number; rows: number; scrollback: number; emulatorScrollback: number }): Promise<RowScreen> {
  const screen = new RowScreen(opts);
  screen.write(data);
  await screen.flush();
  return screen;
}

describe('SpilledHistory', () => {
  it('reads a line as translateToString(true) does: colours, wide and combined characters, emoji, gaps, written spaces', async () => {
    const terminal = new Terminal({ cols: 30, rows: 12, scrollback: 0, allowProposedApi: true, logLevel: 'off' });
    terminal.loadAddon(new unicode11.Unicode11Addon());
    terminal.unicode.activeVersion = '11';
    const samples = [
      'plain text',
      '\x1b[31mred\x1b[0m \x1b[1;44mbold on blue\x1b[0m',
      '日本語のテキスト',
      'cafe\u0301 and e\u0301\u0302',
      'emoji 😀 ✅ 👍🏽 end',
      'gap\x1b[10Cafter',
      'trailing written spaces   ',
      '\x1b[5Cindented',
      '',
      'x'.repeat(30),
      '\u{1F600}\u{1F600}\u{1F600}',
    ];
    await new Promise<void>((r) => terminal.write(samples.join('\r\n'), r));
    const lines = (terminal as unknown as { _core: { _bufferService: { buffer: { lines: { get(i: number): BufferLineCells } } } } })._core._bufferService.buffer.lines;
    const spilled = new SpilledHistory(100);
    const expected: string[] = [];
    for (let y = 0; y < samples.length; y++) {
      spilled.appendLine(lines.get(y));
      expected.push(terminal.buffer.active.getLine(y)!.translateToString(true));
    }
    expect(spilled.lines()).toEqual(expected);
    expect(expected[4]).toContain('😀');
    terminal.dispose();
  });

  it('keeps exactly its capacity, oldest dropped first, across chunks; gives the newest N; clear empties it', () => {
    const spilled = new SpilledHistory(1000);
    const long = 'y'.repeat(70_000); // longer than a chunk: one of its own
    // Lengths from 2 to 95 units: both ways a line is copied in (unit by unit up to 64, else whole).
    const all = Array.from({ length: 5000 }, (_, i) => (i === 4500 ? long : `${i} ${'x'.repeat(i % 90)}`));
    for (const line of all) spilled.appendText(line);
    const lines = spilled.lines();
    expect(lines).toHaveLength(1000);
    expect(lines).toEqual(all.slice(-1000));
    expect(lines[0]).toBe(`4000 ${'x'.repeat(4000 % 90)}`);
    expect(lines[500]).toBe(long);
    expect(lines[999]).toBe(`4999 ${'x'.repeat(4999 % 90)}`);
    // Asked for fewer, it gives the newest (and decodes only those).
    expect(spilled.lines(3)).toEqual(lines.slice(-3));
    expect(spilled.lines(0)).toEqual([]);
    spilled.clear();
    expect(spilled.lines()).toEqual([]);
    spilled.appendText('again');
    expect(spilled.lines()).toEqual(['again']);
  });


  it('keeps Latin-1 text one byte a unit and widens a chunk in place at its first wider unit, short and long lines alike', () => {
    const spilled = new SpilledHistory(5000);
    const latin = Array.from({ length: 900 }, (_, i) => `${i} café Ü ÿ ${'x'.repeat(i % 90)}`);
    for (const line of latin) spilled.appendText(line);
    // Every unit fits a byte: one chunk of CHUNK_UNITS bytes, not twice that.
    expect(spilled.heldBytes).toBe(64 * 1024);
    const wide = ['box ─ short', `long ${'─'.repeat(100)} end`, 'emoji 😀 and 日本語'];
    for (const line of wide) spilled.appendText(line);
    const after = Array.from({ length: 50 }, (_, i) => `after ${i} é ${'y'.repeat(i * 3)}`);
    for (const line of after) spilled.appendText(line);
    spilled.appendAsciiLines(Buffer.from('bytes one\r\nbytes two\r\n', 'latin1'));
    expect(spilled.lines()).toEqual([...latin, ...wide, ...after, 'bytes one', 'bytes two']);
    expect(spilled.heldBytes).toBe(2 * 64 * 1024);
    // A long first line that needs two bytes widens its fresh chunk before set() copies it.
    const fresh = new SpilledHistory(10);
    fresh.appendText(`${'Ω'.repeat(80)}`);
    fresh.appendText('plain');
    expect(fresh.lines()).toEqual(['Ω'.repeat(80), 'plain']);
  });

  it('takes ASCII lines ended by CR LF as appendText takes each: empty, short, long, a chunk of its own', () => {
    const all = ['', 'a', `b ${'x'.repeat(80)}`, '', 'y'.repeat(70_000), 'last'];
    const fromBytes = new SpilledHistory(10);
    fromBytes.appendText('before');
    fromBytes.appendAsciiLines(Buffer.from(all.map((line) => `${line}\r\n`).join(''), 'latin1'));
    expect(fromBytes.lines()).toEqual(['before', ...all]);
  });
  it('finds the scroll hook on the installed @xterm/headless', () => {
    const terminal = new Terminal({ cols: 20, rows: 5, scrollback: 10, allowProposedApi: true });
    const tap = tapScrollback(terminal, () => undefined);
    expect(tap).not.toBeNull();
    tap!.dispose();
    terminal.dispose();
  });
});

describe('RowScreen history beyond the emulator', () => {
  it('keeps the whole history as text: spilled lines, then the emulator’s, in order, none twice', async () => {
    const screen = await screenWith(numbered(0, 1000), { cols: 40, rows: 10, scrollback: 300, emulatorScrollback: 20 });
    expect(screen.buffer.length).toBe(30); // the emulator holds 20 of history and the screen
    const history = screen.historyLines();
    expect(history).toEqual(Array.from({ length: 309 }, (_, i) => `line ${691 + i}`));
    screen.dispose();
  });

  it('loses nothing through resizes, narrower, shorter, taller and wider', async () => {
    const screen = await screenWith(numbered(0, 400), { cols: 40, rows: 10, scrollback: 300, emulatorScrollback: 20 });
    for (const [cols, rows] of [[20, 5], [12, 3], [60, 15], [30, 8], [40, 10]] as const) {
      screen.resize(cols, rows);
      screen.write(numbered(1000 + cols, 1000 + cols + 3));
      await screen.flush();
    }
    const history = screen.historyLines().filter((l) => l !== '');
    const expected = [
      ...Array.from({ length: 400 }, (_, i) => `line ${i}`),
      ...[20, 12, 60, 30, 40].flatMap((c) => [0, 1, 2].map((k) => `line ${1000 + c + k}`)),
    ];
    // A suffix of everything written, in order, at least a whole history deep.
    expect(history.length).toBeGreaterThanOrEqual(300);
    expect(history.length).toBeLessThanOrEqual(310);
    expect(history).toEqual(expected.slice(expected.length - history.length));
    screen.dispose();
  });

  it('clear scrollback (ED 3) and a full reset (RIS) clear the spilled part too', async () => {
    const screen = await screenWith(numbered(0, 200), { cols: 40, rows: 5, scrollback: 100, emulatorScrollback: 10 });
    expect(screen.historyLines().length).toBeGreaterThan(100);
    screen.write('\x1b[3J');
    await screen.flush();
    expect(screen.historyLines()).toEqual(['line 196', 'line 197', 'line 198', 'line 199']);
    screen.write(numbered(300, 400) + '\x1bc' + 'fresh');
    await screen.flush();
    expect(screen.historyLines()).toEqual(['fresh']);
    screen.dispose();
  });

  it('a full-screen program’s scrolling on the alternate screen never enters history', async () => {
    const screen = await screenWith(numbered(0, 50), { cols: 40, rows: 5, scrollback: 100, emulatorScrollback: 10 });
    const before = screen.historyLines();
    screen.write('\x1b[?1049h' + numbered(500, 700) + '\x1b[?1049l');
    await screen.flush();
    expect(screen.historyLines()).toEqual(before);
    screen.dispose();
  });
});
