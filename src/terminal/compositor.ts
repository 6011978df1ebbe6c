// The cell-diff compositor beside Ink. Ink draws the chrome into a virtual stdout (one frame of
// lines); this paints it to the real terminal line by line where it changed, then paints each
// row's emulated screen into its viewport, re-reading a row only when its screen version moved
// and re-sending only the lines that differ. One write per frame, inside synchronized output.
import type { Rect } from '../app/layout.js';
import { ViewportRenderer } from '../rows/render-viewport.js';
import type { RowScreen } from '../rows/row-screen.js';
import { BEGIN_SYNC, CLEAR_SCREEN, END_SYNC, ERASE_LINE_RIGHT, HIDE_CURSOR, SGR_RESET, SHOW_CURSOR, moveTo } from './escapes.js';
import { changedSpan, lineCells, recordPrinted, snapshotCells, type CellSnapshot } from './line-cells.js';
import { segmentChange } from './segment-diff.js';

export interface ViewportSource {
  key: string;
  rect: Rect;
  screen: RowScreen;
}

/** A ready-made piece of chrome (a row header, a grid separator) at a fixed place. */
export interface Segment {
  key: string;
  x: number;
  y: number;
  /** ANSI text; it must not move the cursor or spill past its own cells. */
  text: string;
}

/** A segment on the terminal whose text changed only in some cells: `span` (ANSI) drawn from its cell `offset` makes `segment.text` of `was`. */
export interface SegmentPatch {
  segment: Segment;
  was: string;
  offset: number;
  span: string;
}

export interface DashboardFrame {
  /** Ink's latest frame, placed with its first line at terminal row `inkTop`. */
  ink: readonly string[];
  inkTop: number;
  segments: readonly Segment[];
  viewports: readonly ViewportSource[];
}

interface ViewportCache {
  screen: RowScreen;
  version: number;
  rectKey: string;
  /** The rendered line on the terminal; null where only its cells are known (a span was sent). */
  lines: Array<string | null>;
  /** The attached viewport's cells as painted, line by line (see line-cells.ts); absent elsewhere. */
  cells?: Array<CellSnapshot | undefined>;
}

export interface PaintStats {
  frames: number;
  bytes: number;
  linesPainted: number;
  /** Echoes sent ahead of the emulator (echoAhead). */
  echoesAhead: number;
}

/** The most bytes an echo sent ahead may have: a keystroke's, or a short paste's. */
const ECHO_AHEAD_MAX = 64;

export class Compositor {
  /** The attached status line last sent (with its row), to send it again only when it changes. */
  private statusLine: string | null = null;
  /** What Ink put on each terminal line (undefined: the line is not Ink's). */
  private inkLines: Array<string | undefined> = [];
  /** Each segment as last sent: where, and its text (a changed one sends only the cells that differ). */
  private segmentCache = new Map<string, Segment>();
  private caches = new Map<string, ViewportCache>();
  private renderer = new ViewportRenderer();
  private scratch: string[] = [];
  private needsClear = true;
  private cursorShown: boolean | null = null;
  /**
   * Where the last attached paint left the terminal's cursor (the program's, shown), in which
   * viewport, the columns it may print into, and the screen version that paint showed (while the
   * screen is still at it, the program's cursor is where the paint put the terminal's); null when
   * unknown (hidden, another paint since).
   */
  private cursorAt: { key: string; x: number; y: number; limit: number; version: number } | null = null;
  readonly stats: PaintStats = { frames: 0, bytes: 0, linesPainted: 0, echoesAhead: 0 };
  /** The cursor an echo on the key relay's thread was armed at (echoColumns), until anything else is written. */
  private relayArmedAt: Compositor['cursorAt'] = null;

  constructor(private readonly write: (data: string) => void) {}

  /** Forget what is on the terminal: the next paint clears and redraws everything. */
  invalidate(): void {
    this.needsClear = true;
    this.cursorAt = null;
    this.inkLines = [];
    this.segmentCache.clear();
    this.caches.clear();
    this.cursorShown = null;
  }

