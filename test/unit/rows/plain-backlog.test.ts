import { describe, expect, it } from 'vitest';
import xtermHeadless from '@xterm/headless';
import type { IBuffer, Terminal } from '@xterm/headless';
import unicode11 from '@xterm/addon-unicode11';
import { applyPlainCut, findPlainCut, isPlainByte, scanPlain } from '../../../src/rows/plain-backlog.js';
import { RowScreen } from '../../../src/rows/row-screen.js';
import type { ParseClient } from '../../../src/rows/parse-scheduler.js';
import { probeEmulator } from '../../../src/rows/xterm-state.js';
import { seededRandom } from '../../helpers/seeded-random.js';
import { waitUntil } from '../../helpers/wait-until.js';

const { Terminal: HeadlessTerminal } = xtermHeadless;
const bytes = (text: string) => Buffer.from(text, 'latin1');
const text = (chunks: Uint8Array[]) => Buffer.concat(chunks).toString('latin1');
const lines = (from: number, to: number) => {
  let out = '';
  for (let i = from; i <= to; i++) out += `${i}\r\n`;
  return out;
};

describe('scanPlain', () => {
  it('counts CR LF pairs, including one split across chunks', () => {
    expect(scanPlain(bytes('a\r\nb\r\n'), -1)).toEqual({ plain: true, lineEnds: 2 });
    expect(scanPlain(bytes('\nb\n'), 0x0d)).toEqual({ plain: true, lineEnds: 1 });
    expect(scanPlain(bytes('a\tb\r'), -1)).toEqual({ plain: true, lineEnds: 0 });
  });

  it('stops at escape sequences, other controls and non-ASCII bytes', () => {
    for (const sample of ['a\x1b[0m', 'a\x07', 'a\x08', 'caf\xc3\xa9', 'a\x7f', '\x9b1m']) {
      expect(scanPlain(bytes(sample), -1).plain, JSON.stringify(sample)).toBe(false);
    }
    expect([0x09, 0x0a, 0x0d, 0x20, 0x7e].every(isPlainByte)).toBe(true);
    expect([0x00, 0x07, 0x1b, 0x7f, 0x80, 0x9b, 0xc3].some(isPlainByte)).toBe(false);
  });
});

describe('findPlainCut', () => {
  it('cuts from after the first CR LF to where exactly keepLines line ends remain', () => {
    const chunks = [bytes(lines(1, 40)), bytes(lines(41, 100))];
    const cut = findPlainCut(chunks, 10, 1);
    expect(cut).not.toBeNull();
    const kept = applyPlainCut(chunks, cut!, (c) => c.length, (c, s, e) => c.subarray(s, e));
    expect(text(kept)).toBe(`1\r\n${lines(91, 100)}`);
    expect(cut!.bytes).toBe(Buffer.byteLength(lines(2, 90)));
  });

  it('finds a CR LF split across chunks at either end of the cut', () => {
    const chunks = [bytes('a\r'), bytes('\nb\r\nc\r'), bytes('\nd\r\ne\r\n')];
    const cut = findPlainCut(chunks, 2, 1)!;
    const kept = applyPlainCut(chunks, cut, (c) => c.length, (c, s, e) => c.subarray(s, e));
    expect(text(kept)).toBe('a\r\nd\r\ne\r\n');
  });

  it('ignores a line end whose CR is not in the backlog (it may belong to a sequence already parsed)', () => {
    const cut = findPlainCut([bytes('\nx\r\n' + lines(1, 20))], 5, 1)!;
    expect(cut.from).toEqual({ index: 0, offset: 4 });
  });

  it('keeps everything when the tail would be too short, the cut too small, or the tail has nothing printable', () => {
    expect(findPlainCut([bytes(lines(1, 10))], 10, 1)).toBeNull();
    expect(findPlainCut([bytes(lines(1, 30))], 10, 10_000)).toBeNull();
    expect(findPlainCut([bytes(lines(1, 30) + '\r\n'.repeat(12))], 10, 1)).toBeNull();
    expect(findPlainCut([bytes('no line end at all')], 0, 1)).toBeNull();
  });
});

