// Hands over each line as it leaves @xterm/headless's normal-buffer scrollback, so a row can keep a
// short scrollback in the emulator and the rest as text (spilled-history.ts). xterm has no public
// hook for it, so this wraps the pinned version's private BufferService.scroll: every line that
// leaves the top of a full buffer does so in it (a line feed, IND, NEL or an autowrap at the bottom
// of a region that starts at the top), and right before the call the leaving line is still intact.
// A resize could trim the oldest lines too (a narrower reflow makes more lines than fit), so
// `makeRoom` moves enough of them out first, the way ED 3 clears scrollback. When the internals
// are not where they should be (another xterm version), tapScrollback returns null and the caller
// lets the emulator keep the whole history itself, which is always correct.
import type { Terminal } from '@xterm/headless';
import { isBufferLineCells, type BufferLineCells } from './xterm-state.js';

interface LinesInternals {
  readonly length: number;
  readonly isFull: boolean;
  get(index: number): BufferLineCells | undefined;
  trimStart(count: number): void;
}

interface BufferInternals {
  lines: LinesInternals;
  scrollTop: number;
  ybase: number;
  ydisp: number;
}

interface BufferServiceInternals {
  buffer: BufferInternals;
  buffers: { normal: BufferInternals };
  rows: number;
  cols: number;
  scroll(eraseAttr: unknown, isWrapped?: boolean): void;
}

export interface ScrollbackTap {
  /**
   * Before a resize to cols x rows: moves out (oldest first) as many scrollback lines as needed so
   * that the reflow cannot trim any, `emulatorScrollback` being the emulator's own scrollback.
   */
  makeRoom(cols: number, rows: number, emulatorScrollback: number): void;
  dispose(): void;
}

export function tapScrollback(terminal: Terminal, leaving: (line: BufferLineCells) => void): ScrollbackTap | null {
  const service = (terminal as unknown as { _core?: { _bufferService?: BufferServiceInternals } })._core?._bufferService;
  const normal = service?.buffers?.normal;
  if (
    !service ||
    typeof service.scroll !== 'function' ||
    typeof service.rows !== 'number' ||
    typeof service.cols !== 'number' ||
    !normal ||
    typeof normal.scrollTop !== 'number' ||
    typeof normal.ybase !== 'number' ||
    typeof normal.ydisp !== 'number' ||
    typeof normal.lines?.isFull !== 'boolean' ||
    typeof normal.lines.get !== 'function' ||
    typeof normal.lines.trimStart !== 'function' ||
    !isBufferLineCells(normal.lines.get(0))
  ) {
    return null;
  }
  const original = service.scroll;
  const own = Object.prototype.hasOwnProperty.call(service, 'scroll');
  service.scroll = function scroll(this: BufferServiceInternals, eraseAttr: unknown, isWrapped?: boolean): void {
    // The normal buffer is read again each time: a full reset (RIS) makes a new one.
    const buffer = service.buffer;
    if (buffer === service.buffers.normal && buffer.scrollTop === 0 && buffer.lines.isFull) {
      const oldest = buffer.lines.get(0);
      if (oldest !== undefined) leaving(oldest);
    }
    original.call(service, eraseAttr, isWrapped);
  };
  return {
    makeRoom(cols, rows, emulatorScrollback) {
      const buffer = service.buffers.normal;
      const lines = buffer.lines;
      const scrollback = lines.length - service.rows;
      if (scrollback <= 0) return;
      // A narrower reflow can make up to ceil(old/new) lines of each (one more for a wide
      // character pushed to the next line); a wider one or a height change never adds lines.
      const growth = cols < service.cols ? Math.ceil(service.cols / cols) + 1 : 1;
      const fits = Math.floor((rows + emulatorScrollback) / growth);
      const out = Math.min(scrollback, lines.length - fits);
      if (out <= 0) return;
      for (let i = 0; i < out; i++) {
        const line = lines.get(i);
        if (line !== undefined) leaving(line);
      }
      lines.trimStart(out);
      buffer.ybase = Math.max(buffer.ybase - out, 0);
      buffer.ydisp = Math.max(buffer.ydisp - out, 0);
    },
    dispose() {
      if (own) service.scroll = original;
      else delete (service as Partial<BufferServiceInternals>).scroll;
    },
  };
}
