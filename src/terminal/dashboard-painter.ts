// Decides when the real terminal is painted. Row output is coalesced to a frame cap (leading
// edge: the first change after a quiet spell paints at once, a stream of changes paints at most
// every `frameMs`; a row whose output paused, a flood's end, and a row's first output paint at
// once), and nothing is painted while nothing changed, so idle rows cost nothing.
// While attached, changes paint on the next turn of the event loop for the lowest echo latency.
import type { AppState, RowView } from '../app/app-state.js';
import type { Layout } from '../app/layout.js';
import type { LayoutSource } from '../app/layout-source.js';
import type { RowPainter } from '../app/drawn-rows.js';
import type { Row } from '../rows/row.js';
import type { RowManager } from '../rows/row-manager.js';
import type { ActiveModes } from '../rows/mode-tracker.js';
import { systemClock, type Clock } from '../util/clock.js';
import { DisposableStore, type Disposable } from '../util/lifecycle.js';
import { QuietTimer } from '../util/quiet-timer.js';
import { TimerSlot } from '../util/timer-slot.js';
import { AgeClock } from './age-clock.js';
import { ageSince, formatAge, formatAgeField } from '../app/app-state.js';
import { turnHeaderAge, type RenderedHeader } from './header-age-patch.js';
import type { OutputLender } from '../rows/pty-output-loan.js';
import type { Compositor, Segment, SegmentPatch, ViewportSource } from './compositor.js';
import type { InkStdout } from './ink-surface.js';
import { DASHBOARD_MODES, modeTransition } from './terminal-modes.js';

/**
 * Echoes the attached row's next output onto the terminal off the event loop, when the last paint
 * left the cursor known (the key relay's thread, server/tty-key-relay.ts). `landed` hears of that
 * output, echoed or not, before the row gets it.
 */
export interface EchoPath {
  arm(source: OutputLender, columns: number, landed: (chunk: Buffer, echoed: boolean) => void): boolean;
  /** What the thread read so far lands now; it reads on if it is still armed. */
  landEcho(): void;
  /** Reads no more on the thread; what it read lands now. */
  disarmEcho(): void;
}

export interface PainterOptions {
  /** The terminal modes of the dashboard itself (default: everything off; with the mouse: clicks and wheel). */
  dashboardModes?: ActiveModes;
  compositor: Compositor;
  /** Echoes ahead on a thread while keys run there (a terminal the server holds). */
  echoPath?: EchoPath;
  ink: InkStdout;
  rows: RowManager;
  getState: () => AppState;
  /** The client's one layout (the chrome and the rows it draws use the same). */
  layouts: LayoutSource;
  writeModes: (sequences: string) => void;
  /**
   * A row's header as one ANSI line of exactly `width` cells (a view, injected from components/),
   * with where its age field sits when the clock's turn may rewrite just that (header-age-patch.ts).
   */
  renderHeader: (row: RowView, width: number, focused: boolean, now: number, themeName: string) => string | RenderedHeader;
  /** Border colour SGR for grid separators. */
  separatorStyle: (themeName: string) => string;
  /** The line under an attached row, exactly `width` cells (absent: the row takes the whole terminal). */
  renderAttachedStatus?: (state: AppState, width: number) => string;
  frameMs?: number;
  /** Times the frame cap and the headers' ages (default: the system clock). */
  clock?: Clock;
}

/** Lines under an attached row when its status line is shown. */
export const ATTACHED_STATUS_LINES = 1;

export class DashboardPainter implements RowPainter, Disposable {
  private readonly store = new DisposableStore();
  private readonly clock: Clock;
  /** The next capped frame, pending while a stream of changes waits for it. */
  private readonly frame: TimerSlot;
  private immediate: NodeJS.Immediate | null = null;
  private lastPaint = 0;
  private appliedModes: ActiveModes = DASHBOARD_MODES;
  /** What the last paint's shape was (null: a full-screen overlay), to clear the screen when it changes. */
  private paintedLayout: Layout | null | undefined = undefined;
  private paintedTheme = '';
  private readonly frameMs: number;
  /**
   * Rows whose output this dashboard has painted. A row's first output paints on the next turn,
   * not at the frame cap: at a cold start every row's first line comes a few ms after the chrome's
   * first paint, and waited up to a frame (33 ms) for the next one (issue #33). Once per row, so a
   * stream is still capped.
   */
  private readonly outputShown = new WeakSet<Row>();

