// Emulator state that @xterm/headless keeps private but a fast-forward through plain output
// (plain-backlog.ts) must know: is the parser between sequences, does a line feed at the bottom
// push the whole screen into history, and does printable ASCII print as itself; which screen rows
// a parse touched, for a renderer that repaints only those; and a line's cells as xterm stores
// them, for text read without a string per cell (spilled history, the compositor). Read from the
// pinned version's internals; when their shape differs (another xterm version), probeEmulator
// returns null and callers parse everything, which is always correct. A unit test fails if the
// probe stops finding them on the installed version.
import type { Terminal } from '@xterm/headless';

export interface EmulatorProbe {
  /** The parser is in its ground state (not inside any sequence) and no handler is paused. */
  atGround(): boolean;
  /**
   * The normal buffer is active, the scroll region is the whole screen and the viewport follows
   * the output: every line scrolled off the top goes into (and eventually out of) history.
   */
  scrollsWholeScreen(): boolean;
  /** Printable ASCII prints as itself: no other charset (DEC graphics, a national one) is active. */
  asciiCharset(): boolean;
}

interface ParserInternals {
  currentState: number;
  _parseStack?: { state: number };
}

interface BufferInternals {
  scrollTop: number;
  scrollBottom: number;
  ybase: number;
  ydisp: number;
}

interface CoreInternals {
  _inputHandler?: { _parser?: ParserInternals; _parseStack?: { paused: boolean } };
  _bufferService?: { buffer?: BufferInternals; buffers?: { normal?: BufferInternals }; isUserScrolling?: boolean };
  /** `charset` is the map print() applies to bytes below 0x7f; undefined for US ASCII. */
  _charsetService?: { charset?: unknown; glevel?: number };
}

/** xterm's ParserState.GROUND. */
const GROUND = 0;

export function probeEmulator(terminal: Terminal): EmulatorProbe | null {
  const core = (terminal as unknown as { _core?: CoreInternals })._core;
  const inputHandler = core?._inputHandler;
  const parser = inputHandler?._parser;
  const bufferService = core?._bufferService;
  if (
    !parser ||
    typeof parser.currentState !== 'number' ||
    typeof parser._parseStack?.state !== 'number' ||
    typeof inputHandler?._parseStack?.paused !== 'boolean' ||
    !bufferService ||
    typeof bufferService.isUserScrolling !== 'boolean' ||
    typeof bufferService.buffer?.scrollBottom !== 'number' ||
    typeof bufferService.buffer.ydisp !== 'number' ||
    bufferService.buffers?.normal === undefined ||
    typeof core?._charsetService?.glevel !== 'number'
  ) {
    return null;
  }
  return {
    atGround: () => parser.currentState === GROUND && parser._parseStack!.state === 0 && !inputHandler._parseStack!.paused,
    scrollsWholeScreen: () => {
      const buffer = bufferService.buffer!;
      return (
        buffer === bufferService.buffers!.normal &&
        buffer.scrollTop === 0 &&
        buffer.scrollBottom === terminal.rows - 1 &&
        buffer.ydisp === buffer.ybase &&
        !bufferService.isUserScrolling
      );
    },
    asciiCharset: () => core!._charsetService!.charset === undefined,
  };
}

/** The screen rows changed since the last take(), as xterm's parser reported them. */
export interface DirtyRows {
  /** Rows changed since the last call: a range, 'all', or 'none'; resets the record. */
  take(): { start: number; end: number } | 'all' | 'none';
  /** Every row counts as changed (a resize). */
  markAll(): void;
  dispose(): void;
}

type RefreshRows = (listener: (range?: { start: number; end: number }) => void) => { dispose(): void };

/**
 * xterm's parser reports the viewport rows each parse touched (scrolls mark the whole scroll
 * region) on an internal event the headless build does not re-export. When it is there, the
 * attached row repaints only those rows per keystroke; when it is not (another xterm version),
 * every row counts as changed. Consumers must treat this as a hint and repaint fully now and then.
 */
