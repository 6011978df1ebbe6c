// A flood of plain lines is fast-forwarded: the lines that would scroll out of history before
// anyone could see them are cut from a row's parse queue unparsed (plain-backlog.ts says when that
// is exact). When the lines the cut keeps for history are simple (printable ASCII, no wider than
// the screen), they are taken into history as text rather than parsed, and only the lines the
// emulator keeps as cells are parsed. It needs to see xterm's parser and buffer state through an
// EmulatorProbe (xterm-state.ts); without one, a row parses every byte.
import type { Clock } from '../util/clock.js';
import { applyPlainCut, findPlainCut, findSpillCut, scanPlain, simpleLines } from './plain-backlog.js';
import type { ParseQueue, QueuedChunk } from './parse-queue.js';
import type { SpilledHistory } from './spilled-history.js';
import type { EmulatorProbe } from './xterm-state.js';

/** Puts the cursor home and erases the screen and scrollback (see plain-backlog.ts on spilling). */
const ERASE_ALL = '\x1b[H\x1b[2J\x1b[3J';
/** A fast-forward is worth its scan when it drops at least this many lines... */
const MIN_CUT_LINES = 1024;
/** ...and bytes. */
const MIN_CUT_BYTES = 8 * 1024;

/** How a row keeps its history: `depth` lines in all, `emulatorScrollback` of them as cells, the rest spilled. */
export interface HistoryShape {
  readonly depth: number;
  readonly emulatorScrollback: number;
  /** Where older lines go as text; null when the emulator keeps the whole history. */
  readonly spilled: SpilledHistory | null;
}

/** Part of a plain queued chunk, with its own line count. */
function sliceChunk(chunk: QueuedChunk, start: number, end: number): QueuedChunk {
  const bytes = chunk.data as Uint8Array;
  // The byte before the slice: the chunk's own, or what preceded the chunk.
  const prevByte = start > 0 ? bytes[start - 1]! : chunk.prevByte;
  const data = bytes.subarray(start, end);
  return { data, at: chunk.at, plain: true, lineEnds: scanPlain(data, prevByte).lineEnds, prevByte };
}

const chunkLength = (chunk: QueuedChunk): number => chunk.data.length;

export class FastForward {
  private skipped = 0;
  private spilledText = 0;

  constructor(
    /** The emulator's internals, read before each cut. */
    readonly probe: EmulatorProbe,
    private readonly history: HistoryShape,
    private readonly clock: Clock,
  ) {}

  /**
   * Bytes of plain floods cut unparsed: dropped because they would have scrolled out of history,
   * or taken into history as text (spilledAsTextBytes of them).
   */
  get skippedBytes(): number {
    return this.skipped;
  }

  /** Of skippedBytes, the lines taken into history as text without being parsed. */
  get spilledAsTextBytes(): number {
    return this.spilledText;
  }

  /**
   * Cuts the part of `queue`'s plain backlog that would scroll out of history anyway, for a screen
   * of `rows` x `cols` (see plain-backlog.ts for why the screen and history come out the same as
   * after parsing it). Does nothing unless every waiting chunk is plain and the cut pays.
   */
  run(queue: ParseQueue, rows: number, cols: number): void {
    const probe = this.probe;
    if (queue.notPlain > 0) return;
    const keepLines = 2 * rows + this.history.depth;
    if (queue.lineEnds < keepLines + MIN_CUT_LINES) return;
    if (!probe.atGround() || !probe.scrollsWholeScreen()) return;
    const queued = queue.waiting();
    // Every queued chunk is plain here: bytes, never strings.
    const chunks = queued.map((chunk) => chunk.data as Uint8Array);
    const lineEnds = queued.map((chunk) => chunk.lineEnds);
    if (this.spillHistory(queue, queued, chunks, lineEnds, rows, cols)) return;
    const cut = findPlainCut(chunks, keepLines, MIN_CUT_BYTES, lineEnds);
    if (cut === null) return;
    // Whole chunks keep their records; the (at most two) the cut goes through are rescanned.
    const tail = applyPlainCut(queued, cut, chunkLength, sliceChunk);
    this.skipped += cut.bytes;
    queue.replace(tail, -cut.bytes);
  }

  /**
   * The fast-forward that also takes the history's lines as text rather than parsing them, when
   * they are simple (see plain-backlog.ts): the backlog becomes an erase of the emulator, the
   * spilled lines, and the tail the emulator keeps as cells. False when it does not apply.
   * `chunks` and `lineEnds` are `queued`'s bytes and line counts, read once by run().
   */
  private spillHistory(queue: ParseQueue, queued: QueuedChunk[], chunks: Uint8Array[], lineEnds: number[], rows: number, cols: number): boolean {
    const { spilled, depth, emulatorScrollback } = this.history;
    if (spilled === null || !this.probe.asciiCharset()) return false;
    const keepLines = 2 * rows + emulatorScrollback;
    if (queue.lineEnds < keepLines + depth + 1 + MIN_CUT_LINES) return false;
    const cut = findSpillCut(chunks, keepLines, depth, lineEnds);
    if (cut === null) return false;
    const text = simpleLines(chunks, cut.spillFrom, cut.tailFrom, cols);
    if (text === null) return false;
    const erase: QueuedChunk = { data: ERASE_ALL, at: this.clock.now(), plain: false, lineEnds: 0, prevByte: -1, afterParse: () => spilled.appendAsciiLines(text) };
    const tail = applyPlainCut(queued, { from: { index: 0, offset: 0 }, to: cut.tailFrom, bytes: cut.bytes }, chunkLength, sliceChunk);
    this.skipped += cut.bytes;
    this.spilledText += text.length;
    queue.replace([erase, ...tail], ERASE_ALL.length - cut.bytes);
    return true;
  }
}
