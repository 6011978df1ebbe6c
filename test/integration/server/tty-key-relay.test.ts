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
  const relay = ttyKeyRelay(tty);
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
});
