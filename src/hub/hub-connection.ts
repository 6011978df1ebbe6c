// One client socket: bounded NDJSON in, frames out, with backpressure both ways. A client that
// does not read its responses stops being read from; one that lets pushes pile up far past the
// limit is disconnected (its mail is durable and waits in the store).
import type { Socket } from 'node:net';
import { encodeFrame, NdjsonDecoder, type DecodedFrame } from '../protocol/ndjson-decoder.js';
import type { SessionIdentity } from './session-registry.js';

export type Subscription = 'none' | 'mine' | 'all';

/** Requests in flight (awaiting a commit) per connection before we stop reading more. */
const MAX_IN_FLIGHT = 1024;

export class HubConnection {
  identity: SessionIdentity | null = null;
  dialect: 'rpc' | 'intercom' | null = null;
  subscription: Subscription = 'none';
  private readonly decoder: NdjsonDecoder;
  private inFlight = 0;
  private pausedForWrites = false;
  private closed = false;
  private corked = false;
  private readonly uncork = (): void => {
    this.corked = false;
    this.socket.uncork();
  };

  constructor(
    readonly socket: Socket,
    private readonly maxPendingWriteBytes: number,
    maxFrameBytes: number,
    private readonly onFrame: (conn: HubConnection, frame: DecodedFrame) => void,
    onClose: (conn: HubConnection) => void,
  ) {
    this.decoder = new NdjsonDecoder(maxFrameBytes);
    socket.on('data', (chunk: Buffer) => {
      for (const frame of this.decoder.push(chunk)) {
        if (this.closed) return;
        this.onFrame(this, frame);
      }
    });
    socket.on('drain', () => {
      if (this.pausedForWrites) {
        this.pausedForWrites = false;
        this.updateReading();
      }
    });
    socket.on('error', () => socket.destroy());
    socket.on('close', () => {
      this.closed = true;
      onClose(this);
    });
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Writes one frame; returns false if the connection is gone or was dropped for not reading. */
  write(value: unknown): boolean {
    if (this.closed || this.socket.destroyed) return false;
    if (this.socket.writableLength > this.maxPendingWriteBytes * 4) {
      this.socket.destroy();
      return false;
    }
    // Cork until the end of this tick: a batch of answers leaves in one syscall, not one each.
    if (!this.corked) {
      this.corked = true;
      this.socket.cork();
      process.nextTick(this.uncork);
    }
    if (!this.socket.write(encodeFrame(value)) || this.socket.writableLength > this.maxPendingWriteBytes) {
      this.pausedForWrites = true;
      this.updateReading();
    }
    return true;
  }

  /** Tracks async requests so a pipelining client cannot queue unbounded work. */
  beginRequest(): void {
    this.inFlight += 1;
    this.updateReading();
  }

  endRequest(): void {
    this.inFlight -= 1;
    this.updateReading();
  }

  private updateReading(): void {
    if (this.closed) return;
    if (this.pausedForWrites || this.inFlight >= MAX_IN_FLIGHT) this.socket.pause();
    else this.socket.resume();
  }

  close(): void {
    if (!this.closed) this.socket.end();
  }

  destroy(): void {
    this.socket.destroy();
  }
}