  /**
   * Dashboard frame: Ink's lines where they changed, then headers and separators, then every
   * viewport whose screen changed or whose lines were just overwritten.
   */
  paintDashboard(frame: DashboardFrame, size: { cols: number; rows: number }): void {
    this.cursorAt = null;
    let out = '';
    if (this.needsClear) {
      out += CLEAR_SCREEN;
      this.needsClear = false;
    }
    if (this.cursorShown !== false) {
      out += HIDE_CURSOR;
      this.cursorShown = false;
    }
    const overwritten = new Set<number>();
    for (let y = 0; y < size.rows; y++) {
      const i = y - frame.inkTop;
      const line = i >= 0 && i < frame.ink.length ? frame.ink[i]! : undefined;
      if (this.inkLines[y] === line) continue;
      // A line Ink gives up is blanked; whatever owns it now repaints below.
      out += `${moveTo(y, 0)}${SGR_RESET}${line ?? ''}${SGR_RESET}${ERASE_LINE_RIGHT}`;
      this.inkLines[y] = line;
      overwritten.add(y);
      this.stats.linesPainted++;
    }
    this.inkLines.length = size.rows;
    const liveSegments = new Set<string>();
    for (const seg of frame.segments) {
      liveSegments.add(seg.key);
      const sent = this.segmentCache.get(seg.key);
      if (sent !== undefined && sent.x === seg.x && sent.y === seg.y && !overwritten.has(seg.y)) {
        if (sent.text === seg.text) continue;
        // In place and still on the terminal: only its cells that changed (a header's age).
        const change = segmentChange(sent.text, seg.text);
        if (change !== null) out += moveTo(seg.y, seg.x + change.offset) + change.text;
      } else out += moveTo(seg.y, seg.x) + seg.text;
      this.segmentCache.set(seg.key, seg);
      this.stats.linesPainted++;
    }
    for (const key of this.segmentCache.keys()) if (!liveSegments.has(key)) this.segmentCache.delete(key);
    const live = new Set<string>();
    for (const v of frame.viewports) {
      live.add(v.key);
      out += this.paintViewport(v, overwritten);
    }
    for (const key of this.caches.keys()) if (!live.has(key)) this.caches.delete(key);
    this.flush(out);
  }

  /**
   * Headers' ages turned and nothing else changed (header-age-patch.ts): each patch's cells, with
   * no look at Ink's lines or the viewports. False, and nothing sent, when the terminal is not
   * known to show each patched segment as it `was` (a clear is due, it moved or changed since):
   * the caller paints the whole frame instead.
   */
  patchSegments(patches: readonly SegmentPatch[]): boolean {
    if (this.needsClear) return false;
    for (const p of patches) {
      const sent = this.segmentCache.get(p.segment.key);
      if (sent === undefined || sent.x !== p.segment.x || sent.y !== p.segment.y || sent.text !== p.was) return false;
    }
    let out = '';
    for (const { segment, offset, span } of patches) {
      out += moveTo(segment.y, segment.x + offset) + span;
      this.segmentCache.set(segment.key, segment);
      this.stats.linesPainted++;
    }
    if (out !== '') this.cursorAt = null;
    this.flush(out);
    return true;
  }

  /**
   * Attached frame: one row's screen fills the terminal; the cursor is the program's. `changed`
   * narrows the work to the rows the emulator reported touched (a keystroke's echo is one row);
   * 'all' re-reads every row and still sends only those that differ. `status` is a line of swb's
   * own below it (row, state, news, the detach key), sent only when it changed, before the
   * program's cursor is put back.
   */
  paintAttached(source: ViewportSource, changed: { start: number; end: number } | 'all' | 'none' = 'all', status?: { y: number; line: string }): void {
    let out = '';
    if (this.needsClear) {
      out += CLEAR_SCREEN;
      this.needsClear = false;
      this.statusLine = null;
    }
    this.inkLines = [];
    out += this.paintViewport(source, null, changed === 'all' ? null : changed, true);
    const statusKey = status ? `${status.y}|${status.line}` : null;
    if (status && statusKey !== this.statusLine) out += moveTo(status.y, 0) + status.line;
    this.statusLine = statusKey;
    const buffer = source.screen.buffer;
    const visible = source.screen.activeModes.cursorVisible;
    // Nothing else sent, and the terminal's cursor already where the program's is (an echo went
    // ahead and the program printed just that): the paint sends nothing at all.
    const at = this.cursorAt;
    const cursorThere = out === '' && at !== null && at.key === source.key && at.x === buffer.cursorX && at.y === buffer.cursorY;
    if (visible && !cursorThere) out += moveTo(buffer.cursorY, buffer.cursorX);
    if (visible !== this.cursorShown) {
      out += visible ? SHOW_CURSOR : HIDE_CURSOR;
      this.cursorShown = visible;
    }
    const known = visible && this.caches.get(source.key)?.cells !== undefined;
    this.cursorAt = known
      ? { key: source.key, x: buffer.cursorX, y: buffer.cursorY, limit: Math.min(source.screen.cols, source.rect.width), version: source.screen.version }
      : null;
    this.flush(out);
  }

