// Ink renders the chrome into this virtual terminal instead of the real one (render option
// `debug: true` makes Ink write each whole frame, with no cursor games); the compositor decides
// what reaches the real terminal. Ink reads keys from a proxy stdin fed by the input router, so
// the router can send keys to an attached row's program instead.
import { EventEmitter } from 'node:events';
import { PassThrough } from 'node:stream';
import { Emitter } from '../util/event.js';

export class InkStdout extends EventEmitter {
  readonly isTTY = true;
  columns: number;
  rows: number;
  private lines: string[] = [];
  private version = 0;
  private readonly frameEmitter = new Emitter<void>();
  /** Ink drew a frame (the key pacer waits for it). */
  readonly onFrame = this.frameEmitter.event;

  constructor(
    size: { cols: number; rows: number },
    private readonly frameDrawn: () => void,
  ) {
    super();
    this.columns = size.cols;
    this.rows = size.rows;
  }

  /** Ink calls this with one full frame per render. */
  write(data: string | Uint8Array, cb?: () => void): boolean {
    const text = typeof data === 'string' ? data : Buffer.from(data).toString('utf8');
    const lines = text.split('\n');
    if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
    this.lines = lines;
    this.version++;
    this.frameDrawn();
    this.frameEmitter.fire();
    cb?.();
    return true;
  }

  get frame(): readonly string[] {
    return this.lines;
  }

  get frameVersion(): number {
    return this.version;
  }

  resize(size: { cols: number; rows: number }): void {
    this.columns = size.cols;
    this.rows = size.rows;
    this.emit('resize');
  }
}

/** A TTY-looking stdin for Ink; raw mode is owned by the input router on the real stdin. */
export class InkStdin extends PassThrough {
  readonly isTTY = true;
  isRaw = false;

  setRawMode(mode: boolean): this {
    this.isRaw = mode;
    return this;
  }

  ref(): this {
    return this;
  }

  unref(): this {
    return this;
  }
}
