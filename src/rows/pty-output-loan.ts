// A row's output may be read by someone else for a while: the key relay's thread reads the
// attached row's next output itself, to echo a keystroke onto the operator's terminal before the
// event loop even wakes (native/key-relay.c, arm). node-pty's own reader must then be stopped for
// real — a paused stream (a tty stream's high-water mark is 0) still has its read started, and the
// next chunk would be read into it, out of order with the borrower's. Stopping the handle's read is
// what net.Socket's pause() does in `onread` mode; here it is done on node-pty's stream, whose
// internals are checked at runtime (without them, nothing is lent).
import type { IPty } from 'node-pty';
import { disarmStoppedRead } from '../util/loop-disarm.js';
import { handleFd } from '../util/native-addon.js';

/** The slice of node-pty's UnixTerminal stream this relies on. */
interface PtyStream {
  pause(): unknown;
  resume(): unknown;
  readonly destroyed: boolean;
  readonly readableLength: number;
  readonly _handle: { reading: boolean; readStop(): number; readStart(): number } | null;
  readonly _readableState: { reading: boolean };
}

function streamOf(pty: IPty): PtyStream | undefined {
  const s = (pty as unknown as { _socket?: Partial<PtyStream> })._socket;
  if (typeof s !== 'object' || s === null || typeof s.pause !== 'function' || typeof s.resume !== 'function') return undefined;
  const h = s._handle;
  if (typeof h !== 'object' || h === null || typeof h.readStop !== 'function' || typeof h.readStart !== 'function' || typeof h.reading !== 'boolean') return undefined;
  if (typeof s._readableState !== 'object' || s._readableState === null || typeof s._readableState.reading !== 'boolean') return undefined;
  return s as PtyStream;
}

/** The row's output, lent: `deliver` what was read, in order, then `end` the loan. */
export interface OutputLoan {
  /** Output the borrower read: goes on as node-pty's own reads do. */
  deliver(chunk: Buffer): void;
  /** node-pty reads again (unless the row has paused its output meanwhile). */
  end(): void;
}

/** A row as far as lending its output goes (Row.lendOutput). */
export interface OutputLender {
  lendOutput(recall: () => void): OutputLoan | undefined;
}

/**
 * Stops node-pty's reads of `pty` now, or returns false when it cannot (internals not as expected,
 * the stream gone, or holding output it has not handed out yet). Its fd leaves the event loop's
 * epoll set at once: libuv leaves a stopped fd there until it next turns readable, and then wakes
 * the loop only to delete it (src/util/loop-disarm.ts): a borrower's reads, and a paused row's
 * program writing on, would each wake the server for nothing.
 */
export function stopPtyReads(pty: IPty): boolean {
  const stream = streamOf(pty);
  if (!stream || stream.destroyed || stream.readableLength > 0) return false;
  stream.pause();
  // The stream counts a read as under way: nothing in it may ask the handle for one meanwhile.
  // Between reads it would — a resume() asked for a tick earlier (a loan that just ended) reads
  // on its turn, and net.Socket's _read starts the handle — and node-pty would read the output
  // the borrower is reading, out of order with it.
  stream._readableState.reading = true;
  const handle = stream._handle!;
  if (handle.reading) {
    handle.reading = false;
    handle.readStop();
  }
  const fd = handleFd(stream);
  if (fd !== undefined) disarmStoppedRead(fd);
  return true;
}

/** Stops node-pty's reads of `pty` (stopPtyReads), or where it cannot, pauses its stream. */
export function pausePtyReads(pty: IPty): void {
  if (!stopPtyReads(pty)) pty.pause();
}

/**
 * node-pty reads again (after stopPtyReads, pausePtyReads, or a plain pause). After stopPtyReads the stream's
 * resume() alone would not: it counts a read as under way (Readable's `reading`, set there), and
 * never asks again; net.Socket's own resume() in `onread` mode starts the handle's read the same way.
 */
export function resumePtyReads(pty: IPty): void {
  const stream = streamOf(pty);
  if (!stream) {
    pty.resume(); // no internals to lend with: nothing was ever stopped here either
    return;
  }
  if (stream.destroyed) return;
  stream.resume();
  const handle = stream._handle!;
  if (!handle.reading) {
    handle.reading = true;
    handle.readStart();
  }
}