  /**
   * Sends a keystroke's echo before the emulator has parsed it — as the bytes themselves, at the
   * cursor — when they can only mean "print these characters here": plain ASCII, nothing pending
   * in the parser, the terminal's cursor known to be where the program's is, no wrap. The
   * keystroke then waits for neither xterm nor the diff (tmux parses first; a node server pays
   * more for that), and the check reads none of xterm's state: the screen's version says nothing
   * was parsed since the paint that left the cursor there. The painted snapshot records the
   * cells as the terminal now shows them, and the paint after the parse compares their line
   * (xterm reports the cursor's line changed by any write): when the program printed just that,
   * it sends nothing; when it meant something else after all (insert mode, another character
   * set, other colours), that paint puts it right.
   * Returns whether the echo went ahead.
   */
  echoAhead(key: string, screen: RowScreen, chunk: Uint8Array): boolean {
    const at = this.cursorAt;
    const n = chunk.length;
    if (at === null || at.key !== key || n === 0 || n > ECHO_AHEAD_MAX || at.x + n >= at.limit) return false;
    for (let i = 0; i < n; i++) {
      const b = chunk[i]!;
      if (b < 0x20 || b > 0x7e) return false;
    }
    if (screen.version !== at.version || !screen.settled) return false;
    const cache = this.caches.get(key);
    const snap = cache?.screen === screen ? cache.cells?.[at.y] : undefined;
    if (!cache || !snap) return false;
    recordPrinted(snap, at.x, chunk);
    cache.lines[at.y] = null;
    at.x += n;
    this.stats.echoesAhead++;
    // No synchronized-output brackets: a few cells cannot tear.
    this.write(SGR_RESET + String.fromCharCode(...chunk));
    return true;
  }

  /**
   * The columns left on the cursor's line when the next output of the attached row may be echoed
   * ahead off the event loop (the key relay's thread, by echoAhead's rules: plain ASCII that fits
   * there), or null when it may not: the cursor or its line not known, output not yet parsed.
   */
  echoColumns(key: string, screen: RowScreen): number | null {
    const at = this.cursorAt;
    if (at === null || at.key !== key || screen.version !== at.version || !screen.settled) return null;
    const cache = this.caches.get(key);
    if (!cache || cache.screen !== screen || !cache.cells?.[at.y]) return null;
    this.relayArmedAt = at;
    return at.limit - at.x;
  }

  /**
   * The key relay's thread echoed `chunk` at the cursor echoColumns gave (or after the chunks it
   * echoed before it, still armed): the painted snapshot records it, as echoAhead does its own,
   * and the cursor moved on. If anything was written since the arming, what the terminal shows
   * there is not known, nor where its cursor is: the next paint compares that line and moves the
   * cursor.
   */
  echoedAhead(key: string, screen: RowScreen, chunk: Uint8Array): void {
    const at = this.cursorAt;
    this.stats.echoesAhead++;
    const cache = this.caches.get(key);
    const snap = cache?.screen === screen ? cache.cells?.[at?.y ?? -1] : undefined;
    if (at === null || at !== this.relayArmedAt || at.key !== key || !cache || !snap) {
      if (cache && at !== null && at.key === key) cache.lines[at.y] = null;
      this.cursorAt = null;
      this.relayArmedAt = null;
      return;
    }
    recordPrinted(snap, at.x, chunk);
    cache.lines[at.y] = null;
    at.x += chunk.length;
    // Not at the screen's version any more: echoAhead must not send this chunk again once it is read.
    at.version = -1;
  }

