// The key relay's thread on real terminals: a program's terminal opened as the server opens a
// client's (openClientTty), keys typed there, and a row's program (cat) in a pty of its own.
import { readdirSync } from 'node:fs';
import type { ReadStream } from 'node:tty';
import { afterEach, describe, expect, test } from 'vitest';
import { RowProcess } from '../../../src/rows/row-process.js';
import { openClientTty } from '../../../src/server/client-tty.js';
import { ttyKeyRelay, type TtyKeyRelay } from '../../../src/server/tty-key-relay.js';
import type { KeyPathHandlers } from '../../../src/terminal/input-router.js';
import { deferCleanup, runCleanups } from '../../helpers/cleanup.js';
import { inPty } from '../../helpers/in-pty.js';
import { waitUntil } from '../../helpers/wait-until.js';

afterEach(runCleanups);

const threads = () => readdirSync('/proc/self/task').length;

/** The operator's terminal (keys typed with `keyboard.write`), held as the server holds it, and a row running cat. */
async function setUp() {
  const keyboard = await inPty('stty raw -echo; echo READY; exec sleep 60');
  const viaStream: string[] = [];
  const opened = openClientTty(keyboard.pty.pid, (chunk) => viaStream.push(chunk.toString('latin1')));
  if (typeof opened === 'string') throw new Error(`refused: ${opened}`);
  const tty: ReadStream = opened;
  deferCleanup('opened tty', () => tty.destroy());
  tty.resume();
  const relay = ttyKeyRelay(tty, (data) => tty.write(data));
  if (typeof relay === 'string') throw new Error(`no relay: ${relay}`);
  deferCleanup('relay', () => relay.close());
  // cat in a pty that does not echo: what it prints is what it read.
  const row = await inPty('stty -echo; echo READY; exec cat');
  const rowFd = (row.pty as unknown as { fd: number }).fd;
  const news = { typed: 0, held: [] as string[] };
  const on: KeyPathHandlers = { typed: () => news.typed++, held: (chunk) => news.held.push(chunk.toString('latin1')) };
  const screened = new Uint8Array(256);
  screened[0x1c] = 1;
  return { keyboard, viaStream, tty, relay: relay as TtyKeyRelay, row, rowFd, news, on, screened };
}

