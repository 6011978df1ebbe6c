// One client socket: bounded NDJSON in, frames out, with backpressure both ways.
//
// Work is bounded per connection, not only frames: frames are decoded one at a time, and while the
// connection's unread answers are over maxPendingWriteBytes the rest of what it sent stays as raw
// bytes (at most one socket read) and the socket is paused. A client that sent a thousand expensive
// requests in one write and never reads therefore costs one answer's worth of memory, not a
// thousand. A connection whose backlog outgrows maxConnectionBacklogBytes, or that leaves answers
// unread for stallTimeoutMs, is closed with a final error; so is one that does not finish its hello
// or a frame it started within idleTimeoutMs (a one-byte-a-second client). Its mail is durable and
// waits in the store.
import type { Socket } from 'node:net';
import { swbError, type SwbErrorValue } from '../protocol/error-codes.js';
import type { HubLimits } from '../protocol/limits.js';
import { encodeFrame, NdjsonDecoder, type DecodedFrame } from '../protocol/ndjson-decoder.js';
import { failure, type RpcId } from '../protocol/rpc.js';
import { systemClock, type Clock } from '../util/clock.js';
import type { PeerCredentials } from '../util/peer-credentials.js';
import { TimerSlot } from '../util/timer-slot.js';
import type { SessionIdentity } from './session-registry.js';

export type Subscription = 'none' | 'mine' | 'all';

/** Requests in flight (awaiting a commit) per connection before we stop reading more. */
const MAX_IN_FLIGHT = 1024;
/** After a final error, how long the socket may take to flush it before it is cut. */
const FINAL_ERROR_GRACE_MS = 1000;

export type ConnectionLimits = Pick<
  HubLimits,
  'maxPendingWriteBytes' | 'maxConnectionBacklogBytes' | 'stallTimeoutMs' | 'maxFrameBytes' | 'idleTimeoutMs'
>;

export interface ConnectionEvents {
  onFrame(conn: HubConnection, frame: DecodedFrame): void;
  onClose(conn: HubConnection): void;
  /** Bytes of unfinished frames this connection holds changed by `delta` (the hub caps the total). */
  onUnfinished(conn: HubConnection, delta: number): void;
  /** The connection's unread answers went over (true) or back under (false) maxPendingWriteBytes. */
  onStalled(conn: HubConnection, stalled: boolean): void;
}

export class HubConnection {
  identity: SessionIdentity | null = null;
  dialect: 'rpc' | 'intercom' | null = null;
  subscription: Subscription = 'none';
  /** Who is on the other end (SO_PEERCRED), when the platform tells. */
  peer: PeerCredentials | null = null;
  private readonly decoder: NdjsonDecoder;
  private inFlight = 0;
  /** Answer bytes the requests in flight may still write (reserved when each began). */
  private reserved = 0;
  /** Requests that later frames must wait for (a hello: what follows it on the wire speaks as its session). */
  private holds = 0;
  private closed = false;
  private closing = false;
  private corked = false;
  private readonly acceptedAt: number;
  /** When the unfinished frame (if any) began, and since when answers sit unread over the limit. */
  private frameStartedAt: number | null = null;
  private stalledSince: number | null = null;
  private unfinishedReported = 0;
  /** One timer for the earliest deadline that applies, and when it is due (to leave it be when unchanged). */
  private readonly deadline: TimerSlot;
  private deadlineAt = 0;
  private readonly uncork = (): void => {
    this.corked = false;
    this.socket.uncork();
  };

