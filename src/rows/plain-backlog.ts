// Fast-forward through a flood of plain lines. When a row's unparsed backlog is nothing but
// printable ASCII, tabs and line ends, and more lines follow than the emulator can keep
// (screen + scrollback), the lines in between would scroll out of history before anyone could
// see them: parsing them only costs CPU (for xterm, a line copy and a few events per line). Cutting
// them leaves the emulator in exactly the state a full parse would, under these conditions:
//
// - the emulator is in its ground state where the backlog starts (checked by the caller), so the
//   bytes before the cut are printed text and line ends, not an escape sequence's payload;
// - the cut starts right after a CR LF inside the backlog (cursor in column 0, no pending wrap) and
//   ends right after a later CR LF (the same), so the kept tail starts from the same column;
// - the cut bytes are plain: printing them changes no mode, attribute, charset or title, only
//   cell contents and the cursor row;
// - the kept tail holds at least `keepLines` CR LFs, plain too, and something printable: the caller
//   passes 2 x screen rows + scrollback, so in both cases the cursor reaches the bottom row within
//   one screenful of line feeds (plain text never moves it up) and every line that existed before
//   the tail is then scrolled out of history; from there both runs see the same bytes;
// - the whole screen scrolls into history (no scroll region, normal buffer, viewport at the bottom;
//   checked by the caller).
// The equivalence is tested against full parses of random streams (test/unit/rows).

const CR = 0x0d;
const LF = 0x0a;
const TAB = 0x09;

/** Printable ASCII, tab, CR and LF: bytes that cannot start or continue a control sequence. */
export function isPlainByte(byte: number): boolean {
  return (byte >= 0x20 && byte <= 0x7e) || byte === LF || byte === CR || byte === TAB;
}

export interface PlainScan {
  /** Every byte is plain. */
  plain: boolean;
  /** CR LF pairs ending in this chunk (a CR that ended the previous chunk counts via `prevByte`). */
  lineEnds: number;
}

/** Scans one chunk; stops at the first byte that is not plain (lineEnds is then meaningless). */
export function scanPlain(chunk: Uint8Array, prevByte: number): PlainScan {
  let lineEnds = 0;
  let prev = prevByte;
  for (let i = 0; i < chunk.length; i++) {
    const byte = chunk[i]!;
    // isPlainByte, written out: this loop sees every byte of a flood.
    if (byte >= 0x20 && byte <= 0x7e) {
      prev = byte;
      continue;
    }
    if (byte === LF) {
      if (prev === CR) lineEnds++;
    } else if (byte !== CR && byte !== TAB) {
      return { plain: false, lineEnds };
    }
    prev = byte;
  }
  return { plain: true, lineEnds };
}

/** A position between bytes: `offset` bytes into chunk `index`. */
export interface BacklogPosition {
  index: number;
  offset: number;
}

/** The bytes to drop: from `from` (inclusive) to `to` (exclusive). */
export interface BacklogCut {
  from: BacklogPosition;
  to: BacklogPosition;
  bytes: number;
}

/**
 * Where to cut a plain backlog (every byte of `chunks` plain, the emulator in its ground state
 * before the first): null when the tail after the last possible cut would hold fewer than
 * `keepLines` line ends or fewer than `minBytes` would be dropped. `lineEnds[i]` is scanPlain's
 * count for chunk i (computed here when not given); with it only one chunk is walked byte by byte.
 */
export function findPlainCut(
  chunks: readonly Uint8Array[],
  keepLines: number,
  minBytes: number,
  lineEnds?: readonly number[],
): BacklogCut | null {
  const from = firstLineEnd(chunks);
  if (from === null) return null;
  const to = lineEndBeforeTail(chunks, keepLines, lineEnds ?? countLineEnds(chunks));
  if (to === null || !hasPrintableAfter(chunks, to)) return null;
  const bytes = distance(chunks, from, to);
  if (bytes < Math.max(1, minBytes)) return null;
  return { from, to, bytes };
}

