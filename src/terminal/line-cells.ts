// What an attached row's painted lines held, cell by cell, so that a keystroke's echo sends the
// cells that changed rather than the whole line again (tmux sends the one character; swb sent
// 200 columns of line and its colours for it). The cells are xterm's own: three 32-bit words a
// cell in the line's `_data`, with combined characters (a letter and its marks, emoji sequences)
// in `_combined` by column. Those are private to @xterm/headless, so they are checked when read;
// when they are not there (another xterm), the compositor compares rendered lines as before.
import type { IBuffer } from '@xterm/headless';
import { isBufferLineCells, type BufferLineCells as LineCells } from '../rows/xterm-state.js';

/** A painted line's cells: a copy of its words and its combined characters. */
export interface CellSnapshot {
  data: Uint32Array;
  combined: Record<number, string> | null;
}

// xterm's cell layout (src/common/buffer/Constants.ts): 3 words a cell; the first holds the
// content, with the cell's width in bits 22-23 and a flag for a combined character.
const CELL_SIZE = 3;
const IS_COMBINED = 0x200000;
const WIDTH_SHIFT = 22;
const WIDTH_MASK = 0x3;

/** Line `y` of the buffer (absolute, like IBuffer.getLine) as cells, or undefined when xterm keeps them otherwise. */
export function lineCells(buffer: IBuffer, y: number): LineCells | undefined {
  const view = buffer.getLine(y) as unknown as { _line?: unknown } | undefined;
  const line = view?._line;
  return isBufferLineCells(line) ? line : undefined;
}

/** Copies the line's cells into `into` (reused when it fits) and returns it. */
export function snapshotCells(line: LineCells, into?: CellSnapshot): CellSnapshot {
  const words = line.length * CELL_SIZE;
  const data = into && into.data.length === words ? into.data : new Uint32Array(words);
  data.set(line._data.subarray(0, words));
  let combined: Record<number, string> | null = null;
  for (const key in line._combined) {
    combined ??= {};
    combined[Number(key)] = line._combined[Number(key)]!;
  }
  if (into) {
    into.data = data;
    into.combined = combined;
    return into;
  }
  return { data, combined };
}

/**
 * Records in a snapshot that cells [from, from + text.length) now hold `text` (printable ASCII,
 * one cell a byte) in the default colours, as the terminal shows them once it printed the text
 * after an SGR reset: the next changedSpan then finds those cells changed only if the program's
 * screen holds anything else there.
 */
export function recordPrinted(snap: CellSnapshot, from: number, text: Uint8Array): void {
  const end = Math.min(from + text.length, snap.data.length / CELL_SIZE);
  for (let x = Math.max(0, from); x < end; x++) {
    const i = x * CELL_SIZE;
    snap.data[i] = text[x - from]! | (1 << WIDTH_SHIFT);
    // xterm's default attributes: no colour, no flags (DEFAULT_ATTR_DATA).
    snap.data[i + 1] = 0;
    snap.data[i + 2] = 0;
    if (snap.combined) delete snap.combined[x];
  }
}

/** Whether the first `words` words of a and b are equal, compared by the runtime's memcmp. */
function sameWords(a: Uint32Array, b: Uint32Array, words: number): boolean {
  if (a.length < words || b.length < words) return false;
  const bytes = words * Uint32Array.BYTES_PER_ELEMENT;
  return Buffer.compare(new Uint8Array(a.buffer, a.byteOffset, bytes), new Uint8Array(b.buffer, b.byteOffset, bytes)) === 0;
}

function widthAt(data: Uint32Array, cell: number): number {
  return (data[cell * CELL_SIZE]! >>> WIDTH_SHIFT) & WIDTH_MASK;
}

/**
 * The columns [start, end] where the line differs from its snapshot, widened so that no wide
 * character is cut in two (in either version), or null when nothing differs. A line of another
 * width differs everywhere, out to the wider of the two.
 */
export function changedSpan(line: LineCells, snap: CellSnapshot): { start: number; end: number } | null {
  const cols = line.length;
  const old = snap.data;
  // Resized: all of it, and as far as the longer of the two reached.
  if (old.length !== cols * CELL_SIZE) return { start: 0, end: Math.max(cols, old.length / CELL_SIZE) - 1 };
  const now = line._data;
  const words = cols * CELL_SIZE;
  let first = -1;
  // Most lines are unchanged (the full comparison after a quiet keystroke reads every line of the
  // screen for one echoed key): memcmp says so for a fraction of what a word-by-word look costs.
  if (!sameWords(now, old, words)) {
    for (let i = 0; i < words; i++) {
      if (now[i] !== old[i]) {
        first = i;
        break;
      }
    }
  }
  let last = -1;
  if (first >= 0) {
    for (let i = words - 1; i >= first; i--) {
      if (now[i] !== old[i]) {
        last = i;
        break;
      }
    }
  }
  let start = first >= 0 ? Math.floor(first / CELL_SIZE) : cols;
  let end = last >= 0 ? Math.floor(last / CELL_SIZE) : -1;
  // Equal words, other combined characters: the words hold only the flag, the text is aside. A
  // cell combined in one version only has other words, so the new line's combined cells suffice.
  for (const key in line._combined) {
    const col = Number(key);
    if (col < cols && now[col * CELL_SIZE]! & IS_COMBINED && line._combined[col] !== snap.combined?.[col]) {
      if (col < start) start = col;
      if (col > end) end = col;
    }
  }
  if (end < start) return null;
  // A wide character is two cells: the left one has width 2, the right one width 0.
  if (start > 0 && (widthAt(now, start) === 0 || widthAt(old, start) === 0)) start--;
  if (end < cols - 1 && (widthAt(now, end) === 2 || widthAt(old, end) === 2)) end++;
  return { start, end };
}
