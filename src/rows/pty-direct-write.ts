// Keystrokes reach the program without a thread-pool round trip. node-pty 1.1.0 writes input with
// an asynchronous fs.write, i.e. on libuv's worker threads: every keystroke waits for a worker to
// wake and then for its completion to come back, a sizeable part of the keystroke-to-echo budget
// (`npm run bench:render -- --only=echo` measures that budget).
// The pty master is non-blocking, so a synchronous write() cannot stall the event loop: it writes
// what the kernel takes and returns. Here input is written directly when node-pty has nothing
// queued (so order is kept), and whatever the kernel did not take is handed to node-pty's own queue,
// which retries on EAGAIN. The descriptor is only written while node-pty's
// socket still owns it, so a closed and reused descriptor number is never written by mistake.
import type { IPty } from 'node-pty';
import { writeThrough } from '../util/write-through.js';

/** The slice of node-pty's UnixTerminal internals this relies on, checked at runtime. */
interface PtyInternals {
  readonly fd: number;
  readonly _socket: { readonly destroyed: boolean };
  readonly _writeStream: { readonly _writeQueue: readonly unknown[] };
}

function internalsOf(pty: IPty): PtyInternals | undefined {
  const p = pty as unknown as Partial<PtyInternals>;
  const fd = p.fd;
  if (typeof fd !== 'number' || !Number.isInteger(fd) || fd < 0) return undefined;
  if (typeof p._socket !== 'object' || p._socket === null || typeof p._socket.destroyed !== 'boolean') return undefined;
  if (typeof p._writeStream !== 'object' || p._writeStream === null || !Array.isArray(p._writeStream._writeQueue)) return undefined;
  return p as PtyInternals;
}

export interface PtyWriter {
  write(data: string | Buffer): void;
  /** False when node-pty's internals are not the expected ones: every write goes through its queue. */
  readonly direct: boolean;
  /** The master's descriptor while a write there would be next in order (node-pty's queue is empty), else undefined. */
  directFd(): number | undefined;
}

export function ptyWriter(pty: IPty): PtyWriter {
  const internals = internalsOf(pty);
  if (!internals) return { write: (data) => pty.write(data), direct: false, directFd: () => undefined };
  return {
    direct: true,
    directFd: () => (internals._socket.destroyed || internals._writeStream._writeQueue.length > 0 ? undefined : internals.fd),
    write(data: string | Buffer): void {
      const buffer = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
      if (buffer.length === 0) return;
      if (internals._socket.destroyed || internals._writeStream._writeQueue.length > 0) {
        pty.write(buffer);
        return;
      }
      // A failure other than EAGAIN (EIO: the program's side is closed) means the input has
      // nowhere to go: dropped rather than let node-pty print "Unhandled pty write error" over the
      // dashboard; the exit is reported anyway.
      writeThrough(internals.fd, buffer, (rest) => pty.write(rest));
    },
  };
}