describe('probeEmulator', () => {
  it('finds the parser and buffer state on the installed @xterm/headless', async () => {
    // If this fails after an xterm upgrade, fast-forward is silently off: update xterm-state.ts.
    const terminal = new HeadlessTerminal({ cols: 20, rows: 5, scrollback: 10, allowProposedApi: true });
    const probe = probeEmulator(terminal);
    expect(probe).not.toBeNull();
    const write = (data: string) => new Promise<void>((resolve) => terminal.write(data, resolve));
    expect(probe!.atGround()).toBe(true);
    expect(probe!.scrollsWholeScreen()).toBe(true);
    await write('\x1b]0;unterminated title');
    expect(probe!.atGround()).toBe(false);
    await write('\x07\x1b[2;4r');
    expect(probe!.atGround()).toBe(true);
    expect(probe!.scrollsWholeScreen()).toBe(false);
    await write('\x1b[r\x1b[?1049h');
    expect(probe!.scrollsWholeScreen()).toBe(false);
    await write('\x1b[?1049l');
    expect(probe!.scrollsWholeScreen()).toBe(true);
    // Charsets: DEC graphics in G0, then a UK set in G1 shifted in (SO), then US ASCII again.
    expect(probe!.asciiCharset()).toBe(true);
    await write('\x1b(0');
    expect(probe!.asciiCharset()).toBe(false);
    await write('\x1b(B\x1b)A\x0e');
    expect(probe!.asciiCharset()).toBe(false);
    await write('\x0f');
    expect(probe!.asciiCharset()).toBe(true);
    terminal.dispose();
  });
});

// --- equivalence with a full parse ----------------------------------------------------------------

/** Runs parse turns only when the test says so, so backlogs build up and cuts happen. */
class ManualScheduler {
  private clients: ParseClient[] = [];
  request(client: ParseClient): void {
    this.clients.push(client);
  }
  run(budget: number): void {
    const clients = this.clients;
    this.clients = [];
    for (const client of clients) client.feed(budget);
  }
}

/**
 * What a buffer shows or keeps as cells: its last `lines` lines (default all: history and screen),
 * cell by cell, and the cursor.
 */
function dump(buffer: IBuffer, lines = buffer.length): string {
  const from = Math.max(0, buffer.length - lines);
  const out: string[] = [`type=${buffer.type} lines=${buffer.length - from} cur=${buffer.cursorX},${buffer.cursorY}`];
  const cell = buffer.getNullCell();
  for (let y = from; y < buffer.length; y++) {
    const line = buffer.getLine(y)!;
    const cells: string[] = [];
    for (let x = 0; x < line.length; x++) {
      line.getCell(x, cell);
      cells.push(
        `${cell.getChars()}|${cell.getWidth()}|${cell.getFgColorMode()}:${cell.getFgColor()}|${cell.getBgColorMode()}:${cell.getBgColor()}|` +
          `${cell.isBold()}${cell.isItalic()}${cell.isDim()}${cell.isUnderline()}${cell.isInverse()}${cell.isInvisible()}`,
      );
    }
    out.push(`${line.isWrapped ? 'W' : '-'} ${cells.join(' ')}`);
  }
  return out.join('\n');
}

/** The normal buffer's lines as text, trailing empty lines dropped: what RowScreen.historyLines gives. */
function historyText(terminal: Terminal): string[] {
  const b = terminal.buffer.normal;
  const out: string[] = [];
  for (let i = 0; i < b.length; i++) out.push(b.getLine(i)!.translateToString(true));
  while (out.length > 0 && out[out.length - 1] === '') out.pop();
  return out;
}

function randomLine(rand: () => number, cols: number): string {
  const length = Math.floor(rand() * rand() * cols * 2.5);
  let line = '';
  for (let i = 0; i < length; i++) line += rand() < 0.03 ? '\t' : String.fromCharCode(0x20 + Math.floor(rand() * 95));
  return line;
}

function simpleLine(rand: () => number, cols: number): string {
  const length = Math.floor(rand() * (cols + 1));
  let line = '';
  for (let i = 0; i < length; i++) line += String.fromCharCode(0x20 + Math.floor(rand() * 95));
  return line;
}

