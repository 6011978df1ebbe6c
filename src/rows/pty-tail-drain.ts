// node-pty 1.1.0 can lose the last output of a program that exits quickly. Two paths close the
// pty master while the kernel still holds bytes the program wrote:
//  1. libuv treats "short read + POLLHUP" as end of stream. A pty master read returns at most
//     4095 bytes (one line-discipline buffer) even when more is queued, so once the program has
//     closed its side, libuv reports EOF with data still waiting, and the socket is destroyed.
//  2. When the exit arrives before the socket closed, node-pty destroys the socket after 200 ms.
//     If the row is paused for flow control at that moment, whatever is queued is thrown away.
// Both end in `socket.destroy()`, so this hooks that one call: before the descriptor is closed,
// it hands over what the stream already buffered and then reads the descriptor dry (it is
// non-blocking: a read returns data, EAGAIN while the program's side is still open, or EIO once
// it is closed and empty). The descriptor is only read while the socket still owns it, so a
// reused descriptor number can never be read by mistake.
import { readSync } from 'node:fs';
import type { IPty } from 'node-pty';

/** The slice of node-pty's UnixTerminal internals this workaround relies on, checked at runtime. */
interface PtySocket {
  destroy: (...args: unknown[]) => unknown;
  read: (size?: number) => unknown;
  readonly destroyed: boolean;
  readonly readableLength: number;
}

/** Upper bound for one drain, so a program that keeps writing cannot hold the event loop. */
const DEFAULT_MAX_DRAIN_BYTES = 8 * 1024 * 1024;
const READ_SIZE = 64 * 1024;

function socketOf(pty: IPty): PtySocket | undefined {
  const candidate = (pty as unknown as { _socket?: unknown })._socket;
  if (typeof candidate !== 'object' || candidate === null) return undefined;
  const s = candidate as Partial<PtySocket>;
  if (typeof s.destroy !== 'function' || typeof s.read !== 'function') return undefined;
  return candidate as PtySocket;
}

function fdOf(pty: IPty): number | undefined {
  const fd = (pty as unknown as { fd?: unknown }).fd;
  return typeof fd === 'number' && Number.isInteger(fd) && fd >= 0 ? fd : undefined;
}

export interface TailDrain {
  /** False when node-pty's internals did not have the expected shape (the defect is then unhandled). */
  readonly installed: boolean;
  /** True once the master has been read dry and handed to the socket's destroy. */
  readonly finished: boolean;
}

/**
 * Installs the drain on a freshly spawned pty. `deliver` receives the bytes read directly from
 * the descriptor; bytes the stream had already buffered still arrive through `pty.onData`,
 * which stays in order because they are released first. While `wanted()` returns false (the
 * owner is gone) the descriptor is closed without reading it.
 */
export function installTailDrain(
  pty: IPty,
  deliver: (chunk: Buffer) => void,
  wanted: () => boolean = () => true,
  maxBytes: number = DEFAULT_MAX_DRAIN_BYTES,
  /** Runs first: output someone else read meanwhile (RowProcess.lendOutput) goes before the drain's. */
  beforeDrain: () => void = () => {},
): TailDrain {
  const socket = socketOf(pty);
  const fd = fdOf(pty);
  const state = { installed: false, finished: false };
  if (socket === undefined || fd === undefined || process.platform === 'win32') return state;

  const originalDestroy = socket.destroy;
  socket.destroy = function destroyAfterDrain(this: PtySocket, ...args: unknown[]): unknown {
    if (!state.finished) {
      state.finished = true;
      beforeDrain();
      if (!socket.destroyed && wanted()) drain(socket, fd, deliver, maxBytes);
    }
    return originalDestroy.apply(this, args);
  };
  state.installed = true;
  return state;
}

function drain(socket: PtySocket, fd: number, deliver: (chunk: Buffer) => void, maxBytes: number): void {
  // Chunks the stream read before it was paused or ended: read() emits them as 'data'.
  while (socket.readableLength > 0) {
    if (socket.read() === null) break;
  }
  const buf = Buffer.allocUnsafe(READ_SIZE);
  let total = 0;
  while (total < maxBytes) {
    let n: number;
    try {
      n = readSync(fd, buf, 0, READ_SIZE, null);
    } catch {
      break; // EAGAIN: nothing queued now; EIO: the program's side is closed and empty.
    }
    if (n <= 0) break;
    total += n;
    deliver(Buffer.from(buf.subarray(0, n)));
  }
}
