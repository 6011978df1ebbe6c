import { describe, expect, test } from 'vitest';
import { RowScreen } from '../../../src/rows/row-screen.js';
import { waitUntil } from '../../helpers/wait-until.js';

async function screenWith(data: string | Uint8Array, cols = 40, rows = 6): Promise<RowScreen> {
  const screen = new RowScreen({ cols, rows });
  screen.write(data);
  await screen.flush();
  return screen;
}

describe('RowScreen', () => {
  test('parsed output shows up in the snapshot with trailing spaces trimmed', async () => {
    const screen = await screenWith('hello   \r\nworld');
    const snap = screen.snapshot();
    expect(snap.lines.slice(0, 3)).toEqual(['hello', 'world', '']);
    expect(snap.lines).toHaveLength(6);
    expect(snap.cursor).toEqual({ x: 5, y: 1, visible: true });
    expect(snap.cols).toBe(40);
    expect(snap.alternateScreen).toBe(false);
    screen.dispose();
  });

  test('UTF-8 split across writes is decoded as one character', async () => {
    const screen = new RowScreen({ cols: 20, rows: 2 });
    const bytes = Buffer.from('añb€c', 'utf8');
    for (const byte of bytes) screen.write(Uint8Array.of(byte));
    await screen.flush();
    expect(screen.snapshot().lines[0]).toBe('añb€c');
    screen.dispose();
  });

  test('answers a primary device attributes request', async () => {
    const screen = new RowScreen({ cols: 20, rows: 2 });
    const replies: string[] = [];
    screen.onReply((r) => replies.push(r));
    screen.write('\x1b[c');
    await screen.flush();
    expect(replies.join('')).toMatch(/^\x1b\[\?[\d;]+c$/);
    screen.dispose();
  });

  test('answers a cursor position report with the 1-based cursor', async () => {
    const screen = new RowScreen({ cols: 20, rows: 5 });
    const replies: string[] = [];
    screen.onReply((r) => replies.push(r));
    screen.write('ab\r\ncde\x1b[6n');
    await screen.flush();
    expect(replies).toEqual(['\x1b[2;4R']);
    screen.dispose();
  });

  test('captures the window title', async () => {
    const screen = new RowScreen({ cols: 20, rows: 2 });
    const titles: string[] = [];
    screen.onTitleChange((t) => titles.push(t));
    screen.write('\x1b]0;first\x07\x1b]2;second\x1b\\');
    await screen.flush();
    expect(titles).toEqual(['first', 'second']);
    expect(screen.snapshot().title).toBe('second');
    screen.dispose();
  });

  test('version increases when output is parsed and on resize, and not otherwise', async () => {
    const screen = new RowScreen({ cols: 20, rows: 2 });
    const v0 = screen.version;
    screen.write('x');
    await screen.flush();
    const v1 = screen.version;
    expect(v1).toBeGreaterThan(v0);
    screen.snapshot();
    expect(screen.version).toBe(v1);
    screen.resize(30, 3);
    expect(screen.version).toBeGreaterThan(v1);
    screen.dispose();
  });

  test('reports the active terminal modes the program switched on', async () => {
    const screen = await screenWith('');
    expect(screen.activeModes).toMatchObject({
      bracketedPaste: false,
      mouseTracking: 'none',
      mouseEncoding: 'default',
      focusReporting: false,
      applicationCursorKeys: false,
      cursorVisible: true,
      alternateScreen: false,
      kittyKeyboardFlags: 0,
      modifyOtherKeys: 0,
    });
    screen.write('\x1b[?2004h\x1b[?1002;1006h\x1b[?1004h\x1b[?1h\x1b[?25l\x1b[?1049h\x1b[>5u\x1b[>4;2m');
    await screen.flush();
    expect(screen.activeModes).toMatchObject({
      bracketedPaste: true,
      mouseTracking: 'drag',
      mouseEncoding: 'sgr',
      focusReporting: true,
      applicationCursorKeys: true,
      cursorVisible: false,
      alternateScreen: true,
      kittyKeyboardFlags: 5,
      modifyOtherKeys: 2,
    });
    expect(screen.snapshot().alternateScreen).toBe(true);
    expect(screen.snapshot().cursor.visible).toBe(false);
    screen.write('\x1b[<u\x1b[?1049l\x1b[?25h\x1b[?1006l\x1b[?1002l\x1b[?2004l');
    await screen.flush();
    expect(screen.activeModes).toMatchObject({
      bracketedPaste: false,
      mouseTracking: 'none',
      mouseEncoding: 'default',
      cursorVisible: true,
      alternateScreen: false,
      kittyKeyboardFlags: 0,
    });
    screen.dispose();
  });

  test('the modes read after each change match a fresh read (the cache misses no change)', async () => {
    const steps = [
      '\x1b[?2004h', '\x1b[?1000h', '\x1b[?1006h', '\x1b[?1004h', '\x1b[?1h', '\x1b=', '\x1b>', '\x1b[?66h',
      '\x1b[?25l', '\x1b[?1049h', '\x1b[?2026h', '\x1b[>3u', '\x1b[=5;2u', '\x1b[<u', '\x1b[>4;1m', '\x1b[!p',
      '\x1b[?1003h', '\x1b[?47h', '\x1b[?47l', '\x1bc',
    ];
    const screen = await screenWith('');
    for (let i = 0; i < steps.length; i++) {
      screen.write(steps[i]!);
      await screen.flush();
      const fresh = await screenWith(steps.slice(0, i + 1).join(''));
      expect(screen.activeModes, `after ${JSON.stringify(steps[i])}`).toEqual(fresh.activeModes);
      fresh.dispose();
    }
    screen.dispose();
  });

  test('a full reset (RIS) clears the observed modes', async () => {
    const screen = await screenWith('\x1b[?25l\x1b[?1006h\x1b[>1u\x1bc');
    expect(screen.activeModes).toMatchObject({ cursorVisible: true, mouseEncoding: 'default', kittyKeyboardFlags: 0 });
    screen.dispose();
  });

  test('marks dim ranges per line', async () => {
    const screen = await screenWith('> \x1b[2mtype here\x1b[0m\r\nplain \x1b[2mx\x1b[22my');
    const snap = screen.snapshot();
    expect(snap.dimRanges?.[0]).toEqual([[2, 11]]);
    expect(snap.dimRanges?.[1]).toEqual([[6, 7]]);
    expect(snap.dimRanges?.[2]).toEqual([]);
    screen.dispose();
  });

  test('signals pressure above the high watermark and relief below the low one', async () => {
    const screen = new RowScreen({ cols: 80, rows: 24, highWatermark: 64 * 1024, lowWatermark: 8 * 1024 });
    const pressure: boolean[] = [];
    screen.onPressure((p) => pressure.push(p));
    const chunk = 'y\r\n'.repeat(4096);
    for (let i = 0; i < 40; i++) screen.write(chunk);
    expect(pressure).toEqual([true]);
    expect(screen.isBackedUp).toBe(true);
    expect(screen.pendingBytes).toBe(40 * chunk.length);
    await screen.flush();
    expect(pressure).toEqual([true, false]);
    expect(screen.pendingBytes).toBe(0);
    screen.dispose();
  });

  test('keeps scrollback bounded', async () => {
    const screen = new RowScreen({ cols: 20, rows: 5, scrollback: 100 });
    let text = '';
    for (let i = 0; i < 1000; i++) text += `line ${i}\r\n`;
    screen.write(text);
    await screen.flush();
    expect(screen.buffer.length).toBe(105);
    expect(screen.snapshot().lines[3]).toBe('line 999');
    screen.dispose();
  });

  test('resize reflows wrapped lines', async () => {
    // The cursor's own line is left alone (shells redraw it themselves), so end on a new line.
    const screen = await screenWith('0123456789abcdefghij\r\n', 10, 4);
    expect(screen.snapshot().lines.slice(0, 2)).toEqual(['0123456789', 'abcdefghij']);
    screen.resize(20, 4);
    expect(screen.snapshot().lines[0]).toBe('0123456789abcdefghij');
    screen.dispose();
  });

  test('writes after dispose are ignored', async () => {
    const screen = new RowScreen({ cols: 10, rows: 2 });
    screen.dispose();
    expect(() => screen.write('x')).not.toThrow();
    await screen.flush();
  });

  test('parseAfterYield: an attached row parses its next output after a timer, in order, then at once again', async () => {
    const screen = new RowScreen({ cols: 20, rows: 2 });
    screen.urgent = true;
    screen.write('a');
    expect(screen.pendingBytes).toBe(0); // attached: parsed as it comes
    // The echo of 'b' went to the terminal ahead of the parse (Compositor.echoAhead).
    screen.parseAfterYield();
    screen.write('b');
    screen.write('c');
    expect(screen.pendingBytes).toBe(2);
    expect(screen.settled).toBe(false);
    expect(screen.snapshot().lines[0]).toBe('a');
    await screen.flush();
    expect(screen.snapshot().lines[0]).toBe('abc');
    screen.write('d');
    expect(screen.pendingBytes).toBe(0);
    expect(screen.snapshot().lines[0]).toBe('abcd');
    screen.parseAfterYield();
    screen.write('e');
    screen.dispose(); // its timer goes with it
    await screen.flush();
  });
  test('an echo\u2019s chunk is told unparsed until it is parsed, and a plain flood queued behind it is not cut meanwhile', async () => {
    const bytes = (text: string) => Buffer.from(text, 'latin1'); // strings never count as plain
    const flood = bytes(Array.from({ length: 4000 }, (_, i) => `${i}\r\n`).join(''));
    // Without an echo ahead of it, such a flood is cut (plain-backlog.ts): the control.
    const control = new RowScreen({ cols: 20, rows: 4, scrollback: 100 });
    control.write(bytes('> k'));
    control.write(flood);
    await control.flush();
    expect(control.fastForwardedBytes).toBeGreaterThan(0);
    control.dispose();

    const screen = new RowScreen({ cols: 20, rows: 4, scrollback: 100 });
    screen.urgent = true;
    screen.write(bytes('> '));
    expect(screen.echoUnparsed).toBe(false);
    screen.parseAfterYield();
    screen.write(bytes('k'));
    screen.write(flood);
    expect(screen.echoUnparsed).toBe(true);
    await screen.flush();
    expect(screen.echoUnparsed).toBe(false);
    expect(screen.fastForwardedBytes).toBe(0);
    expect(screen.snapshot().lines.at(-2)).toBe('3999');
    screen.dispose();
  });

  test('the chunks a turn parses are told changed once, after the last: never with an echo on the terminal the screen lacks', async () => {
    const screen = new RowScreen({ cols: 20, rows: 2 });
    screen.urgent = true;
    screen.write('> ');
    // Two keystrokes echoed ahead (by the key relay's thread), landed together, and more output.
    screen.parseAfterYield();
    screen.write('q');
    screen.parseAfterYield();
    screen.write('x');
    screen.write('y');
    const told: Array<{ line: string; echoUnparsed: boolean }> = [];
    screen.onChange(() => told.push({ line: screen.snapshot().lines[0]!, echoUnparsed: screen.echoUnparsed }));
    await screen.flush();
    expect(told).toEqual([{ line: '> qxy', echoUnparsed: false }]);
    screen.dispose();
  });

  test('quiet: everything parsed and nothing written for a while, an attached row\u2019s output included', async () => {
    for (const urgent of [false, true]) {
      const screen = new RowScreen({ cols: 20, rows: 4 });
      screen.urgent = urgent;
      expect(screen.quiet).toBe(true);
      screen.write('output\r\n');
      // Just written: not quiet, parsed or not (an attached row parses it at once).
      expect(screen.quiet).toBe(false);
      await screen.flush();
      expect(screen.pendingBytes).toBe(0);
      await waitUntil(() => screen.quiet, { timeoutMs: 2000 });
      screen.dispose();
    }
  });
});
