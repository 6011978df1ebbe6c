// The server draws straight onto a client's terminal and reads its keys from it, as tmux's server
// does: the thin client then only carries the size and the goodbye. Relaying every keystroke and
// every frame through the client cost two more process hops on the echo path (the operator types,
// the client reads, writes the socket; the server answers, the client reads, writes the terminal),
// and a node process per hop is most of what swb's echo cost beyond tmux's.
//
// The terminal is taken from the connection, never from what the client says: the kernel names the
// peer's pid (SO_PEERCRED), and the server opens that process's own fd 0 through /proc — so it can
// only ever be a terminal the client holds. It must also be the client's fd 1, a character device,
// a tty, ours (the uid that runs this server), and not the server's own controlling terminal (a
// server started by hand in that very terminal would stop on SIGTTIN). Opened O_NOCTTY: the server
// runs in its own session, and a tty opened without it would become its controlling terminal.
// Anything short of that and the client relays as before (the reason goes to the log).
import { closeSync, constants, fstatSync, openSync, readlinkSync, statSync } from 'node:fs';
import type { OnReadOpts, SocketConstructorOpts } from 'node:net';
import { isatty, ReadStream } from 'node:tty';
import { readProcStat } from '../rows/process-tree.js';
import { handleFd } from '../util/native-addon.js';
import { myUid } from '../util/private-path.js';
import { writeThrough } from '../util/write-through.js';

/** Where Linux keeps terminals: pseudo-terminals, virtual consoles, serial lines. */
const TERMINAL_NAME = /^\/dev\/(pts\/\d+|tty[A-Za-z0-9]*|console)$/;

/** The most a read of the terminal takes at once (a keystroke is a few bytes; a paste comes in more reads). */
const KEYS_READ_BYTES = 16 * 1024;

/**
 * A client's terminal opened by the server, or why it could not be (the client then relays).
 * `onKeys` gets what the operator types, read by libuv into one buffer and handed over as a copy
 * (net.Socket's `onread`): in that mode pause() stops the reads at once (a tty stream otherwise
 * has read one more chunk by then), which a KeyRelay taking the reads over relies on. Without
 * it, the stream reads as usual, for a 'data' listener.
 */
export function openClientTty(pid: number, onKeys?: (chunk: Buffer) => void): ReadStream | string {
  if (process.platform !== 'linux') return `no /proc/PID/fd on ${process.platform}`;
  if (!Number.isInteger(pid) || pid <= 0) return 'the kernel does not name the client process (another pid namespace?)';
  const input = `/proc/${pid}/fd/0`;
  let terminal: { dev: number; ino: number; rdev: number };
  try {
    // Opening a device can do things (a modem line, a watchdog): only ever a terminal's name.
    const name = readlinkSync(input);
    if (!TERMINAL_NAME.test(name)) return `the client's stdin is not a terminal (${name.slice(0, 100)})`;
    const a = statSync(input);
    const b = statSync(`/proc/${pid}/fd/1`);
    if (!a.isCharacterDevice() || a.rdev !== b.rdev || a.ino !== b.ino) return `the client's stdin and stdout are not one terminal`;
    terminal = { dev: a.dev, ino: a.ino, rdev: a.rdev };
  } catch (err) {
    return `the client's terminal is out of reach (${(err as NodeJS.ErrnoException).code ?? String(err)})`;
  }
  if (terminal.rdev === (readProcStat(process.pid)?.ttyNr ?? 0)) return `the client runs in the server's own controlling terminal`;
  let fd: number;
  try {
    fd = openSync(input, constants.O_RDWR | constants.O_NOCTTY | constants.O_NONBLOCK);
  } catch (err) {
    return `could not open the client's terminal (${(err as NodeJS.ErrnoException).code ?? String(err)})`;
  }
  try {
    // The pid could have gone and come back as another process between the two looks.
    if (!isatty(fd)) throw new Error(`the client's stdin is not a terminal`);
    if (!sameFile(fd, terminal)) throw new Error(`the client's terminal changed while it was opened`);
    const st = fstatSync(fd);
    if (st.uid !== myUid()) throw new Error(`the client's terminal belongs to uid ${st.uid}`);
  } catch (err) {
    closeSync(fd);
    return (err as Error).message;
  }
  // tty.ReadStream hands its options to net.Socket, whose `onread` its typings leave out.
  const onread: OnReadOpts | undefined = onKeys && { buffer: Buffer.allocUnsafe(KEYS_READ_BYTES), callback: (n, buf) => (onKeys(Buffer.from(buf.subarray(0, n))), true) };
  const stream = new ReadStream(fd, onread && ({ onread } as SocketConstructorOpts));
  // libuv reopens a tty by its name (in this process's /dev) so that non-blocking mode is this
  // process's alone, and leaves the fd it was given open beside its own: close that one, and make
  // sure the name led to the same terminal.
  const own = handleFd(stream);
  if (own !== undefined && own !== fd) {
    closeSync(fd);
    if (!sameFile(own, terminal)) {
      stream.destroy();
      return `the client's terminal has another name here (another mount namespace?)`;
    }
  }
  return stream;
}

function sameFile(fd: number, want: { dev: number; ino: number; rdev: number }): boolean {
  const st = fstatSync(fd);
  return st.isCharacterDevice() && st.dev === want.dev && st.ino === want.ino && st.rdev === want.rdev;
}

/**
 * Writes to a client's terminal (opened above) with one write(2) while nothing waits in the
 * stream (writeThrough). The descriptor is non-blocking (libuv's own, as a tty.ReadStream leaves
 * it), so a terminal that does not read can never stall the server: what it does not take waits
 * in the stream, which writes it once the terminal reads, and what comes after follows it there.
 * Any other failure is the stream's to meet (its write fails the same way, and it reports it).
 */
export function ttyWriter(stream: ReadStream): (data: string) => void {
  const fd = handleFd(stream);
  const queue = (data: Buffer | string): void => void stream.write(data);
  if (fd === undefined) return queue;
  return (data) => {
    if (stream.writableLength > 0 || stream.destroyed || !writeThrough(fd, data, queue)) queue(data);
  };
}