  constructor(
    readonly socket: Socket,
    private readonly limits: ConnectionLimits,
    private readonly events: ConnectionEvents,
    private readonly clock: Clock = systemClock,
  ) {
    this.acceptedAt = clock.now();
    this.deadline = new TimerSlot(clock);
    this.decoder = new NdjsonDecoder(limits.maxFrameBytes);
    socket.on('data', (chunk: Buffer) => {
      this.decoder.feed(chunk);
      this.pump();
    });
    socket.on('drain', () => this.pump());
    socket.on('error', () => socket.destroy());
    socket.on('close', () => {
      this.closed = true;
      this.clearDeadline();
      this.reportUnfinished(0);
      events.onClose(this);
    });
    this.reviewDeadline();
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Answers are waiting unread beyond the limit: decoding more requests would only add to them. */
  private get overOutput(): boolean {
    return this.socket.writableLength > this.limits.maxPendingWriteBytes;
  }

  /**
   * Whether another request may start: what is unread plus what the requests in flight may still
   * write must stay within the limit. Handlers answer asynchronously, so without the reservation a
   * single write of a thousand list requests would all start before the first answer is counted.
   */
  private get mayStartMore(): boolean {
    return this.inFlight === 0 || this.socket.writableLength + this.reserved <= this.limits.maxPendingWriteBytes;
  }

  /** Decodes and handles frames while the connection may do more work, then sets reading to match. */
  private pump(): void {
    while (!this.closed && !this.closing && this.holds === 0 && !this.overOutput && this.mayStartMore && this.inFlight < MAX_IN_FLIGHT) {
      const frame = this.decoder.next();
      if (!frame) break;
      this.events.onFrame(this, frame);
    }
    this.updateReading();
  }

  /** Writes one frame; returns false if the connection is gone, closing, or was closed for its backlog. */
  write(value: unknown): boolean {
    return this.send(value, false);
  }

  /**
   * Writes the answer to one of this connection's requests, before the request ends (`endRequest`).
   * The answer to the only request in flight has no other answer to share a write with: it starts
   * no cork and leaves at once, not at the end of the tick (issue #33: a sequential sender waits
   * for it, and the request's end is bookkeeping that can follow) — unless frames of this tick are
   * corked already (a push), which it then follows in their one write.
   */
  answer(value: unknown): boolean {
    return this.send(value, this.inFlight === 1);
  }

  /** `uncorked`: write without starting a cork (one already started still holds the frame). */
  private send(value: unknown, uncorked: boolean): boolean {
    if (this.closed || this.closing || this.socket.destroyed) return false;
    const frame = encodeFrame(value);
    // A UTF-16 unit takes at most 3 bytes of UTF-8: counted exactly only when that bound could pass the limit.
    const pending = this.socket.writableLength;
    const backlog = pending + frame.length * 3 <= this.limits.maxConnectionBacklogBytes ? 0 : pending + Buffer.byteLength(frame);
    if (backlog > this.limits.maxConnectionBacklogBytes) {
      this.closeWithError(
        swbError(
          'HUB_BUSY',
          `This connection left ${backlog} bytes of answers unread, over the limit of ${this.limits.maxConnectionBacklogBytes}; the hub closed it. Mail is kept in the store.`,
        ),
      );
      return false;
    }
    // Cork until the end of this tick: a batch of answers leaves in one syscall, not one each.
    if (!uncorked && !this.corked) {
      this.corked = true;
      this.socket.cork();
      process.nextTick(this.uncork);
    }
    this.socket.write(frame);
    if (this.overOutput) this.updateReading();
    return true;
  }

  private setStalled(stalled: boolean): void {
    this.stalledSince = stalled ? this.clock.now() : null;
    this.events.onStalled(this, stalled);
  }

  /** An error in this connection's dialect (JSON-RPC failure, or an Intercom `error` envelope). */
  writeError(id: RpcId | null, error: SwbErrorValue): boolean {
    if (this.dialect === 'intercom') return this.write({ type: 'error', payload: intercomErrorPayload(error) });
    return this.write(failure(id, error));
  }

  /** Handles no further frame of this connection until `work` settles. */
  hold(work: Promise<unknown>): void {
    this.holds += 1;
    this.updateReading();
    const release = (): void => {
      this.holds -= 1;
      this.pump();
    };
    work.then(release, release);
  }

  /**
   * Tracks async requests so a pipelining client cannot queue unbounded work; `replyBytes` is the
   * most the answer may take (a page of mail: maxReplyBytes; anything else: a small frame). Called
   * while a frame is handled, inside `pump`: its loop checks the limits before the next frame and
   * sets reading when it stops, so no review of reading is needed here.
   */
  beginRequest(replyBytes: number): void {
    this.inFlight += 1;
    this.reserved += replyBytes;
  }

  endRequest(replyBytes: number): void {
    this.inFlight -= 1;
    this.reserved -= replyBytes;
    this.pump();
  }

  private updateReading(): void {
    if (this.closed) return;
    // Undecoded bytes mean pump() stopped early: read no more until it can go on.
    const busy = this.overOutput || !this.mayStartMore || this.holds > 0 || this.inFlight >= MAX_IN_FLIGHT || this.decoder.undecoded > 0;
    if (busy || this.closing) this.socket.pause();
    else this.socket.resume();
    // Stalled: unread answers are what holds this connection's work back (or pile up past the limit).
    const stalled = this.overOutput || (!this.mayStartMore && this.decoder.undecoded > 0);
    if (stalled !== (this.stalledSince !== null)) this.setStalled(stalled);
    this.reportUnfinished(this.decoder.buffered);
    this.reviewDeadline();
  }

  private reportUnfinished(bytes: number): void {
    if (bytes > 0) this.frameStartedAt ??= this.clock.now();
    else this.frameStartedAt = null;
    const delta = bytes - this.unfinishedReported;
    if (delta === 0) return;
    this.unfinishedReported = bytes;
    this.events.onUnfinished(this, delta);
  }

  /** Arms one timer for the earliest deadline that applies now (none when the connection behaves). */
  private reviewDeadline(): void {
    if (this.closed) return;
    const { idleTimeoutMs, stallTimeoutMs } = this.limits;
    // Reviewed at every request's start and end: the earliest of at most three, with no array made.
    let at = Infinity;
    if (!this.identity && idleTimeoutMs > 0) at = this.acceptedAt + idleTimeoutMs;
    if (this.frameStartedAt !== null && idleTimeoutMs > 0) at = Math.min(at, this.frameStartedAt + idleTimeoutMs);
    if (this.stalledSince !== null && stallTimeoutMs > 0) at = Math.min(at, this.stalledSince + stallTimeoutMs);
    if (at === Infinity) {
      this.clearDeadline();
      return;
    }
    // Most reviews (each read of a frame that spans reads) find the same deadline already armed.
    if (this.deadline.pending && this.deadlineAt === at) return;
    this.deadlineAt = at;
    this.deadline.set(this.onDeadline, at - this.clock.now());
  }

  private readonly onDeadline = (): void => {
    const now = this.clock.now();
    const { idleTimeoutMs, stallTimeoutMs } = this.limits;
    if (this.stalledSince !== null && now - this.stalledSince >= stallTimeoutMs) {
      // It reads nothing, so the final error will not reach it either; cut it at once.
      this.closeWithError(swbError('HUB_BUSY', `This connection left its answers unread for ${stallTimeoutMs} ms; the hub closed it.`));
      this.socket.destroy();
    } else if (!this.identity && now - this.acceptedAt >= idleTimeoutMs) {
      this.closeWithError(swbError('UNAUTHENTICATED', `No hello within ${idleTimeoutMs} ms; the hub closed this connection.`));
    } else if (this.frameStartedAt !== null && now - this.frameStartedAt >= idleTimeoutMs) {
      this.closeWithError(swbError('BAD_FRAME', `A frame was left unfinished for ${idleTimeoutMs} ms; the hub closed this connection.`));
    } else {
      this.reviewDeadline();
    }
  };

  private clearDeadline(): void {
    this.deadline.clear();
  }

  /** Called by the hub after a hello succeeds: the pre-hello deadline no longer applies. */
  identified(): void {
    this.reviewDeadline();
  }

  /** Sends a last error (if the socket takes it), stops reading and closes; cut after a grace period. */
  closeWithError(error: SwbErrorValue): void {
    if (this.closed || this.closing) return;
    const frame =
      this.dialect === 'intercom' ? { type: 'error', payload: intercomErrorPayload(error) } : failure(null, error);
    this.closing = true;
    this.clearDeadline();
    this.socket.pause();
    this.socket.end(encodeFrame(frame));
    this.clock.setTimer(() => this.socket.destroy(), FINAL_ERROR_GRACE_MS);
  }

  close(): void {
    if (!this.closed) this.socket.end();
  }

  destroy(): void {
    this.socket.destroy();
  }
}

/** An Intercom `error` envelope's payload: the code, the sentence and, when there are any, the details. */
export function intercomErrorPayload(error: SwbErrorValue): Record<string, unknown> {
  return { code: error.code, message: error.message, ...(error.details ? { details: error.details } : {}) };
}
