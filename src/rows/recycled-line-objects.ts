// A line xterm recycles keeps its own empty maps. When a full buffer scrolls, @xterm/headless takes
// its oldest line and copies a blank one into it (BufferLine.copyFrom), and copyFrom always gives
// the line two new objects for its combined characters and extended attributes, empty or not. The
// line lives in the old generation and the two objects in the new, so each survives the next
// scavenge and many are promoted: at 8 rows of 400 lines/s, a scavenge a second that freed a
// third of what it scanned, and a full collection a minute (SWB_SERVER_NODE_ARGS=--trace-gc under
// bench:render's bursts). Where both lines' maps are empty (plain text: nearly always), the copy
// below leaves them in place, which is the same line state; anything else goes to xterm's own.
// Patched once on the pinned version's BufferLine prototype, checked at runtime: without the
// fields it needs, nothing is patched and xterm copies as it always did.
import type { Terminal } from '@xterm/headless';

/** The fields of xterm's BufferLine this reads and writes (exported for its test). */
export interface LineInternals {
  _data: Uint32Array;
  length: number;
  _combined: Record<number, string>;
  _extendedAttrs: Record<number, unknown>;
  isWrapped: boolean;
  copyFrom(line: LineInternals): void;
}

const patched = new WeakSet<object>();

function isEmpty(o: object): boolean {
  for (const _ in o) return false;
  return true;
}

function isLineInternals(line: unknown): line is LineInternals {
  const l = line as Partial<LineInternals> | undefined;
  return (
    !!l &&
    l._data instanceof Uint32Array &&
    typeof l.length === 'number' &&
    typeof l._combined === 'object' &&
    l._combined !== null &&
    typeof l._extendedAttrs === 'object' &&
    l._extendedAttrs !== null &&
    typeof l.isWrapped === 'boolean' &&
    typeof l.copyFrom === 'function'
  );
}

/** Makes `terminal`'s BufferLine.copyFrom keep empty maps (see above); false when its internals are not there. */
export function keepRecycledLineObjects(terminal: Terminal): boolean {
  const lines = (terminal as unknown as { _core?: { _bufferService?: { buffers?: { normal?: { lines?: { get(i: number): unknown } } } } } })._core?._bufferService
    ?.buffers?.normal?.lines;
  const line = typeof lines?.get === 'function' ? lines.get(0) : undefined;
  if (!isLineInternals(line)) return false;
  const proto = Object.getPrototypeOf(line) as LineInternals;
  if (patched.has(proto)) return true;
  const original = proto.copyFrom;
  proto.copyFrom = function copyFrom(this: LineInternals, from: LineInternals): void {
    if (this.length === from.length && isEmpty(from._combined) && isEmpty(from._extendedAttrs) && isEmpty(this._combined) && isEmpty(this._extendedAttrs)) {
      this._data.set(from._data);
      this.isWrapped = from.isWrapped;
      return;
    }
    original.call(this, from);
  };
  patched.add(proto);
  return true;
}
