// A row's emulated screen: an @xterm/headless terminal fed with the pty's bytes. It answers the
// program's queries (device attributes, cursor position) through onReply, reports parse backlog
// through onPressure so the owner can pause the pty, and bumps a cheap version number whenever
// parsed output (or a resize) changed the screen. Snapshots are taken on demand, never per chunk.
import xtermHeadless from '@xterm/headless';
import type { IBuffer, IBufferCell, Terminal } from '@xterm/headless';
import { Emitter, type Event } from '../util/event.js';
import { DisposableStore, toDisposable, type Disposable } from '../util/lifecycle.js';
import { ModeTracker, type ActiveModes } from './mode-tracker.js';
import type { ScreenSnapshot } from './screen-snapshot.js';

const { Terminal: HeadlessTerminal } = xtermHeadless;

export const DEFAULT_SCROLLBACK = 5000;
/** Unparsed bytes above which the owner should pause the pty. */
export const DEFAULT_HIGH_WATERMARK = 256 * 1024;
/** Unparsed bytes below which a paused pty may resume. */
export const DEFAULT_LOW_WATERMARK = 32 * 1024;

export interface RowScreenOptions {
  cols: number;
  rows: number;
  scrollback?: number;
  highWatermark?: number;
  lowWatermark?: number;
}

export type { ActiveModes } from './mode-tracker.js';

/** Drops trailing blanks: empty cells are trimmed by xterm, written spaces here. */
function trimSpaces(text: string): string {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 32) end--;
  return end === text.length ? text : text.slice(0, end);
}

export class RowScreen implements Disposable {
  private readonly store = new DisposableStore();
  private readonly terminal: Terminal;
  private readonly modeTracker: ModeTracker;
  private readonly highWatermark: number;
  private readonly lowWatermark: number;
  private readonly replyEmitter = this.store.add(new Emitter<string>());
  private readonly pressureEmitter = this.store.add(new Emitter<boolean>());
  private readonly changeEmitter = this.store.add(new Emitter<void>());
  private readonly titleEmitter = this.store.add(new Emitter<string>());
  /** Sizes of writes not yet parsed, oldest first (xterm runs write callbacks in order). */
  private readonly writeSizes: number[] = [];
  private writeHead = 0;
  private pending = 0;
  private backedUp = false;
  private versionValue = 0;
  private titleValue = '';
  private scratchCell: IBufferCell | undefined;

  /** Bytes the terminal sends back to the program (query replies); write them to the pty. */
  readonly onReply: Event<string> = this.replyEmitter.event;
  /** true: the parser is behind, pause the pty; false: caught up, resume it. */
  readonly onPressure: Event<boolean> = this.pressureEmitter.event;
  /** Parsed output (or a resize) changed the screen; `version` has moved on. */
  readonly onChange: Event<void> = this.changeEmitter.event;
  readonly onTitleChange: Event<string> = this.titleEmitter.event;

  constructor(options: RowScreenOptions) {
    this.highWatermark = options.highWatermark ?? DEFAULT_HIGH_WATERMARK;
    this.lowWatermark = Math.min(options.lowWatermark ?? DEFAULT_LOW_WATERMARK, this.highWatermark);
    this.terminal = new HeadlessTerminal({
      cols: options.cols,
      rows: options.rows,
      scrollback: options.scrollback ?? DEFAULT_SCROLLBACK,
      allowProposedApi: true,
      logLevel: 'off',
      windowOptions: { getWinSizeChars: true },
    });
    this.store.add(toDisposable(() => this.terminal.dispose()));
    this.modeTracker = this.store.add(new ModeTracker(this.terminal));
    this.store.add(this.terminal.onData((data) => this.replyEmitter.fire(data)));
    this.store.add(this.terminal.onBinary((data) => this.replyEmitter.fire(data)));
    this.store.add(
      this.terminal.onTitleChange((title) => {
        this.titleValue = title;
        this.titleEmitter.fire(title);
      }),
    );
    this.store.add(this.terminal.onWriteParsed(() => this.bump()));
  }