  constructor(private readonly o: PainterOptions) {
    this.frameMs = o.frameMs ?? 33;
    this.clock = o.clock ?? systemClock;
    this.frame = this.store.add(new TimerSlot(this.clock));
    // Header ages move with the clock: repaint when one would change (age-clock.ts). The compositor
    // sends only headers whose text changed, so an idle dashboard costs next to nothing.
    this.ages = this.store.add(
      new AgeClock(
        () => this.shownAgesSince(),
        () => {
          // Headers are not on screen while a row is attached. A turn that changed only ages sends
          // only their cells, when it can (paintAges); anything else, the whole frame.
          if (this.o.getState().attached === null && this.agesChanged() && !this.paintAges()) this.paintSoon();
        },
        this.clock,
      ),
    );
    this.verify = this.store.add(
      new QuietTimer(
        50,
        500,
        () => {
          this.partialAllowed = false;
          this.paint();
        },
        this.clock,
      ),
    );
  }

  private readonly ages: AgeClock;
  /** The headers the last dashboard paint drew, for the clock's turn (paintAges); from that paint's state. */
  private paintedHeaders: PaintedHeader[] = [];
  private paintedState: AppState | null = null;

  private shownAges = '';
  /**
   * The full attached paint due after partial ones: a safety net for rows the emulator's report
   * missed. It waits for a pause in the row's output (50 ms), at most 500 ms, so it does not sit
   * between a keystroke and its echo in the middle of typing.
   */
  private readonly verify: QuietTimer;
  /** True after a full attached paint: the next ones may repaint only the reported rows. */
  private partialAllowed = false;

  private scheduleVerify(partial: boolean): void {
    if (!partial) {
      // This paint was full: nothing to verify until the next partial one.
      this.verify.cancel();
      this.partialAllowed = true;
      return;
    }
    this.verify.poke();
  }
  /** What each header's age counts from, as the header shows it (the row's live last output). */
  private shownAgesSince(): number[] {
    return this.o.getState().rows.map((view) => this.liveAgeSince(view));
  }

  private agesChanged(): boolean {
    const now = this.clock.now();
    let ages = '';
    for (const since of this.shownAgesSince()) ages += `${formatAge(since, now)}|`;
    if (ages === this.shownAges) return false;
    this.shownAges = ages;
    return true;
  }

  /**
   * The clock's turn when nothing but ages changed since the last paint: each header whose age
   * field reads differently gets that field's cells, and nothing else is looked at (no header
   * rendered, no Ink line or viewport compared). False when the turn needs a full paint: one is
   * due anyway, the state moved on, or a header cannot be rewritten in place.
   */
  private paintAges(): boolean {
    if (this.immediate !== null || this.frame.pending || this.o.getState() !== this.paintedState) return false;
    const now = this.clock.now();
    const patches: SegmentPatch[] = [];
    const turned: Array<[PaintedHeader, RenderedHeader, string]> = [];
    for (const h of this.paintedHeaders) {
      const field = formatAgeField(this.liveAgeSince(h.view), now);
      if (field === h.field) continue;
      const turn = turnHeaderAge(h.header, field);
      if (turn === 'repaint') return false;
      if (turn === null) continue;
      patches.push({ segment: { key: h.key, x: h.x, y: h.y, text: turn.header.line }, was: h.header.line, offset: turn.offset, span: turn.span });
      turned.push([h, turn.header, field]);
    }
    if (!this.o.compositor.patchSegments(patches)) return false;
    for (const [h, header, field] of turned) {
      h.header = header;
      h.field = field;
    }
    return true;
  }

  /** What a header's age counts from: the row's live last output (the state's copy lags), or its exit. */
  private liveAgeSince(view: RowView): number {
    const row = this.o.rows.get(view.name);
    return ageSince(row ? { running: view.running, exitedAt: view.exitedAt, lastOutputAt: row.lastOutputAt } : view);
  }

  /** Row output changed: paint soon (frame-capped on the dashboard, immediately when attached). */
  rowChanged(row: Row): void {
    this.ages.output(row.lastOutputAt);
    const state = this.o.getState();
    if (state.attached !== null) {
      // The attached row reports changes synchronously (it is urgent): paint right away.
      if (state.attached === row.name) this.paint();
      return;
    }
    if (state.overlay !== null) return;
    if (!this.o.layouts.of(state).rows.some((p) => p.name === row.name && p.viewport.height > 0)) return;
    // A row whose output paused (a flood's end, parsed once it paused) paints now rather than at
    // the next frame: its last lines are what the operator waits for. At most once a pause.
    if (row.screen.quiet || !this.outputShown.has(row)) {
      this.outputShown.add(row);
      this.paintSoon();
    } else this.schedule();
  }