function countLineEnds(chunks: readonly Uint8Array[]): number[] {
  let prev = -1;
  return chunks.map((chunk) => {
    const { lineEnds } = scanPlain(chunk, prev);
    if (chunk.length > 0) prev = chunk[chunk.length - 1]!;
    return lineEnds;
  });
}

/** Position right after the first CR LF whose CR is inside `chunks` too. */
function firstLineEnd(chunks: readonly Uint8Array[]): BacklogPosition | null {
  let prev = -1;
  for (let index = 0; index < chunks.length; index++) {
    const chunk = chunks[index]!;
    let at = chunk.indexOf(LF);
    while (at >= 0) {
      const before = at > 0 ? chunk[at - 1]! : prev;
      if (before === CR) return { index, offset: at + 1 };
      at = chunk.indexOf(LF, at + 1);
    }
    if (chunk.length > 0) prev = chunk[chunk.length - 1]!;
  }
  return null;
}

/** Walking back from the end: position right after the CR LF that has `keepLines` more after it. */
function lineEndBeforeTail(chunks: readonly Uint8Array[], keepLines: number, lineEnds: readonly number[]): BacklogPosition | null {
  let seen = 0;
  for (let index = chunks.length - 1; index >= 0; index--) {
    // Whole chunks whose line ends all belong to the tail are skipped by their count.
    if (seen + lineEnds[index]! <= keepLines) {
      seen += lineEnds[index]!;
      continue;
    }
    const chunk = chunks[index]!;
    for (let at = chunk.length - 1; at >= 0; at--) {
      if (chunk[at] !== LF) continue;
      const before = at > 0 ? chunk[at - 1]! : lastByteBefore(chunks, index);
      if (before !== CR) continue;
      if (seen === keepLines) return { index, offset: at + 1 };
      seen++;
    }
  }
  return null;
}

/** Something printable between `from` and the end (plain bytes: anything but tab, CR and LF). */
function hasPrintableAfter(chunks: readonly Uint8Array[], from: BacklogPosition): boolean {
  for (let index = chunks.length - 1; index >= from.index; index--) {
    const chunk = chunks[index]!;
    const start = index === from.index ? from.offset : 0;
    for (let i = chunk.length - 1; i >= start; i--) {
      const byte = chunk[i]!;
      if (byte >= 0x20 && byte <= 0x7e) return true;
    }
  }
  return false;
}

function lastByteBefore(chunks: readonly Uint8Array[], index: number): number {
  for (let i = index - 1; i >= 0; i--) {
    const chunk = chunks[i]!;
    if (chunk.length > 0) return chunk[chunk.length - 1]!;
  }
  return -1;
}

function distance(chunks: readonly Uint8Array[], from: BacklogPosition, to: BacklogPosition): number {
  if (to.index < from.index || (to.index === from.index && to.offset <= from.offset)) return 0;
  if (from.index === to.index) return to.offset - from.offset;
  let bytes = chunks[from.index]!.length - from.offset + to.offset;
  for (let i = from.index + 1; i < to.index; i++) bytes += chunks[i]!.length;
  return bytes;
}

/**
 * The items (chunks, or records holding them) with the cut bytes removed: whole items are kept as
 * they are, the (at most two) cut through are replaced by `slice(item, start, end)`.
 */
export function applyPlainCut<T>(
  items: readonly T[],
  cut: BacklogCut,
  lengthOf: (item: T) => number,
  slice: (item: T, start: number, end: number) => T,
): T[] {
  const kept: T[] = items.slice(0, cut.from.index);
  if (cut.from.offset > 0) kept.push(slice(items[cut.from.index]!, 0, cut.from.offset));
  const tailItem = items[cut.to.index]!;
  const tailLength = lengthOf(tailItem);
  if (cut.to.offset < tailLength) kept.push(slice(tailItem, cut.to.offset, tailLength));
  for (let i = cut.to.index + 1; i < items.length; i++) kept.push(items[i]!);
  return kept;
}