  get cols(): number {
    return this.terminal.cols;
  }

  get rows(): number {
    return this.terminal.rows;
  }

  /** Increases whenever the screen may have changed; compare to skip redrawing a still row. */
  get version(): number {
    return this.versionValue;
  }

  get title(): string {
    return this.titleValue;
  }

  /** Bytes handed to write() that the parser has not processed yet. */
  get pendingBytes(): number {
    return this.pending;
  }

  /** True between a pressure(true) and the matching pressure(false). */
  get isBackedUp(): boolean {
    return this.backedUp;
  }

  /** The active buffer (normal or alternate), for renderers. Read it synchronously; it mutates. */
  get buffer(): IBuffer {
    return this.terminal.buffer.active;
  }

  get activeModes(): ActiveModes {
    return this.modeTracker.modes;
  }

  get alternateScreen(): boolean {
    return this.terminal.buffer.active.type === 'alternate';
  }

  /** Feeds program output. Bytes may split UTF-8 sequences and escape sequences anywhere. */
  write(data: Uint8Array | string): void {
    if (this.store.disposed || data.length === 0) return;
    this.writeSizes.push(data.length);
    this.pending += data.length;
    this.terminal.write(data, this.onChunkParsed);
    if (!this.backedUp && this.pending > this.highWatermark) {
      this.backedUp = true;
      this.pressureEmitter.fire(true);
    }
  }

  /** Resolves once everything written so far has been parsed. */
  flush(): Promise<void> {
    if (this.store.disposed) return Promise.resolve();
    return new Promise((resolve) => this.terminal.write('', resolve));
  }

  resize(cols: number, rows: number): void {
    if (this.store.disposed) return;
    if (cols === this.terminal.cols && rows === this.terminal.rows) return;
    this.terminal.resize(cols, rows);
    this.bump();
  }

  snapshot(): ScreenSnapshot {
    const buffer = this.terminal.buffer.active;
    const rows = this.terminal.rows;
    const cols = this.terminal.cols;
    const lines: string[] = new Array<string>(rows);
    const dimRanges: Array<Array<[number, number]>> = new Array<Array<[number, number]>>(rows);
    const cell = (this.scratchCell ??= buffer.getNullCell());
    for (let y = 0; y < rows; y++) {
      const line = buffer.getLine(buffer.baseY + y);
      lines[y] = line === undefined ? '' : trimSpaces(line.translateToString(true));
      const ranges: Array<[number, number]> = [];
      if (line !== undefined) {
        let start = -1;
        for (let x = 0; x < cols; x++) {
          const dim = line.getCell(x, cell)?.isDim() ? true : false;
          if (dim && start < 0) start = x;
          else if (!dim && start >= 0) {
            ranges.push([start, x]);
            start = -1;
          }
        }
        if (start >= 0) ranges.push([start, cols]);
      }
      dimRanges[y] = ranges;
    }
    return {
      lines,
      cols,
      rows,
      cursor: {
        x: Math.min(buffer.cursorX, cols - 1),
        y: buffer.cursorY,
        visible: this.modeTracker.isCursorVisible,
      },
      title: this.titleValue,
      alternateScreen: buffer.type === 'alternate',
      dimRanges,
    };
  }

  private readonly onChunkParsed = (): void => {
    const size = this.writeSizes[this.writeHead] ?? 0;
    this.writeSizes[this.writeHead] = 0;
    this.writeHead++;
    if (this.writeHead >= 1024 && this.writeHead * 2 >= this.writeSizes.length) {
      this.writeSizes.splice(0, this.writeHead);
      this.writeHead = 0;
    }
    this.pending -= size;
    if (this.backedUp && this.pending <= this.lowWatermark) {
      this.backedUp = false;
      this.pressureEmitter.fire(false);
    }
  };

  private bump(): void {
    this.versionValue++;
    this.changeEmitter.fire();
  }

  readonly dispose = (): void => {
    this.store.dispose();
  };
}
