// One row as one page views it: the row's current screen first (serialized from the server's
// @xterm/headless), then its output as the program writes it, coalesced per frame. Taken through
// the row's one-way render handle (Row.tap) and given back when the page stops viewing the row,
// so a row no page views costs nothing here. A row's bytes the page has not been sent are bounded
// (PENDING_MAX): past it they are dropped and the page gets a fresh screen once it has caught up
// (no more often than RESYNC_MIN_MS while a flood lasts), so a slow page or a flood costs the
// server a bounded buffer and an occasional serialize, never a queue that grows.
//
// The screen and the bytes must meet exactly: a screen is taken only when the row's emulator has
// parsed every byte it was given (pendingBytes 0), and every byte tapped before that moment is
// dropped (the screen holds it); every byte tapped after it is sent. A resize or a restart makes
// the page's copy differ from the emulator's reflow, so either takes a fresh screen too.
import type { Row } from '../rows/row.js';
import type { RowScreen } from '../rows/row-screen.js';
import type { Disposable } from '../util/lifecycle.js';
import { TimerSlot } from '../util/timer-slot.js';
import type { ServerToPage } from './page-protocol.js';

/** Bytes of one row's output kept for a page that has not been sent them (then: a fresh screen instead). */
export const PENDING_MAX = 128 * 1024;
/**
 * History lines sent with a screen (the page's scrollback grows from there as output comes): a
 * page showing many rows at once loads each one's screen, not each one's whole history.
 */
export const SCREEN_HISTORY_LINES = 100;
/** While a row overflows, a fresh screen at most this often. */
export const RESYNC_MIN_MS = 100;

/** Where a row stream's frames go, and when: the page session's socket and frame clock. */
export interface RowStreamSink {
  send(message: ServerToPage): boolean;
  /** The socket is behind: hold this frame's bytes (they stay bounded) and try on the next. */
  congested(): boolean;
  /** Asks for a frame (coalesced: one per ~16 ms for every row of the page; `now`: this event-loop turn, for the row the page types into). */
  requestFrame(now?: boolean): void;
  now(): number;
}

export class PageRowStream implements Disposable {
  private readonly handle: Disposable;
  private chunks: Buffer[] = [];
  private pendingLength = 0;
  /** The page's copy is stale (start, overflow, resize, restart): the next frame sends a screen. */
  private needScreen = true;
  /** A flush() of the emulator is awaited before a screen can be taken. */
  private awaitingParse = false;
  private lastScreenAt = -Infinity;
  private decoder = new TextDecoder('utf-8');
  private screenRef: RowScreen;
  private sentCols = 0;
  private sentRows = 0;
  private disposed = false;
  /** The page types into this row: its output (the keys' echo) goes this turn, not at the next frame. */
  urgent = false;
  private readonly resyncLater = new TimerSlot();

  constructor(
    private readonly row: Row,
    private readonly sink: RowStreamSink,
  ) {
    this.screenRef = row.screen;
    this.handle = row.tap(this.onChange, this.onOutput);
    // The first screen this turn, not a frame later: a page that has just said it views the row waits for it.
    sink.requestFrame(true);
  }

  get name(): string {
    return this.row.name;
  }

  private readonly onOutput = (chunk: Buffer): void => {
    if (this.needScreen) return; // the screen to come holds it
    if (this.pendingLength + chunk.length > PENDING_MAX) {
      this.chunks = [];
      this.pendingLength = 0;
      this.needScreen = true;
    } else {
      this.chunks.push(chunk);
      this.pendingLength += chunk.length;
    }
    this.sink.requestFrame(this.urgent);
  };

  private readonly onChange = (): void => {
    const { row } = this;
    if (row.screen === this.screenRef && row.cols === this.sentCols && row.rows === this.sentRows) return;
    if (this.needScreen) return;
    this.needScreen = true;
    this.sink.requestFrame();
  };

  /** The frame is due: send what this row has for the page, or keep it for the next. */
  frame(): void {
    if (this.disposed || this.sink.congested()) {
      if (!this.disposed && (this.pendingLength > 0 || this.needScreen)) this.sink.requestFrame();
      return;
    }
    if (this.needScreen) {
      this.sendScreen();
      return;
    }
    if (this.pendingLength === 0) return;
    const chunks = this.chunks;
    this.chunks = [];
    this.pendingLength = 0;
    let data = '';
    for (let i = 0; i < chunks.length; i++) data += this.decoder.decode(chunks[i], { stream: true });
    if (data.length > 0) this.sink.send({ t: 'out', name: this.row.name, data });
  }

  private sendScreen(): void {
    const { row } = this;
    if (row.disposed) return;
    const wait = this.lastScreenAt + RESYNC_MIN_MS - this.sink.now();
    if (wait > 0) {
      this.resyncLater.setIfIdle(() => this.sink.requestFrame(), wait);
      return;
    }
    const screen = row.screen;
    if (screen.pendingBytes > 0) {
      // Bytes wait in the emulator: the screen is taken once they are parsed (bytes tapped by then are in it).
      if (this.awaitingParse) return;
      this.awaitingParse = true;
      void screen.flush().then(() => {
        this.awaitingParse = false;
        // Now, before the pty's next read: in a flood the emulator is rarely empty at a frame's tick.
        if (!this.disposed && this.needScreen) this.frame();
      });
      return;
    }
    this.chunks = [];
    this.pendingLength = 0;
    this.decoder = new TextDecoder('utf-8');
    this.screenRef = screen;
    this.sentCols = row.cols;
    this.sentRows = row.rows;
    this.needScreen = false;
    this.lastScreenAt = this.sink.now();
    this.sink.send({ t: 'screen', name: row.name, cols: row.cols, rows: row.rows, data: screen.serialize(SCREEN_HISTORY_LINES) });
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.handle.dispose();
    this.resyncLater.dispose();
    this.chunks = [];
  }
}
