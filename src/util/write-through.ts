// One write(2) straight to a non-blocking descriptor, for a writer whose own queue is empty: the
// attached row's keystrokes into its pty (rows/pty-direct-write.ts) and its echo onto the
// operator's terminal (server/client-tty.ts). A stream's write would add a write request and a
// callback turn (node-pty's even a thread-pool round trip) between a keystroke and its echo.
import { writeSync } from 'node:fs';

/**
 * Writes `data` to `fd` at once. What the descriptor does not take (a short write, or EAGAIN:
 * nothing at all) goes to `queue`, the writer's own queue, which writes it once the descriptor
 * takes more; everything written after must then follow it through that queue, in order.
 * Returns false when the write failed otherwise (the descriptor is gone): nothing was queued.
 */
export function writeThrough(fd: number, data: Buffer | string, queue: (rest: Buffer | string) => void): boolean {
  let written = 0;
  try {
    written = typeof data === 'string' ? writeSync(fd, data) : writeSync(fd, data);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') return false;
  }
  if (written === 0) queue(data);
  else if (typeof data === 'string') {
    if (written < Buffer.byteLength(data)) queue(Buffer.from(data, 'utf8').subarray(written));
  } else if (written < data.length) queue(data.subarray(written));
  return true;
}
