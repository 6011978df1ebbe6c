// One authenticated WebSocket as the PageSocket the page session and the Intercom event stream see
// (web-contract.ts). It bounds what the other end can make us do, as the hub's socket does: a frame
// over the size cap is refused by `ws` before it is buffered (maxPayload) and closes the socket; so
// does a frame that is not JSON text, and a page sending faster than its rate. Outgoing frames are
// never waited for: a page whose unsent bytes pass the bound is closed and its frame dropped.
import type { WebSocket } from 'ws';
import { RateLimiter } from '../hub/rate-limiter.js';
import { systemClock } from '../util/clock.js';
import { Emitter } from '../util/event.js';
import type { PageSocket, ServerToPage } from './web-contract.js';

export interface PageSocketLimits {
  /** Largest frame a page may send (bytes). */
  maxFrameBytes: number;
  /** Frames a page may send per second (twice that in a burst). */
  framesPerSecond: number;
  /** Unsent bytes a page may leave queued before it is dropped. */
  maxBufferedBytes: number;
}

export const DEFAULT_PAGE_SOCKET_LIMITS: PageSocketLimits = {
  maxFrameBytes: 64 * 1024,
  framesPerSecond: 200,
  maxBufferedBytes: 8 * 1024 * 1024,
};

/** Close codes (RFC 6455): policy violation, too big, unsupported data, try again later. */
export const CLOSE_POLICY = 1008;
export const CLOSE_TOO_BIG = 1009;
export const CLOSE_UNSUPPORTED = 1003;
export const CLOSE_SLOW = 1013;

/** How long a closed page has to answer the close handshake before it is cut. */
const CLOSE_GRACE_MS = 2000;

export class BoundedPageSocket implements PageSocket {
  private readonly messages = new Emitter<unknown>();
  private readonly closed = new Emitter<void>();
  readonly onMessage = this.messages.event;
  readonly onClose = this.closed.event;
  private readonly rate: RateLimiter;
  private ended = false;

  constructor(
    private readonly ws: WebSocket,
    private readonly limits: PageSocketLimits,
  ) {
    this.rate = new RateLimiter(limits.framesPerSecond, systemClock.now, 2);
    ws.on('message', (data, isBinary) => this.receive(data as Buffer | Buffer[] | ArrayBuffer, isBinary));
    ws.on('error', () => ws.terminate());
    ws.on('close', () => {
      if (this.ended) return;
      this.ended = true;
      this.closed.fire();
      this.messages.dispose();
      this.closed.dispose();
    });
  }

  get bufferedBytes(): number {
    return this.ws.bufferedAmount;
  }

  send(message: ServerToPage | object): boolean {
    if (this.ended || this.ws.readyState !== this.ws.OPEN) return false;
    const text = JSON.stringify(message);
    if (this.ws.bufferedAmount + Buffer.byteLength(text) > this.limits.maxBufferedBytes) {
      // The page does not read: drop it rather than hold the server's memory for it.
      this.close(CLOSE_SLOW, 'too slow');
      return false;
    }
    this.ws.send(text);
    return true;
  }

  close(code = 1000, reason = ''): void {
    if (this.ws.readyState === this.ws.CLOSED) return;
    this.ws.close(code, reason.slice(0, 120));
    // A page that does not answer the close handshake is cut.
    systemClock.setTimer(() => this.ws.terminate(), CLOSE_GRACE_MS);
  }

  private receive(data: Buffer | Buffer[] | ArrayBuffer, isBinary: boolean): void {
    if (this.ended) return;
    if (this.rate.take('frames') > 0) {
      this.close(CLOSE_POLICY, 'too many frames');
      return;
    }
    if (isBinary) {
      this.close(CLOSE_UNSUPPORTED, 'text frames only');
      return;
    }
    const text = Buffer.isBuffer(data) ? data.toString('utf8') : Array.isArray(data) ? Buffer.concat(data).toString('utf8') : Buffer.from(data).toString('utf8');
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      this.close(CLOSE_UNSUPPORTED, 'not JSON');
      return;
    }
    this.messages.fire(value);
  }
}