/** A plain line that a full parse does not put into history as its own bytes, one line each. */
function notQuiteSimple(rand: () => number, cols: number): string {
  const text = simpleLine(rand, cols);
  const cases = [
    `${text}${'w'.repeat(cols + 1 - text.length)}\r\n`, // wraps
    `${text}\rCR\r\n`, // a lone CR: printed over
    `${text}\tTAB\r\n`,
    `${text}\n`, // a lone LF: the next line starts where this one ended
  ];
  return cases[Math.floor(rand() * cases.length)]!;
}

const SEQUENCES = [
  '\x1b[31m', '\x1b[1;44m', '\x1b[0m', '\x1b[H', '\x1b[5A', '\x1b[3;2H', '\x1b[2J', '\x1b[K', '\x1b[2;4r', '\x1b[r',
  '\x1b[?1049h', '\x1b[?1049l', '\x1b[?7l', '\x1b[?7h', '\x1b[20h', '\x1b[20l', '\x1b[4h', '\x1b[4l', '\x1b7', '\x1b8',
  '\x1bM', '\x1b[3b', '\x1b(0', '\x1b(B', 'caf\xc3\xa9 \xe6\x97\xa5\r\n', '\x07', '\r', '\n', '\x1b[6n',
  // For the history spilled as text: a combining mark, a character outside the BMP, ED 3, RIS.
  'e\xcc\x81 \xf0\x9f\x98\x80\r\n', '\x1b[3J', '\x1bc',
];

/**
 * A stream of long plain floods with escape sequences between them, some of which leave state a
 * cut must respect (cursor moved up, scroll region, alternate screen, an open title or DCS string
 * whose payload is itself a flood of lines). Returned as segments so the test can let the parser
 * finish a segment before the next is queued.
 */
function randomSegments(rand: () => number, cols: number): string[] {
  const segments: string[] = [];
  const flood = (count: number) => {
    let out = '';
    // Half the floods are simple lines (printable ASCII no wider than the screen, CR LF), the
    // kind whose history is taken as text; in some, now and then a line that is not.
    const simple = rand() < 0.5;
    const odd = [0, 0.01, 0.05][Math.floor(rand() * 3)]!;
    for (let i = 0; i < count; i++) {
      if (!simple) out += randomLine(rand, cols) + (rand() < 0.02 ? '\n' : '\r\n');
      else if (rand() >= odd) out += simpleLine(rand, cols) + '\r\n';
      else out += notQuiteSimple(rand, cols);
    }
    return out;
  };
  const count = 3 + Math.floor(rand() * 8);
  for (let s = 0; s < count; s++) {
    const kind = rand();
    if (kind < 0.4) {
      segments.push(flood(Math.floor(rand() * 4000)));
    } else if (kind < 0.55) {
      // A title or DCS string whose payload looks like a flood: not text, must not be cut.
      segments.push(rand() < 0.5 ? '\x1b]0;' : '\x1bPq');
      let payload = '';
      const lines = 1500 + Math.floor(rand() * 3000);
      for (let i = 0; i < lines; i++) payload += `${i}\r\n`;
      segments.push(payload, rand() < 0.5 ? '\x07' : '\x1b\\');
    } else if (kind < 0.7) {
      // State a cut must respect, then a flood.
      const states = ['\x1b[H', '\x1b[2J\x1b[H', '\x1b[2;4r', '\x1b[?1049h', '\x1b[5A', '\x1b[1;2r\x1b[H', '\x1b[1;2r\x1b[9;1H'];
      const state = states[Math.floor(rand() * states.length)]!;
      segments.push(state, flood(1500 + Math.floor(rand() * 3000)));
    } else {
      let out = '';
      const n = 1 + Math.floor(rand() * 6);
      for (let i = 0; i < n; i++) out += SEQUENCES[Math.floor(rand() * SEQUENCES.length)]!;
      segments.push(out);
    }
  }
  // Compare the normal buffer with everything reset that would hide it.
  segments.push('\x1b\\\x07\x1b[?1049l\x1b[r\x1b[?7h\x1b[4l\x1b[20l');
  return segments;
}

function writeAll(terminal: Terminal, data: Uint8Array): Promise<void> {
  return new Promise((resolve) => terminal.write(data, resolve));
}

