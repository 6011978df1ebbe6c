// Finds, in bytes just read from a transcript, the complete lines that may carry usage: those holding
// one of the parser's markers, in file order, found with Buffer.indexOf (memchr speed) so the lines
// between them (most of a transcript) cost nothing but the search. A last line without its newline is
// not complete: it is left for the next read, whatever its content, so a line being written is never
// parsed half-written.

/** Calls `onLine(start, end)` (end exclusive, before the newline) for each complete line of buf[0, length) holding a marker; returns the bytes the complete lines take. */
export function scanCompleteLines(whole: Buffer, length: number, markers: readonly Buffer[], onLine: (start: number, end: number) => void): number {
  if (length === 0) return 0;
  // A reused read buffer holds older bytes past `length`: no search may see them.
  const buf = length === whole.length ? whole : whole.subarray(0, length);
  const lastNewline = buf.lastIndexOf(10, length - 1);
  if (lastNewline < 0) return 0;
  const next = markers.map((m) => buf.indexOf(m, 0));
  for (;;) {
    let pos = -1;
    for (const p of next) if (p >= 0 && p < lastNewline && (pos < 0 || p < pos)) pos = p;
    if (pos < 0) break;
    const start = buf.lastIndexOf(10, pos) + 1;
    const end = buf.indexOf(10, pos);
    onLine(start, end);
    for (let i = 0; i < markers.length; i++) if (next[i]! >= 0 && next[i]! <= end) next[i] = buf.indexOf(markers[i]!, end + 1);
  }
  return lastNewline + 1;
}