describe.runIf(process.platform === 'linux')('TtyKeyRelay', () => {
  test('plain keys go from the terminal to the row on the thread, never through the stream; the router hears they were typed', async () => {
    const t = await setUp();
    const before = threads();
    expect(t.relay.start(t.rowFd, t.screened, t.on)).toBe(true);
    expect(t.relay.running).toBe(true);
    expect(threads()).toBe(before + 1);
    t.keyboard.pty.write('hello\r');
    await waitUntil(() => t.row.output().includes('hello'), { what: 'the keys to reach cat' });
    await waitUntil(() => t.news.typed > 0, { what: 'the news that keys were typed' });
    expect(t.viaStream).toEqual([]);
    expect(t.news.held).toEqual([]);
    // Stopped: the stream reads the terminal again, and the thread is gone.
    expect(t.relay.stop()).toBeNull();
    expect(t.relay.running).toBe(false);
    await waitUntil(() => threads() === before, { what: 'the thread to end' });
    t.keyboard.pty.write('after');
    await waitUntil(() => t.viaStream.join('') === 'after', { what: 'the stream to read the keys again' });
    expect(t.row.output()).not.toContain('after');
  });

  test('a read with a screened byte stops the thread: the read comes back whole and unwritten, and the stream reads what follows', async () => {
    const t = await setUp();
    t.relay.start(t.rowFd, t.screened, t.on);
    t.keyboard.pty.write('one\r');
    await waitUntil(() => t.row.output().includes('one'), { what: 'the first keys to reach cat' });
    t.keyboard.pty.write('ab\x1ccd');
    await waitUntil(() => t.news.held.length > 0, { what: 'the read to be handed back' });
    expect(t.news.held).toEqual(['ab\x1ccd']);
    expect(t.relay.running).toBe(false);
    expect(t.row.output()).not.toContain('ab');
    t.keyboard.pty.write('next');
    await waitUntil(() => t.viaStream.join('') === 'next', { what: 'the stream to read on' });
    // It starts again where it stopped.
    expect(t.relay.start(t.rowFd, t.screened, t.on)).toBe(true);
    t.keyboard.pty.write('two\r');
    await waitUntil(() => t.row.output().includes('two'), { what: 'the keys after a restart to reach cat' });
  });

  test('a row whose pty hangs up (nothing holds its side any more) stops the thread, as the kernel would take keys nobody reads; keys go through the stream, and the row offers no descriptor to start on again', async () => {
    const t = await setUp();
    // Reads one line, then lets go of the terminal for good.
    const row = new RowProcess({ command: { shell: 'stty -echo; echo READY; read line; exec sleep 60 0<&- 1>&- 2>&-' }, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', TERM: 'xterm-256color' }, cols: 80, rows: 24 });
    deferCleanup('row', () => row.dispose());
    let out = '';
    row.onData((d) => (out += d.toString()));
    await waitUntil(() => out.includes('READY'), { what: 'the row to start' });
    t.relay.start(row.directInputFd!, t.screened, t.on);
    t.keyboard.pty.write('go\r');
    await waitUntil(() => !t.relay.running, { what: 'the thread to stop when the pty hangs up' });
    expect(t.news.held).toEqual([]);
    t.keyboard.pty.write('late');
    await waitUntil(() => t.viaStream.join('') === 'late', { what: 'the stream to read the keys' });
    // Either the row no longer offers its descriptor (node-pty let go of it) or the relay refuses it.
    const fd = row.directInputFd;
    expect(fd === undefined || !t.relay.start(fd, t.screened, t.on)).toBe(true);
  });

  test('close ends the thread for good', async () => {
    const t = await setUp();
    const before = threads();
    t.relay.start(t.rowFd, t.screened, t.on);
    t.relay.close();
    await waitUntil(() => threads() === before, { what: 'the thread to end' });
    expect(t.relay.start(t.rowFd, t.screened, t.on)).toBe(false);
  });

  describe('echo ahead', () => {
    /** A row whose program (a shell, not echoing) prints what it is told, through RowProcess as the server runs it. */
    async function rowProcess(script: string) {
      const row = new RowProcess({ command: { shell: script }, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', TERM: 'xterm-256color' }, cols: 80, rows: 24 });
      deferCleanup('row', () => row.dispose());
      const delivered: string[] = [];
      row.onData((d) => delivered.push(d.toString('latin1')));
      await waitUntil(() => delivered.join('').includes('READY'), { what: 'the row to start' });
      return { row, delivered };
    }

    test("armed, the row's next output is read on the thread, echoed onto the terminal at once when it is plain and fits, and delivered to the row after its landing", async () => {
      const t = await setUp();
      // cat with the pty's own echo off: what comes back is cat's write of what it read.
      const { row, delivered } = await rowProcess('stty -echo raw; echo READY; exec cat');
      expect(t.relay.start(row.directInputFd!, t.screened, t.on)).toBe(true);
      const landed: Array<{ chunk: string; echoed: boolean; deliveredBefore: number }> = [];
      const before = delivered.length;
      expect(t.relay.arm(row, 10, (chunk, echoed) => landed.push({ chunk: chunk.toString('latin1'), echoed, deliveredBefore: delivered.length }))).toBe(true);
      t.keyboard.pty.write('k');
      await waitUntil(() => landed.length > 0, { what: 'the echo to land' });
      expect(landed).toEqual([{ chunk: 'k', echoed: true, deliveredBefore: before }]);
      await waitUntil(() => t.keyboard.output().includes('\x1b[0mk'), { what: 'the echo on the terminal' });
      expect(delivered.slice(before)).toEqual(['k']);
      // An echo that fit leaves it armed, one column fewer: a typist's next key needs no paint first.
      t.keyboard.pty.write('j');
      await waitUntil(() => landed.length === 2, { what: 'the next echo to land' });
      expect(landed[1]).toMatchObject({ chunk: 'j', echoed: true });
      await waitUntil(() => t.keyboard.output().includes('\x1b[0mj'), { what: 'the next echo on the terminal' });
      // Output that is no echo lands unechoed and ends the arming: what follows is node-pty's to read.
      t.keyboard.pty.write('\t');
      await waitUntil(() => landed.length === 3, { what: 'the tab to land' });
      expect(landed[2]).toMatchObject({ chunk: '\t', echoed: false });
      t.keyboard.pty.write('m');
      await waitUntil(() => delivered.join('').endsWith('kj\tm'), { what: 'output read by node-pty again' });
      expect(landed).toHaveLength(3);
      expect(t.keyboard.output()).not.toContain('\x1b[0mm');
    });

    test('armed with few columns left, the echoes that fit go ahead and the one that would reach the last column does not', async () => {
      const t = await setUp();
      const { row } = await rowProcess('stty -echo raw; echo READY; exec cat');
      t.relay.start(row.directInputFd!, t.screened, t.on);
      const landed: Array<[string, boolean]> = [];
      t.relay.arm(row, 3, (chunk, echoed) => landed.push([chunk.toString('latin1'), echoed]));
      for (const key of ['1', '2', '3']) {
        t.keyboard.pty.write(key);
        await waitUntil(() => landed.length > 0 && landed[landed.length - 1]![0] === key, { what: `${key} to land` });
      }
      expect(landed).toEqual([['1', true], ['2', true], ['3', false]]);
    });

    test('armed again after each landing, every keystroke comes back on the thread, once and in order', async () => {
      const t = await setUp();
      const { row, delivered } = await rowProcess('stty -echo raw; echo READY; exec cat');
      t.relay.start(row.directInputFd!, t.screened, t.on);
      const landed: string[] = [];
      const before = delivered.length;
      for (const key of ['a', 'b', 'c', 'd']) {
        expect(t.relay.arm(row, 10, (chunk, echoed) => landed.push(`${chunk.toString('latin1')}${echoed ? '!' : ''}`))).toBe(true);
        t.keyboard.pty.write(key);
        await waitUntil(() => landed.length > 0 && landed[landed.length - 1]!.startsWith(key), { what: `${key} to land` });
        // What the row does between two keys (a paint, here a pause of a tick) before it arms again.
        await new Promise((resolve) => setImmediate(resolve));
      }
      expect(landed).toEqual(['a!', 'b!', 'c!', 'd!']);
      expect(delivered.slice(before)).toEqual(['a', 'b', 'c', 'd']);
    });

    test('landEcho lands what the thread read (once), and the thread reads on armed: the next key echoes there too', async () => {
      const t = await setUp();
      const { row, delivered } = await rowProcess('stty -echo raw; echo READY; exec cat');
      t.relay.start(row.directInputFd!, t.screened, t.on);
      const landed: string[] = [];
      const before = delivered.length;
      expect(t.relay.arm(row, 10, (chunk, echoed) => landed.push(`${chunk.toString('latin1')}${echoed ? '!' : ''}`))).toBe(true);
      t.keyboard.pty.write('k');
      await waitUntil(() => t.keyboard.output().includes('\x1b[0mk'), { what: 'the echo on the terminal' });
      t.relay.landEcho(); // as a paint does first, whether the thread's news came already or not
      expect(landed).toEqual(['k!']);
      t.relay.landEcho();
      t.keyboard.pty.write('j');
      await waitUntil(() => landed.length === 2, { what: 'the next echo to land' });
      expect(landed).toEqual(['k!', 'j!']);
      expect(t.keyboard.output()).toContain('\x1b[0mj');
      expect(delivered.slice(before)).toEqual(['k', 'j']);
    });

    test('output that is not plain text, or does not fit the columns left, lands unechoed', async () => {
      const t = await setUp();
      const { row, delivered } = await rowProcess('stty -echo raw; echo READY; exec cat');
      t.relay.start(row.directInputFd!, t.screened, t.on);
      const landed: Array<[string, boolean]> = [];
      t.relay.arm(row, 3, (chunk, echoed) => landed.push([chunk.toString('latin1'), echoed]));
      t.keyboard.pty.write('abc'); // 3 columns left: the cursor would wrap
      await waitUntil(() => landed.length === 1, { what: 'the output to land' });
      expect(landed[0]).toEqual(['abc', false]);
      expect(delivered.join('')).toContain('abc');
      t.relay.arm(row, 10, (chunk, echoed) => landed.push([chunk.toString('latin1'), echoed]));
      t.keyboard.pty.write('\t');
      await waitUntil(() => landed.length === 2, { what: 'the tab to land' });
      expect(landed[1]).toEqual(['\t', false]);
      expect(t.keyboard.output()).not.toContain('\x1b[0m');
    });

    test('disarmed (as before any write to the terminal), nothing more is read on the thread and the row reads its output again; stopping the keys disarms too', async () => {
      const t = await setUp();
      const { row, delivered } = await rowProcess('stty -echo; echo READY; read line; echo "got $line"; exec sleep 60');
      t.relay.start(row.directInputFd!, t.screened, t.on);
      let landings = 0;
      expect(t.relay.arm(row, 80, () => landings++)).toBe(true);
      t.relay.disarmEcho();
      t.keyboard.pty.write('x\r');
      await waitUntil(() => delivered.join('').includes('got x'), { what: 'the row to read its output itself' });
      expect(landings).toBe(0);
      expect(t.relay.arm(row, 80, () => landings++)).toBe(true);
      t.relay.stop();
      expect(t.relay.arm(row, 80, () => landings++)).toBe(false); // the keys are not on the thread
      expect(row.lendOutput(() => {})).toEqual({ deliver: expect.any(Function), end: expect.any(Function) }); // nobody holds it
    });

    test('a row lends its output once at a time, and takes it back (recall) before its pty closes', async () => {
      const { row } = await rowProcess('echo READY; exec sleep 60');
      let recalled = 0;
      const loan = row.lendOutput(() => {
        recalled++;
        loan.end();
      })!;
      expect(loan).toBeDefined();
      expect(row.lendOutput(() => {})).toBeUndefined();
      row.dispose();
      expect(recalled).toBe(1);
    });
  });
});