describe('fast-forward through plain floods', () => {
  it('leaves screen and history exactly as a full parse does (random streams, random chunks and turns)', async () => {
    let casesCut = 0;
    let bytesCut = 0;
    let casesSpilled = 0;
    for (let seed = 1; seed <= 120; seed++) {
      const rand = seededRandom(seed);
      const cols = 8 + Math.floor(rand() * 40);
      const rows = 2 + Math.floor(rand() * 8);
      const scrollback = rand() < 0.15 ? 0 : Math.floor(rand() * 60);
      const segments = randomSegments(rand, cols).map(bytes);

      const reference = new HeadlessTerminal({ cols, rows, scrollback, allowProposedApi: true, logLevel: 'off' });
      // Character widths as a row counts them (an emoji is two cells).
      reference.loadAddon(new unicode11.Unicode11Addon());
      reference.unicode.activeVersion = '11';
      let referenceTitle = '';
      reference.onTitleChange((title) => (referenceTitle = title));
      await writeAll(reference, Buffer.concat(segments));

      const scheduler = new ManualScheduler();
      // The emulator keeps part of the history as cells, the rest is spilled as text.
      const emulatorScrollback = Math.floor(rand() * (scrollback + 1));
      const screen = new RowScreen({ cols, rows, scrollback, emulatorScrollback, scheduler, maxDeferMs: 0, highWatermark: 1 << 30 });
      for (const segment of segments) {
        let at = 0;
        while (at < segment.length) {
          const size = 1 + Math.floor(rand() * rand() * 30_000);
          screen.write(segment.subarray(at, at + size));
          at += size;
          if (rand() < 0.2) scheduler.run(1 + Math.floor(rand() * 40_000));
        }
        if (rand() < 0.7) scheduler.run(1 << 30);
      }
      for (let turns = 0; screen.pendingBytes > 0; turns++) {
        expect(turns).toBeLessThan(100_000);
        scheduler.run(16 * 1024);
      }
      await screen.flush();
      const where = `seed ${seed} (${cols}x${rows}, scrollback ${scrollback}, ${emulatorScrollback} as cells)`;
      expect(dump(screen.buffer), where).toBe(dump(reference.buffer.active, screen.buffer.length));
      expect(screen.historyLines(), where).toEqual(historyText(reference));
      expect(screen.title, where).toBe(referenceTitle);
      if (screen.fastForwardedBytes > 0) casesCut++;
      if (screen.spilledAsTextBytes > 0) casesSpilled++;
      bytesCut += screen.fastForwardedBytes;
      screen.dispose();
      reference.dispose();
    }
    // The comparison means something only if cuts happened in many of the cases.
    expect(casesCut).toBeGreaterThan(30);
    expect(bytesCut).toBeGreaterThan(1_000_000);
    expect(casesSpilled).toBeGreaterThan(15);
  });

  it('cuts a seq-like flood in a backlog and shows its last lines', async () => {
    const scheduler = new ManualScheduler();
    const screen = new RowScreen({ cols: 40, rows: 10, scrollback: 100, scheduler, maxDeferMs: 0, highWatermark: 1 << 30 });
    const flood = bytes(lines(1, 20_000));
    for (let at = 0; at < flood.length; at += 4096) screen.write(flood.subarray(at, at + 4096));
    scheduler.run(1 << 30);
    expect(screen.pendingBytes).toBe(0);
    expect(screen.fastForwardedBytes).toBeGreaterThan(flood.length * 0.9);
    expect(screen.snapshot().lines.slice(0, 9)).toEqual(['19992', '19993', '19994', '19995', '19996', '19997', '19998', '19999', '20000']);
    expect(screen.buffer.getLine(0)!.translateToString(true)).toBe('19892');
    screen.dispose();
  });

  it('takes simple history lines as text, and parses them when a full parse would not put them there as they are', async () => {
    // 40x10, 300 lines of history of which 20 as cells: one backlog, one cut. The history the cut
    // spills is the 300 lines before the last 2 x 10 + 20; an odd line goes in the middle of them.
    const flood = lines(1, 20_000).split('\r\n').slice(0, -1);
    const at = flood.length - 40 - 150;
    const cases: Array<[string, string, string, boolean]> = [
      ['simple', '', flood[at]!, true],
      ['a line that wraps', '', 'w'.repeat(41), false],
      ['a tab', '', 'a\tb', false],
      ['a lone CR', '', 'abc\rX', false],
      ['DEC graphics', '\x1b(0', 'lqqk', false],
    ];
    for (const [what, before, odd, spills] of cases) {
      const data = before + [...flood.slice(0, at), odd, ...flood.slice(at + 1)].join('\r\n') + '\r\n';
      const reference = new HeadlessTerminal({ cols: 40, rows: 10, scrollback: 300, allowProposedApi: true, logLevel: 'off' });
      await writeAll(reference, bytes(data));
      const scheduler = new ManualScheduler();
      const screen = new RowScreen({ cols: 40, rows: 10, scrollback: 300, emulatorScrollback: 20, scheduler, maxDeferMs: 0, highWatermark: 1 << 30 });
      screen.write(bytes(before));
      scheduler.run(1 << 30);
      const flooded = bytes(data.slice(before.length));
      for (let i = 0; i < flooded.length; i += 4096) screen.write(flooded.subarray(i, i + 4096));
      scheduler.run(1 << 30);
      await screen.flush();
      expect(screen.fastForwardedBytes, what).toBeGreaterThan(flooded.length * 0.9);
      expect(screen.spilledAsTextBytes > 0, what).toBe(spills);
      expect(dump(screen.buffer), what).toBe(dump(reference.buffer.active, screen.buffer.length));
      expect(screen.historyLines(), what).toEqual(historyText(reference));
      screen.dispose();
      reference.dispose();
    }
  });

  it('spills a whole history: a screen made taller shows the same history as without the fast-forward', async () => {
    // Growing the screen pulls the emulator's scrollback onto it, and more of the spilled text
    // comes into view; up to the whole history depth of it.
    const screens = [true, false].map((fastForward) => {
      const scheduler = new ManualScheduler();
      const screen = new RowScreen({ cols: 40, rows: 10, scrollback: 300, emulatorScrollback: 20, scheduler, maxDeferMs: 0, highWatermark: 1 << 30, fastForward });
      const flood = bytes(lines(1, 20_000));
      for (let i = 0; i < flood.length; i += 4096) screen.write(flood.subarray(i, i + 4096));
      scheduler.run(1 << 30);
      return screen;
    });
    for (const screen of screens) await screen.flush();
    expect(screens[0]!.spilledAsTextBytes).toBeGreaterThan(0);
    for (const screen of screens) screen.resize(40, 200);
    expect(screens[0]!.historyLines()).toEqual(screens[1]!.historyLines());
    // The whole 300 lines of history, then the 20 scrollback lines and 9 of the screen's 10 the
    // emulator held (its last, the cursor's, is empty).
    expect(screens[0]!.historyLines()).toEqual(lines(20_000 - 300 - 29 + 1, 20_000).split('\r\n').slice(0, -1));
    expect(dump(screens[0]!.buffer)).toBe(dump(screens[1]!.buffer));
    for (const screen of screens) screen.dispose();
  });

  it('does not cut while the parser is inside a sequence, a scroll region is set or the alternate screen is on', async () => {
    // With the cursor below a scroll region, line feeds do not scroll: every line overwrites the
    // bottom row, and what the long lines left there must survive the short ones that follow.
    const longThenShort = `${'L'.repeat(39)}\r\n`.repeat(3000) + 'x\r\n'.repeat(3000);
    const cases: Array<[string, string]> = [
      ['\x1b]0;a title that goes on', lines(1, 5000) + '\x07'],
      ['\x1b[3;6r', lines(1, 5000)],
      ['\x1b[1;2r\x1b[10;1H', longThenShort],
      ['\x1b[?1049h', longThenShort],
    ];
    for (const [before, flood] of cases) {
      const reference = new HeadlessTerminal({ cols: 40, rows: 10, scrollback: 100, allowProposedApi: true, logLevel: 'off' });
      await writeAll(reference, bytes(before + flood));
      const scheduler = new ManualScheduler();
      const screen = new RowScreen({ cols: 40, rows: 10, scrollback: 100, scheduler, maxDeferMs: 0, highWatermark: 1 << 30 });
      screen.write(bytes(before));
      scheduler.run(1 << 30);
      const data = bytes(flood);
      for (let at = 0; at < data.length; at += 4096) screen.write(data.subarray(at, at + 4096));
      scheduler.run(1 << 30);
      expect(screen.pendingBytes).toBe(0);
      expect(screen.fastForwardedBytes, JSON.stringify(before)).toBe(0);
      expect(dump(screen.buffer), JSON.stringify(before)).toBe(dump(reference.buffer.active));
      screen.dispose();
      reference.dispose();
    }
  });

  it('lets a flood in a row that is not attached wait up to maxDeferMs, and never an attached row or short output', async () => {
    const scheduler = new ManualScheduler();
    const screen = new RowScreen({ cols: 40, rows: 10, scrollback: 100, scheduler, maxDeferMs: 60_000 });
    screen.write(bytes('prompt$ ls\r\na\r\nb\r\n'));
    scheduler.run(1 << 30);
    expect(screen.pendingBytes).toBe(0);
    screen.write(bytes(lines(1, 50)));
    scheduler.run(1 << 30);
    expect(screen.pendingBytes).toBeGreaterThan(0);
    // Attaching the row parses what it was letting gather, without waiting for more output.
    screen.urgent = true;
    scheduler.run(1 << 30);
    expect(screen.pendingBytes).toBe(0);
    expect(screen.snapshot().lines[8]).toBe('50');
    screen.write(bytes(lines(51, 60)));
    scheduler.run(1 << 30);
    expect(screen.pendingBytes).toBe(0);
    expect(screen.snapshot().lines[8]).toBe('60');
    screen.dispose();
  });

  it('cuts a flood that keeps coming once, when its wait ends, not at every turn meanwhile', async () => {
    // Each cut that spills history ends the wait (the erase it queues is parsed at once, with the
    // screenful and more after it): cutting at every turn redrew a flooding row every few ms and
    // parsed a tail each time, most of a `seq` flood's cost.
    const scheduler = new ManualScheduler();
    const screen = new RowScreen({ cols: 40, rows: 10, scrollback: 300, emulatorScrollback: 20, scheduler, maxDeferMs: 60_000, highWatermark: 1 << 30 });
    const flood = bytes(lines(1, 20_000));
    const version = screen.version;
    for (let at = 0; at < flood.length; at += 4096) {
      screen.write(flood.subarray(at, at + 4096));
      scheduler.run(1 << 30);
    }
    expect(screen.version).toBe(version);
    expect(screen.pendingBytes).toBe(flood.length);
    expect(screen.fastForwardedBytes).toBe(0);
    // Its output paused: it is cut (its history spilled as text) and its last lines shown.
    screen.urgent = true;
    scheduler.run(1 << 30);
    await screen.flush();
    expect(screen.spilledAsTextBytes).toBeGreaterThan(0);
    expect(screen.fastForwardedBytes).toBeGreaterThan(flood.length * 0.9);
    expect(screen.snapshot().lines[8]).toBe('20000');
    expect(screen.historyLines().slice(-3)).toEqual(['19998', '19999', '20000']);
    screen.dispose();
  });

  it('parses a deferred flood as soon as its output pauses', async () => {
    const screen = new RowScreen({ cols: 40, rows: 10, scrollback: 100, maxDeferMs: 60_000 });
    screen.write(bytes(lines(1, 50)));
    expect(screen.pendingBytes).toBeGreaterThan(0);
    await screen.flush();
    expect(screen.snapshot().lines[8]).toBe('50');
    screen.dispose();
  });

  it('shows a flood that keeps coming before it ends (maxDeferMs)', async () => {
    const screen = new RowScreen({ cols: 40, rows: 10, scrollback: 100, maxDeferMs: 20 });
    let next = 1;
    const writer = setInterval(() => {
      screen.write(bytes(lines(next, next + 49)));
      next += 50;
    }, 1);
    try {
      await waitUntil(() => screen.snapshot().lines[0] !== '', { timeoutMs: 2000 });
    } finally {
      clearInterval(writer);
    }
    screen.dispose();
  });
});
