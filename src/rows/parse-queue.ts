// A row's output between the pty and its emulator: the chunks waiting for their parse turn, what
// the flood rules read of them (how many are plain, how many lines they end), and the bytes not
// parsed yet, queued or in flight, with the two watermarks that say when the pty should pause and
// when it may resume. RowScreen decides what is handed over when (ParseScheduler turns, the flood
// policy, the fast-forward); this only keeps the counts true, on the hot path, without allocating.
import { Emitter, type Event } from '../util/event.js';
import type { Disposable } from '../util/lifecycle.js';

/** Unparsed bytes above which the owner should pause the pty. */
export const DEFAULT_HIGH_WATERMARK = 256 * 1024;
/** Unparsed bytes below which a paused pty may resume. */
export const DEFAULT_LOW_WATERMARK = 32 * 1024;

/** Output waiting for its parse turn. */
export interface QueuedChunk {
  data: Uint8Array | string;
  /** Clock time when it arrived. */
  at: number;
  /** Every byte is plain (see plain-backlog.ts); strings never count as plain. */
  plain: boolean;
  /** CR LF pairs that end in it (when plain). */
  lineEnds: number;
  /** The byte written just before it (-1: none or unknown), for CR LF pairs split across chunks. */
  prevByte: number;
  /** Runs once xterm has parsed it, before anything queued after it. */
  afterParse?: () => void;
}

/** Put in a taken chunk's place, so the array does not hold on to its bytes. */
const EMPTY_CHUNK: QueuedChunk = { data: '', at: 0, plain: true, lineEnds: 0, prevByte: -1 };

export class ParseQueue implements Disposable {
  /** Queued output, oldest first (from `head`). */
  private chunks: QueuedChunk[] = [];
  private head = 0;
  private notPlainCount = 0;
  private lineEndCount = 0;
  /** Bytes written and not parsed yet: queued or in flight. */
  private pendingCount = 0;
  /** Bytes handed to the emulator in the current turn; parsed when batchParsed() is called. */
  private inFlightCount = 0;
  private backedUp = false;
  private flushWaiters: Array<() => void> = [];
  private readonly lowWatermark: number;
  private readonly pressureEmitter = new Emitter<boolean>();

  /** true: the parser is behind, pause the pty; false: caught up, resume it. */
  readonly onPressure: Event<boolean> = this.pressureEmitter.event;

  constructor(
    private readonly highWatermark: number = DEFAULT_HIGH_WATERMARK,
    lowWatermark: number = DEFAULT_LOW_WATERMARK,
  ) {
    this.lowWatermark = Math.min(lowWatermark, highWatermark);
  }

  /** No chunk is waiting (bytes may still be in flight). */
  get isEmpty(): boolean {
    return this.head === this.chunks.length;
  }

  /** The oldest waiting chunk. */
  get oldest(): QueuedChunk | undefined {
    return this.chunks[this.head];
  }

  /** Waiting chunks that are not plain; while any waits there is no fast-forward or deferral. */
  get notPlain(): number {
    return this.notPlainCount;
  }

  /** CR LF pairs in the waiting chunks. */
  get lineEnds(): number {
    return this.lineEndCount;
  }

  /** Bytes written that the parser has not processed yet. */
  get pending(): number {
    return this.pendingCount;
  }

  get inFlight(): number {
    return this.inFlightCount;
  }

  /** True between a pressure(true) and the matching pressure(false). */
  get isBackedUp(): boolean {
    return this.backedUp;
  }

  /** Bytes written straight to the emulator (nothing queued, nothing in flight): one batch of its own. */
  handOver(bytes: number): void {
    this.pendingCount += bytes;
    this.inFlightCount = bytes;
  }

  push(chunk: QueuedChunk): void {
    this.chunks.push(chunk);
    if (chunk.plain) this.lineEndCount += chunk.lineEnds;
    else this.notPlainCount++;
    this.pendingCount += chunk.data.length;
  }

  /** Past the high watermark, and not told yet: the owner may cut a flood before pressing. */
  get overHighWatermark(): boolean {
    return !this.backedUp && this.pendingCount > this.highWatermark;
  }

  /** Tells pressure(true) when still past the high watermark. */
  pressIfOver(): void {
    if (this.overHighWatermark) {
      this.backedUp = true;
      this.pressureEmitter.fire(true);
    }
  }

  /** Takes the oldest waiting chunk (the caller knows there is one). */
  take(): QueuedChunk {
    const chunk = this.chunks[this.head]!;
    this.chunks[this.head] = EMPTY_CHUNK;
    this.head++;
    if (chunk.plain) this.lineEndCount -= chunk.lineEnds;
    else this.notPlainCount--;
    return chunk;
  }

  /** The bytes of this turn's chunks, handed over; called once per turn, after the last take(). */
  startBatch(bytes: number): void {
    this.inFlightCount = bytes;
  }

  /** After a turn: drops the taken chunks' slots once enough of them piled up. */
  compact(): void {
    if (this.head === this.chunks.length) {
      this.chunks = [];
      this.head = 0;
    } else if (this.head >= 1024) {
      this.chunks = this.chunks.slice(this.head);
      this.head = 0;
    }
  }

  /** A copy of the waiting chunks, oldest first (for a fast-forward to cut). */
  waiting(): QueuedChunk[] {
    return this.chunks.slice(this.head);
  }

  /**
   * The waiting chunks become `chunks` (a fast-forward's result), the pending count moving by
   * `pendingDelta` bytes; may tell pressure(false).
   */
  replace(chunks: QueuedChunk[], pendingDelta: number): void {
    let lineEnds = 0;
    let notPlain = 0;
    for (const chunk of chunks) {
      if (chunk.plain) lineEnds += chunk.lineEnds;
      else notPlain++;
    }
    this.chunks = chunks;
    this.head = 0;
    this.lineEndCount = lineEnds;
    this.notPlainCount = notPlain;
    this.pendingCount += pendingDelta;
    this.relievePressure();
  }

  /** The turn's batch is parsed: true when more is pending (the owner asks for another turn). */
  batchParsed(): boolean {
    this.pendingCount -= this.inFlightCount;
    this.inFlightCount = 0;
    this.relievePressure();
    if (this.pendingCount > 0) return true;
    if (this.flushWaiters.length > 0) this.releaseWaiters();
    return false;
  }

  /** Resolves once everything written so far has been parsed. */
  flush(): Promise<void> {
    if (this.pendingCount === 0) return Promise.resolve();
    return new Promise((resolve) => this.flushWaiters.push(resolve));
  }

  private relievePressure(): void {
    if (this.backedUp && this.pendingCount <= this.lowWatermark) {
      this.backedUp = false;
      this.pressureEmitter.fire(false);
    }
  }

  private releaseWaiters(): void {
    const waiters = this.flushWaiters;
    this.flushWaiters = [];
    for (const resolve of waiters) resolve();
  }

  /** Drops what waits and releases every flush() (nothing more will be parsed). */
  dispose(): void {
    this.chunks = [];
    this.head = 0;
    this.pressureEmitter.dispose();
    this.releaseWaiters();
  }
}