  /**
   * The attached row's program wrote `chunk`, which its screen parses next: a keystroke's echo
   * may go to the terminal first (Compositor.echoAhead), and the paint that follows the parse
   * checks it, once the loop has blocked and the echo was delivered (RowScreen.parseAfterYield).
   */
  rowOutput(row: Row, chunk: Uint8Array): void {
    // (Only the attached row's handle hears output: DrawnRows.)
    if (this.o.getState().attached !== row.name) return;
    if (this.o.compositor.echoAhead(attachedKey(row.name), row.screen, chunk)) row.screen.parseAfterYield();
  }

  /** After a paint of the attached row: its next output may be echoed ahead on the echo path's thread. */
  private armEcho(row: Row): void {
    const path = this.o.echoPath;
    if (!path) return;
    const key = attachedKey(row.name);
    const columns = this.o.compositor.echoColumns(key, row.screen);
    if (columns === null) return;
    path.arm(row, columns, (chunk, echoed) => {
      if (echoed) this.o.compositor.echoedAhead(key, row.screen, chunk);
      // Parsed after a turn, never inside the paint that may be landing it.
      row.screen.parseAfterYield();
    });
  }

  /** Chrome or layout changed (a new Ink frame, or a state change). */
  chromeChanged(): void {
    // A row that exited counts its age from then (the state says so, not its output).
    this.ages.replan();
    this.paintSoon();
  }

  /** The terminal was resized or cleared: repaint everything. */
  invalidate(): void {
    this.o.compositor.invalidate();
    this.paintSoon();
  }

  private schedule(): void {
    if (this.frame.pending || this.immediate) return;
    const wait = this.lastPaint + this.frameMs - this.clock.now();
    if (wait <= 0) this.paintSoon();
    else this.frame.set(this.paintFrame, wait);
  }

  private readonly paintFrame = (): void => this.paint();

  private paintSoon(): void {
    if (this.immediate) return;
    this.immediate = setImmediate(() => {
      this.immediate = null;
      this.paint();
    });
  }

  private statusFor: { state: AppState; line: string | undefined } | null = null;

  /** The status line under the attached row, rendered again only when the app state changed (not per echo). */
  private attachedStatus(state: AppState): string | undefined {
    if (!this.o.renderAttachedStatus) return undefined;
    if (this.statusFor?.state !== state) this.statusFor = { state, line: this.o.renderAttachedStatus(state, state.size.cols) };
    return this.statusFor.line;
  }