export function trackDirtyRows(terminal: Terminal): DirtyRows {
  const core = (terminal as unknown as { _core?: { _inputHandler?: { onRequestRefreshRows?: unknown } } })._core;
  const event = core?._inputHandler?.onRequestRefreshRows;
  if (typeof event !== 'function') return { take: () => 'all', markAll: () => undefined, dispose: () => undefined };
  let all = true;
  let start = Number.POSITIVE_INFINITY;
  let end = -1;
  const subscription = (event as RefreshRows).call(core!._inputHandler, (range) => {
    if (!range) all = true;
    else {
      start = Math.min(start, range.start);
      end = Math.max(end, range.end);
    }
  });
  return {
    take() {
      const range = end >= 0 ? { start: Math.max(0, start), end } : null;
      const wasAll = all;
      all = false;
      start = Number.POSITIVE_INFINITY;
      end = -1;
      return wasAll ? 'all' : (range ?? 'none');
    },
    markAll() {
      all = true;
    },
    dispose: () => subscription.dispose(),
  };
}

/** The parts of an @xterm/headless buffer line that reading its cells needs (private there). */
export interface BufferLineCells {
  readonly length: number;
  readonly _data: Uint32Array;
  readonly _combined: Record<number, string>;
  getTrimmedLength(): number;
}

/** Whether `line` (an xterm BufferLine, read through its private fields) has the parts above. */
export function isBufferLineCells(line: unknown): line is BufferLineCells {
  const l = line as Partial<BufferLineCells> | undefined;
  return (
    !!l &&
    l._data instanceof Uint32Array &&
    typeof l._combined === 'object' &&
    l._combined !== null &&
    typeof l.getTrimmedLength === 'function' &&
    typeof l.length === 'number' &&
    l._data.length >= l.length * 3
  );
}

// xterm's cell layout (src/common/buffer/Constants.ts): 3 words a cell, the first holds the content.
const CELL_SIZE = 3;
const CODEPOINT_MASK = 0x1fffff;
const IS_COMBINED_MASK = 0x200000;
const WIDTH_SHIFT = 22;
const SPACE = 0x20;

/** Where lineCodeUnits writes; it grows `units` when a line needs more room. */
export interface CodeUnitScratch {
  units: Uint16Array;
}

/**
 * Writes `line`'s text, as translateToString(true) gives it, into `scratch.units` as UTF-16 code
 * units from index 0; returns how many. Allocates nothing unless the scratch must grow.
 */
export function lineCodeUnits(line: BufferLineCells, scratch: CodeUnitScratch): number {
  const data = line._data;
  const end = Math.min(line.length, line.getTrimmedLength());
  let n = 0;
  let units = scratch.units;
  for (let col = 0; col < end; ) {
    const content = data[col * CELL_SIZE]!;
    // Room for the widest case of this cell: a combined string, or a surrogate pair.
    const combined = content & IS_COMBINED_MASK ? (line._combined[col] ?? '') : null;
    const need = n + (combined === null ? 2 : combined.length);
    if (need > units.length) {
      const grown = new Uint16Array(Math.max(need, units.length * 2));
      grown.set(units.subarray(0, n));
      units = scratch.units = grown;
    }
    if (combined !== null) {
      for (let i = 0; i < combined.length; i++) units[n++] = combined.charCodeAt(i);
    } else {
      const cp = content & CODEPOINT_MASK;
      if (cp === 0) units[n++] = SPACE;
      else if (cp < 0x10000) units[n++] = cp;
      else {
        units[n++] = 0xd800 + ((cp - 0x10000) >> 10);
        units[n++] = 0xdc00 + ((cp - 0x10000) & 0x3ff);
      }
    }
    col += content >> WIDTH_SHIFT || 1;
  }
  return n;
}
