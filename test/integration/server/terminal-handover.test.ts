// While a client asks its terminal for its name (HELLO's terminalQueryMs), the client reads that
// terminal itself for the replies, and a server that holds the terminal must not read it: the two
// would split the replies and the keys between them (src/server/client-connection.ts, handOver).
// Here a real client connection on a real socket, and a real terminal the server opens as it opens
// a client's (openClientTty): the test plays the client, reading the terminal during the query.
import { closeSync, constants, mkdtempSync, openSync, readSync, rmSync } from 'node:fs';
import { connect, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ReadStream } from 'node:tty';
import { afterEach, describe, expect, test } from 'vitest';
import { CLIENT_WIRE, encodeJsonFrame, FRAME, FrameDecoder, FROM_SERVER, type WelcomeFrame } from '../../../src/protocol/client-wire.js';
import { ClientConnection } from '../../../src/server/client-connection.js';
import { openClientTty } from '../../../src/server/client-tty.js';
import { deferCleanup, runCleanups } from '../../helpers/cleanup.js';
import { inPty } from '../../helpers/in-pty.js';
import { waitUntil } from '../../helpers/wait-until.js';

afterEach(runCleanups);

/** A server socket whose one connection is a ClientConnection holding `keyboard`'s terminal; the test's socket to it. */
async function connected(keyboardPid: number) {
  const dir = mkdtempSync(join(tmpdir(), 'swb-handover-'));
  deferCleanup('socket dir', () => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'server.sock');
  const server = {
    keys: [] as string[],
    log: [] as string[],
    tty: null as ReadStream | null,
  };
  const listener = createServer((socket) => {
    new ClientConnection({
      socket,
      version: 'test',
      refusal: () => null,
      openTty: (onKeys) => {
        const opened = openClientTty(keyboardPid, (chunk) => {
          server.keys.push(chunk.toString('latin1'));
          onKeys(chunk);
        });
        if (typeof opened !== 'string') server.tty = opened;
        return opened;
      },
      // The dashboard is not what this test is about: a session that draws nothing.
      open: () => ({ redraw() {}, leave() {}, note() {}, dispose() {} }),
      onClose: () => {},
      log: (line) => server.log.push(line),
    });
    deferCleanup('connection', () => socket.destroy());
  });
  await new Promise<void>((r) => listener.listen(path, () => r()));
  deferCleanup('listener', () => new Promise<void>((r) => listener.close(() => r())));
  const client: Socket = connect(path);
  deferCleanup('client socket', () => client.destroy());
  const welcome = new Promise<WelcomeFrame>((resolve) => {
    const decoder = new FrameDecoder(FROM_SERVER);
    client.on('data', (chunk: Buffer) => {
      for (const f of decoder.push(chunk)) if (f.type === FRAME.WELCOME) resolve(JSON.parse(f.payload.toString('utf8')) as WelcomeFrame);
    });
  });
  await new Promise<void>((r) => client.once('connect', () => r()));
  return { server, client, welcome };
}

/** The client's own read of its terminal: non-blocking, what is there now. */
function clientReader(pid: number): () => string {
  const fd = openSync(`/proc/${pid}/fd/0`, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  deferCleanup('client read fd', () => closeSync(fd));
  const buf = Buffer.alloc(256);
  let got = '';
  return () => {
    try {
      const n = readSync(fd, buf, 0, buf.length, null);
      got += buf.toString('latin1', 0, n);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') throw err;
    }
    return got;
  };
}

const hello = (extra: Record<string, unknown>) =>
  encodeJsonFrame(FRAME.HELLO, { wire: CLIENT_WIRE, version: 'test', cols: 80, rows: 24, cwd: '/', args: [], directTty: true, ...extra });

describe.runIf(process.platform === 'linux')('the terminal handover after a client\'s query', () => {
  test('the server leaves the terminal to the client until TERMINAL, then reads it', async () => {
    const keyboard = await inPty('stty raw -echo; echo READY; exec sleep 60');
    const c = await connected(keyboard.pty.pid);
    c.client.write(hello({ terminalQueryMs: 30_000 }));
    const welcome = await c.welcome;
    expect(welcome).toMatchObject({ directTty: true, terminalQuery: true });
    expect(c.server.tty).not.toBeNull();
    // The terminal's reply and a key typed during the query: the client reads them, all of them.
    const readByClient = clientReader(keyboard.pty.pid);
    // Not reading at all (a race for the bytes alone could be won by the client either way).
    expect(c.server.tty?.readableFlowing).not.toBe(true);
    keyboard.pty.write('\x1b[?62;22cq');
    await waitUntil(() => readByClient() === '\x1b[?62;22cq', { what: 'the client to read the reply and the key' });
    expect(c.server.keys).toEqual([]);
    // The client is done: from here on the server reads the terminal.
    c.client.write(encodeJsonFrame(FRAME.TERMINAL, { xtversion: 'kitty(0.40.0)' }));
    await waitUntil(() => c.server.tty?.readableFlowing === true, { what: 'the server to start reading its terminal' });
    keyboard.pty.write('after');
    await waitUntil(() => c.server.keys.join('') === 'after', { what: 'the keys after the handover to reach the server' });
    expect(readByClient()).toBe('\x1b[?62;22cq');
  });

  test('a client that never sends TERMINAL loses the terminal at its bound and the grace', async () => {
    const keyboard = await inPty('stty raw -echo; echo READY; exec sleep 60');
    const c = await connected(keyboard.pty.pid);
    c.client.write(hello({ terminalQueryMs: 1 }));
    expect(await c.welcome).toMatchObject({ directTty: true, terminalQuery: true });
    await waitUntil(() => c.server.log.some((l) => l.includes('sent no TERMINAL')), { what: 'the handover timer', timeoutMs: 10_000 });
    keyboard.pty.write('late');
    await waitUntil(() => c.server.keys.join('') === 'late', { what: 'the keys to reach the server' });
  });

  test('a client with no query: the server reads its terminal from the start', async () => {
    const keyboard = await inPty('stty raw -echo; echo READY; exec sleep 60');
    const c = await connected(keyboard.pty.pid);
    c.client.write(hello({}));
    expect((await c.welcome).terminalQuery).toBeUndefined();
    keyboard.pty.write('now');
    await waitUntil(() => c.server.keys.join('') === 'now', { what: 'the keys to reach the server' });
  });
});