// --- spilling history as text ----------------------------------------------------------------
// A cut still leaves a whole history's worth of lines (plus two screens) to parse, and for a flood
// that is most of the work left: each line is printed, scrolled, and copied out of the emulator
// into the spilled history (spilled-history.ts) as text. When those history lines are simple,
// printable ASCII ended by CR LF and no wider than the screen, a full parse would only put their
// bytes, as text, into history, one line each (with the active charset US ASCII, which the caller
// checks). So RowScreen takes them as text straight from the backlog and parses only the lines the
// emulator keeps as cells, from a blank screen (under the conditions a cut has: every byte queued
// plain, the emulator in its ground state, the whole screen scrolling into history):
//
// - everything before the spilled lines is dropped: it is plain, so it changes no mode or
//   attribute, and it is out of history either way;
// - the emulator's screen and scrollback are erased (CUP, ED 2, ED 3: the erased cells take the
//   current background, as scrolled-in lines do) and the spilled lines become the history;
// - the kept tail, `keepLines` CR LFs or more (2 x screen rows + the emulator's scrollback) and
//   something printable, is parsed from there: by the argument above the screen and the emulator's
//   scrollback come out as a full parse leaves them, and the tail's lines that leave the emulator
//   follow the spilled ones, as they would.
// `spillLines` is the whole history depth, as much as a reader can ever reach (a screen made taller
// shows more of it). A full parse leaves dirty lines (printed over what the screen showed before)
// only within its first screenful, and more than a screenful of the tail leaves the emulator after
// the spilled lines, so the dirty ones are never among the lines a reader can reach.

/** Where a backlog is cut when its history is spilled as text. */
export interface SpillCut {
  /** Right after the CR LF that starts the first spilled line. */
  spillFrom: BacklogPosition;
  /** Right after the CR LF that ends the last spilled line: the kept tail starts here. */
  tailFrom: BacklogPosition;
  /** Bytes before `tailFrom` (all dropped from the backlog; the spilled ones kept as text). */
  bytes: number;
}

/**
 * Where to spill: null unless the backlog holds `spillLines` lines, each after a CR LF inside it,
 * before a tail of `keepLines` CR LFs with something printable in it. Whether the spilled lines
 * are simple is asked separately (simpleLines), once the positions are known.
 */
export function findSpillCut(
  chunks: readonly Uint8Array[],
  keepLines: number,
  spillLines: number,
  lineEnds?: readonly number[],
): SpillCut | null {
  const counts = lineEnds ?? countLineEnds(chunks);
  const tailFrom = lineEndBeforeTail(chunks, keepLines, counts);
  if (tailFrom === null || !hasPrintableAfter(chunks, tailFrom)) return null;
  const spillFrom = lineEndBeforeTail(chunks, keepLines + spillLines, counts);
  if (spillFrom === null) return null;
  return { spillFrom, tailFrom, bytes: distance(chunks, { index: 0, offset: 0 }, tailFrom) };
}

/**
 * The bytes from `from` to `to` (both right after a CR LF) in one array, when every line in
 * them is printable ASCII of at most `maxLength` characters ended by CR LF; null otherwise (a tab,
 * a lone CR or LF, a line that would wrap).
 */
export function simpleLines(chunks: readonly Uint8Array[], from: BacklogPosition, to: BacklogPosition, maxLength: number): Uint8Array | null {
  const size = distance(chunks, from, to);
  const out = new Uint8Array(size);
  let n = 0;
  for (let index = from.index; index <= to.index; index++) {
    const chunk = chunks[index]!;
    const start = index === from.index ? from.offset : 0;
    const end = index === to.index ? to.offset : chunk.length;
    if (end > start) out.set(chunk.subarray(start, end), n);
    n += Math.max(0, end - start);
  }
  let length = 0;
  for (let i = 0; i < size; i++) {
    const byte = out[i]!;
    if (byte >= 0x20 && byte <= 0x7e) {
      if (++length > maxLength) return null;
    } else if (byte === CR && out[i + 1] === LF) {
      i++;
      length = 0;
    } else {
      return null;
    }
  }
  return out;
}