  paint(): void {
    this.frame.clear();
    this.lastPaint = this.clock.now();
    const state = this.o.getState();
    const attachedRow = state.attached !== null ? this.o.rows.get(state.attached) : undefined;
    if (attachedRow) {
      this.paintedState = null;
      const screen = attachedRow.screen;
      // What the echo path read lands first: the paint is computed knowing what it put on the
      // terminal (landing inside this paint's write could only mark it unknown, and send it again).
      // It is disarmed only once this paint is sure to go ahead: while it is put off (below), the
      // path stays armed and echoes the next key too, a typist's next key often being there before
      // the last one's parse.
      this.o.echoPath?.landEcho();
      if (!screen.echoUnparsed) this.o.echoPath?.disarmEcho();
      // (Asked again: what the disarm landed, read since, may be an echo too.)
      if (screen.echoUnparsed) {
        // An echo went ahead and its output waits for its parse: painting now would compare its
        // line against a screen without it and take it off the terminal, to send it again after.
        // The parse's own change paints; this paint comes after it (the rows it would have
        // painted stay marked dirty until then).
        void screen.flush().then(() => this.paintSoon());
        return;
      }
      this.applyModes(attachedRow.screen.activeModes);
      // Only the rows the emulator reports changed (an echo touches one); a full comparison
      // follows shortly, so a change the report missed is still drawn.
      const changed = this.partialAllowed ? attachedRow.screen.takeDirtyRows() : 'all';
      if (!this.partialAllowed) attachedRow.screen.takeDirtyRows();
      const status = this.attachedStatus(state);
      this.o.compositor.paintAttached(
        {
          key: attachedKey(attachedRow.name),
          rect: { x: 0, y: 0, width: state.size.cols, height: state.size.rows - (status === undefined ? 0 : ATTACHED_STATUS_LINES) },
          screen: attachedRow.screen,
        },
        changed,
        status === undefined ? undefined : { y: state.size.rows - 1, line: status },
      );
      this.armEcho(attachedRow);
      this.scheduleVerify(changed !== 'all');
      return;
    }
    this.applyModes(this.o.dashboardModes ?? DASHBOARD_MODES);
    const ink = this.o.ink.frame;
    // An overlay (help, mail view, quit) is a full-screen Ink frame; otherwise Ink draws only the
    // chrome lines at the bottom. (Not judged by the frame's length: Ink trims trailing blank lines.)
    const fullScreen = state.overlay !== null;
    const layout = this.o.layouts.of(state);
    const shapeChanged = fullScreen ? this.paintedLayout !== null : layout !== this.paintedLayout || state.themeName !== this.paintedTheme;
    if (shapeChanged) {
      this.paintedLayout = fullScreen ? null : layout;
      this.paintedTheme = state.themeName;
      this.o.compositor.invalidate();
    }
    const segments: Segment[] = [];
    const viewports: ViewportSource[] = [];
    // The records of the last paint are reused: a flood paints 30 frames a second.
    const headers = this.paintedHeaders;
    let painted = 0;
    if (!fullScreen) {
      const byName = new Map(state.rows.map((r) => [r.name, r]));
      const now = this.clock.now();
      for (const p of layout.rows) {
        const view = byName.get(p.name);
        const row = this.o.rows.get(p.name);
        if (view) {
          // Ages come from the row itself and the wall clock, not the app store: keeping them
          // current costs a header repaint, never a chrome (Ink) render.
          const live = row ? { ...view, lastOutputAt: row.lastOutputAt } : view;
          const drawn = this.o.renderHeader(live, p.header.width, state.focused === p.name, now, state.themeName);
          const header = typeof drawn === 'string' ? { line: drawn, age: null } : drawn;
          const key = `h:${p.name}`;
          segments.push({ key, x: p.header.x, y: p.header.y, text: header.line });
          // The field as the header shows it (one that has no place for it: as it would read).
          const field = header.age?.text ?? formatAgeField(ageSince(live), now);
          const h = headers[painted++];
          if (h === undefined) headers.push({ key, x: p.header.x, y: p.header.y, view, header, field });
          else {
            h.key = key;
            h.x = p.header.x;
            h.y = p.header.y;
            h.view = view;
            h.header = header;
            h.field = field;
          }
        }
        if (row && p.viewport.height > 0) {
          viewports.push({ key: p.name, rect: p.viewport, screen: row.screen });
        }
      }
      segments.push(...this.separators(layout, state.themeName));
    }
    headers.length = painted;
    this.paintedState = state;
    // Under a full-screen overlay no row is drawn (rowChanged paints none while it is up).
    this.o.compositor.paintDashboard(
      { ink, inkTop: fullScreen ? 0 : layout.chrome.y, segments, viewports },
      state.size,
    );
  }

  /** The separators last built, for their layout and theme: every paint (an age's turn too) sends them to the compositor. */
  private separatorsBuilt: { layout: Layout; themeName: string; segments: Segment[] } | null = null;

  /** Grid column separators: one cell wide, between placements that sit side by side. */
  private separators(layout: Layout, themeName: string): Segment[] {
    const built = this.separatorsBuilt;
    if (built !== null && built.layout === layout && built.themeName === themeName) return built.segments;
    const out: Segment[] = [];
    const style = this.o.separatorStyle(themeName);
    for (const p of layout.rows) {
      if (p.header.x === 0) continue;
      const x = p.header.x - 1;
      for (let y = p.header.y; y < p.viewport.y + p.viewport.height; y++) out.push({ key: `s:${x}:${y}`, x, y, text: `${style}│\x1b[0m` });
    }
    this.separatorsBuilt = { layout, themeName, segments: out };
    return out;
  }

  /** Keeps the operator's terminal in the input modes of whatever has the keyboard. */
  private applyModes(wanted: ActiveModes): void {
    const seq = modeTransition(this.appliedModes, wanted);
    if (seq) this.o.writeModes(seq);
    this.appliedModes = wanted;
  }

  /** Leaves every mode an attached program switched on (back to the dashboard's own). */
  resetModes(): void {
    this.applyModes(this.o.dashboardModes ?? DASHBOARD_MODES);
  }

  /** Every input mode off, the dashboard's mouse too: the terminal goes back to its shell. */
  releaseModes(): void {
    this.applyModes(DASHBOARD_MODES);
  }

  dispose(): void {
    if (this.immediate) clearImmediate(this.immediate);
    this.store.dispose();
  }
}

/** A header as the last dashboard paint drew it: its segment's place, its row's view then, its text and age field. */
interface PaintedHeader {
  key: string;
  x: number;
  y: number;
  view: RowView;
  header: RenderedHeader;
  field: string;
}

/** The compositor's key for a row's attached viewport. */
function attachedKey(name: string): string {
  return `attached:${name}`;
}
