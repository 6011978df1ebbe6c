// A row's deep history as plain text. The emulator keeps only its last few hundred lines of
// scrollback as cells (12 bytes a cell and five heap objects a line, for colours nobody reads in
// history); lines it lets go of land here as UTF-16 code units packed into shared chunks, about
// two bytes a character. The history view and search read history as text anyway
// (RowScreen.historyLines), so nothing is lost that anyone shows.
//
// Lines are taken straight from xterm's cell array (xterm-state.ts reads it), the way its own
// translateToString(true) does: a test holds the two equal on the installed version.
import type { Terminal } from '@xterm/headless';
import { DisposableStore, type Disposable } from '../util/lifecycle.js';
import { lineCodeUnits, type BufferLineCells, type CodeUnitScratch } from './xterm-state.js';

export type { BufferLineCells } from './xterm-state.js';

const CR = 0x0d;

/** Code units per chunk; a line longer than that gets a chunk of its own. */
const CHUNK_UNITS = 64 * 1024;
/** Up to this many code units a line is copied unit by unit (see appendUnits). */
const SHORT_LINE_UNITS = 64;

interface Chunk {
  /** One byte a unit until a unit above 0xff arrives (then widened, see widen()). */
  units: Uint8Array | Uint16Array;
  used: number;
  /** End offset (in units) of each line in the chunk, in order. */
  ends: number[];
}

export class SpilledHistory {
  /** Oldest first. Whole chunks are dropped once every line in them is past `capacity`. */
  private chunks: Chunk[] = [];
  /** Lines in `chunks` (may exceed capacity by part of the oldest chunk). */
  private held = 0;
  private readonly scratch: CodeUnitScratch = { units: new Uint16Array(256) };

  constructor(readonly capacity: number) {}

  /** Lines kept (at most capacity). */
  get length(): number {
    return Math.min(this.held, this.capacity);
  }

  /** Bytes the chunks take (a byte chunk one a unit, a widened one two). */
  get heldBytes(): number {
    let bytes = 0;
    for (const chunk of this.chunks) bytes += chunk.units.byteLength;
    return bytes;
  }

  /** Appends one emulator line's text, as translateToString(true) would give it. */
  appendLine(line: BufferLineCells): void {
    if (this.capacity <= 0) return;
    const n = lineCodeUnits(line, this.scratch);
    this.appendUnits(this.scratch.units, 0, n);
  }

  /** Appends a line given as text (tests, and lines that did not come from the emulator). */
  appendText(text: string): void {
    if (this.capacity <= 0) return;
    if (text.length > this.scratch.units.length) this.scratch.units = new Uint16Array(text.length);
    const units = this.scratch.units;
    for (let i = 0; i < text.length; i++) units[i] = text.charCodeAt(i);
    this.appendUnits(units, 0, text.length);
  }

  /**
   * Appends each line of `text`: printable ASCII lines, each ended by CR LF (plain-backlog.ts's
   * simpleLines), as the emulator would have let go of them.
   */
  appendAsciiLines(text: Uint8Array): void {
    if (this.capacity <= 0) return;
    let start = 0;
    for (let at = text.indexOf(CR); at >= 0; at = text.indexOf(CR, start)) {
      this.appendUnits(text, start, at - start);
      start = at + 2;
    }
  }

  /** Appends `n` code units of `from` (UTF-16 units, or bytes that are ASCII) from `start` as one line. */
  private appendUnits(from: Uint16Array | Uint8Array, start: number, n: number): void {
    let chunk = this.chunks[this.chunks.length - 1];
    if (chunk === undefined || chunk.used + n > chunk.units.length) {
      chunk = { units: new Uint8Array(Math.max(CHUNK_UNITS, n)), used: 0, ends: [] };
      this.chunks.push(chunk);
    }
    // A byte chunk takes a line whose units all fit a byte; the first that does not widens it.
    if (chunk.units instanceof Uint8Array && from instanceof Uint16Array && !fitsBytes(from, start, n)) widen(chunk);
    // Most lines are short (a `seq` line is 6 units): a loop beats subarray() + set(), which
    // allocates a view per line — a flood spills millions.
    if (n <= SHORT_LINE_UNITS) {
      const to = chunk.units;
      const at = chunk.used;
      for (let i = 0; i < n; i++) to[at + i] = from[start + i]!;
    } else {
      chunk.units.set(from.subarray(start, start + n), chunk.used);
    }
    chunk.used += n;
    chunk.ends.push(chunk.used);
    this.held++;
    // Drop the oldest chunk once what the others hold is a whole history.
    while (this.chunks.length > 1 && this.held - this.chunks[0]!.ends.length >= this.capacity) {
      this.held -= this.chunks.shift()!.ends.length;
    }
  }

  /** The newest `max` kept lines (default all) as text, oldest first; only those are decoded. */
  lines(max = this.capacity): string[] {
    const out: string[] = [];
    let skip = this.held - Math.min(this.length, Math.max(0, max));
    for (const chunk of this.chunks) {
      let start = 0;
      for (const end of chunk.ends) {
        if (skip > 0) skip--;
        else out.push(decode(chunk.units, start, end));
        start = end;
      }
    }
    return out;
  }

  clear(): void {
    this.chunks = [];
    this.held = 0;
  }
}

/** Every one of `n` units of `from` from `start` is below 256. */
function fitsBytes(from: Uint16Array, start: number, n: number): boolean {
  let any = 0;
  for (let i = start, end = start + n; i < end; i++) any |= from[i]!;
  return any <= 0xff;
}

/** The chunk's units as UTF-16 from here on, its bytes copied over (once per chunk at most). */
function widen(chunk: Chunk): void {
  const wide = new Uint16Array(chunk.units.length);
  wide.set(chunk.units.subarray(0, chunk.used));
  chunk.units = wide;
}

function decode(units: Uint8Array | Uint16Array, start: number, end: number): string {
  // fromCharCode takes its arguments on the stack: decode long lines in slices.
  let text = '';
  for (let at = start; at < end; at += 8192) {
    text += String.fromCharCode.apply(null, units.subarray(at, Math.min(end, at + 8192)) as unknown as number[]);
  }
  return text;
}

/**
 * What clears the emulator's scrollback clears the spilled part too: ED 3 (`clear` in most
 * shells, an agent's /clear) while the normal buffer is active, and a full reset (RIS). The
 * handlers return false, so xterm's own handling runs after them.
 */
export function clearWithScrollback(terminal: Terminal, spilled: SpilledHistory): Disposable {
  const handlers = new DisposableStore();
  const parser = terminal.parser;
  const erase = (params: (number | number[])[]): boolean => {
    if (params[0] === 3 && terminal.buffer.active.type === 'normal') spilled.clear();
    return false;
  };
  handlers.add(parser.registerCsiHandler({ final: 'J' }, erase));
  handlers.add(parser.registerCsiHandler({ prefix: '?', final: 'J' }, erase));
  handlers.add(
    parser.registerEscHandler({ final: 'c' }, () => {
      spilled.clear();
      return false;
    }),
  );
  return handlers;
}