  /**
   * `cells`: the attached viewport, where the terminal's lines are known cell by cell and a line
   * that changed is sent from its first changed cell to its last (a keystroke's echo: a few cells).
   */
  private paintViewport(v: ViewportSource, overwritten: ReadonlySet<number> | null, only: { start: number; end: number } | 'none' | null = null, cells = false): string {
    const { rect, screen } = v;
    if (rect.height <= 0 || rect.width <= 0) return '';
    const rectKey = `${rect.x},${rect.y},${rect.width},${rect.height}`;
    let cache = this.caches.get(v.key);
    const fresh = !cache || cache.screen !== screen || cache.rectKey !== rectKey;
    let touched = false;
    if (overwritten) for (let y = rect.y; y < rect.y + rect.height && !touched; y++) touched = overwritten.has(y);
    if (!fresh && cache!.version === screen.version && !touched) return '';
    // A screen taller than the viewport (a resize in flight, or a row sized by another client):
    // show the part with the cursor — its bottom when the cursor is there, its top when it is near it.
    const top = Math.min(Math.max(0, screen.rows - rect.height), Math.max(0, screen.buffer.cursorY - rect.height + 1));
    const byCells = cells && top === 0 && screen.rows === rect.height;
    if (!fresh && byCells && cache!.cells) {
      // Every line is compared by its cells, so a full paint (only === null) verifies too.
      const rows = only ?? { start: 0, end: rect.height - 1 };
      const out = rows === 'none' ? '' : this.paintChangedCells(cache!, screen, rect, rows);
      // A partial paint leaves the cached version behind: the next full one compares every row.
      if (only === null) cache!.version = screen.version;
      return out;
    }
    if (!fresh && only !== null && screen.rows === rect.height) {
      // The cached version stays behind: the next full paint must compare every row again.
      return only === 'none' ? '' : this.paintRows(cache!, screen, rect, only);
    }
    const lines = this.renderer.render(screen, { top, height: rect.height, width: rect.width }, this.scratch);
    if (fresh) {
      cache = { screen, version: screen.version, rectKey, lines: [] };
      this.caches.set(v.key, cache);
    }
    const c = cache!;
    let out = '';
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!;
      if (!fresh && c.lines[i] === line && !(overwritten && overwritten.has(rect.y + i))) continue;
      out += moveTo(rect.y + i, rect.x) + line;
      c.lines[i] = line;
      this.stats.linesPainted++;
    }
    c.lines.length = lines.length;
    c.version = screen.version;
    if (byCells) this.snapshotAll(c, screen, lines.length);
    else delete c.cells;
    return out;
  }

  /** Records every line's cells as now painted; without xterm's cells, none (lines are compared as text). */
  private snapshotAll(c: ViewportCache, screen: RowScreen, height: number): void {
    const buffer = screen.buffer;
    const cells = c.cells ?? [];
    for (let i = 0; i < height; i++) {
      const line = lineCells(buffer, buffer.baseY + i);
      if (!line) {
        delete c.cells;
        return;
      }
      cells[i] = snapshotCells(line, cells[i]);
    }
    cells.length = height;
    c.cells = cells;
  }

  /** Sends, for each of rows start..end, the cells that differ from what was painted there. */
  private paintChangedCells(c: ViewportCache, screen: RowScreen, rect: Rect, rows: { start: number; end: number }): string {
    const buffer = screen.buffer;
    const cells = c.cells!;
    const from = Math.max(0, rows.start);
    const to = Math.min(rect.height - 1, rows.end);
    let out = '';
    for (let y = from; y <= to; y++) {
      const line = lineCells(buffer, buffer.baseY + y);
      const snap = cells[y];
      if (!line || !snap) {
        // Not known by cells: the whole line, compared as text (and known by cells from now on).
        out += this.paintRows(c, screen, rect, { start: y, end: y });
        if (line) cells[y] = snapshotCells(line);
        continue;
      }
      const span = changedSpan(line, snap);
      if (!span || span.start >= rect.width) {
        if (span) snapshotCells(line, snap);
        continue;
      }
      const end = Math.min(span.end, rect.width - 1);
      const text = this.renderer.renderBuffer(buffer, { top: y, height: 1, left: span.start, width: end - span.start + 1 }, this.scratch)[0]!;
      out += moveTo(rect.y + y, rect.x + span.start) + text;
      c.lines[y] = null;
      snapshotCells(line, snap);
      this.stats.linesPainted++;
    }
    return out;
  }

  /** Re-reads only rows start..end of a cached viewport; sends those that differ. */
  private paintRows(c: ViewportCache, screen: RowScreen, rect: Rect, rows: { start: number; end: number }): string {
    const from = Math.max(0, rows.start);
    const to = Math.min(rect.height - 1, rows.end);
    if (to < from) return '';
    const lines = this.renderer.render(screen, { top: from, height: to - from + 1, width: rect.width }, this.scratch);
    let out = '';
    for (let i = 0; i < lines.length; i++) {
      const y = from + i;
      if (c.lines[y] === lines[i]) continue;
      out += moveTo(rect.y + y, rect.x) + lines[i]!;
      c.lines[y] = lines[i]!;
      this.stats.linesPainted++;
    }
    return out;
  }

  private flush(out: string): void {
    if (out.length === 0) return;
    this.relayArmedAt = null;
    const frame = BEGIN_SYNC + out + END_SYNC;
    this.stats.frames++;
    this.stats.bytes += frame.length;
    this.write(frame);
  }
}
