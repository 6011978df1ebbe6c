// Routes one client's keys. On the dashboard, bytes go to Ink (through its proxy stdin); while a
// row is attached, every byte goes to that row's program except the detach key, which is found in
// any of the forms a terminal may send it (legacy, modifyOtherKeys, kitty). The terminal's raw
// mode is the thin client's business; here keys are just bytes arriving.
import { StringDecoder } from 'node:string_decoder';
import { findRawKey } from './key-encodings.js';
import type { MouseEvent } from '../app/intents.js';
import type { Event } from '../util/event.js';
import type { Disposable } from '../util/lifecycle.js';

// SGR mouse reports: ESC [ < button ; x ; y M (press) or m (release).
const SGR_MOUSE = /\x1b\[<(\d+);(\d+);(\d+)([Mm])/g;

function mouseEvent(code: number, x: number, y: number, final: string): MouseEvent {
  const base = code & ~(4 | 8 | 16 | 32); // shift, meta, ctrl, motion
  const button = base === 0 ? 'left' : base === 1 ? 'middle' : base === 2 ? 'right' : base === 64 ? 'wheelUp' : base === 65 ? 'wheelDown' : 'other';
  return { x: x - 1, y: y - 1, button, press: final === 'M' };
}

/** Marks the first byte of each sequence (as latin1, one char per byte), or null if one has none. */
function detachStartBytes(sequences: readonly string[]): Uint8Array | null {
  const starts = new Uint8Array(256);
  for (const seq of sequences) {
    const first = seq.charCodeAt(0);
    // An empty sequence matches anywhere, and a char past latin1 is no byte: search those reads.
    if (!(first >= 0 && first <= 0xff)) return null;
    starts[first] = 1;
  }
  return starts;
}

function holdsAny(chunk: Uint8Array, marked: Uint8Array): boolean {
  for (let i = 0; i < chunk.length; i++) if (marked[chunk[i]!] === 1) return true;
  return false;
}

export interface AttachTarget {
  /** Raw bytes, exactly as the terminal sent them. */
  write(data: Buffer): void;
  /** The descriptor keys may go to straight, while nothing waits to be written before them (else undefined). */
  directFd?(): number | undefined;
  /** The operator's keys reached the row (written here, or straight by the key path): its agent's bookkeeping. */
  typed?(): void;
}

/** What a key path reports (KeyPath.start). */
export interface KeyPathHandlers {
  /** Keys went straight to the row (told a little later, once for a burst). */
  typed(): void;
  /** The path stopped on its own, on a read it did not write all of: the router routes it next. */
  held(chunk: Buffer): void;
}

/**
 * Carries the operator's plain keys (reads with none of the detach keys' first bytes) to an
 * attached row's descriptor without the router, off the event loop: a terminal the server reads
 * itself has one (server/tty-key-relay.ts). While it runs, the terminal's input event is quiet.
 */
export interface KeyPath {
  readonly running: boolean;
  /** From now on reads with none of the bytes `screened` marks go straight to `fd`; false if it cannot. */
  start(fd: number, screened: Uint8Array, on: KeyPathHandlers): boolean;
  /** Stops at once; gives back a read it had taken and not written (route it next), or null. */
  stop(): Buffer | null;
}

export class InputRouter implements Disposable {
  private target: AttachTarget | null = null;
  private readonly subscription: Disposable;
  /** Keeps a UTF-8 character split across reads whole for Ink. */
  private readonly utf8 = new StringDecoder('utf8');
  /**
   * The bytes a detach sequence can start with (a detach key is never inside a read that holds
   * none of them). While attached, that one look per byte is all a keystroke pays before it is
   * written to the row (null: some sequence cannot be screened so, and every read is searched).
   */
  private readonly detachStarts: Uint8Array | null;

  constructor(
    input: Event<Buffer>,
    private readonly toInk: (data: string) => void,
    private readonly detachSequences: readonly string[],
    private readonly onDetach: () => void,
    private readonly onTypedIntoRow: () => void = () => {},
    /** Mouse reports on the dashboard (while attached they are the row's, as the rest of the input). */
    private readonly onMouse: ((e: MouseEvent) => void) | null = null,
    /** Takes plain keys to the attached row while it can (see KeyPath). */
    private readonly keyPath: KeyPath | null = null,
  ) {
    this.detachStarts = detachStartBytes(detachSequences);
    this.subscription = input((chunk) => this.received(chunk));
  }

  private readonly keysTyped: KeyPathHandlers = {
    typed: () => this.typedIntoRow(),
    held: (chunk) => this.received(chunk),
  };

  /** `resume`: hand the keys back to the key path after this read (not while it is being stopped). */
  private received(chunk: Buffer, resume = true): void {
    // The common case while attached — keys without the detach key — goes through as it came.
    if (this.target && (this.detachStarts ? !holdsAny(chunk, this.detachStarts) : !findRawKey(chunk.toString('latin1'), this.detachSequences))) {
      this.target.write(chunk);
      this.typedIntoRow();
    } else {
      this.route(chunk.toString('latin1'));
    }
    if (resume) this.startKeyPath();
  }

  /** Keys reached the attached row: the row hears it first (its agent holds wakes off), then the client. */
  private typedIntoRow(): void {
    this.target?.typed?.();
    this.onTypedIntoRow();
  }

  /** Hands the plain keys to the key path, when there is one and the attached row takes keys straight. */
  private startKeyPath(): void {
    const path = this.keyPath;
    if (!path || path.running || !this.target || !this.detachStarts) return;
    const fd = this.target.directFd?.();
    if (fd !== undefined) path.start(fd, this.detachStarts, this.keysTyped);
  }

  /** Takes the keys back from the key path; a read it held goes the router's way, in order. */
  private stopKeyPath(): void {
    const held = this.keyPath?.stop();
    if (held) this.received(held, false);
  }

  attach(target: AttachTarget): void {
    this.stopKeyPath();
    this.target = target;
    this.startKeyPath();
  }

  detach(): void {
    // A read the path held back was typed while attached: it goes to the row it was typed for.
    this.stopKeyPath();
    this.target = null;
  }

  get attached(): boolean {
    return this.target !== null;
  }

  private route(data: string): void {
    if (!this.target && this.onMouse && data.includes('\x1b[<')) {
      // The dashboard's own mouse reports never reach Ink as keys.
      data = data.replace(SGR_MOUSE, (_m, b: string, x: string, y: string, f: string) => {
        this.onMouse!(mouseEvent(Number(b), Number(x), Number(y), f));
        return '';
      });
      if (data === '') return;
    }
    if (!this.target) {
      // Matching works on latin1 (one char per byte); Ink gets the bytes decoded as UTF-8.
      const text = this.utf8.write(Buffer.from(data, 'latin1'));
      if (text.length > 0) this.toInk(text);
      return;
    }
    const hit = findRawKey(data, this.detachSequences);
    if (!hit) {
      this.target.write(Buffer.from(data, 'latin1'));
      this.typedIntoRow();
      return;
    }
    if (hit.index > 0) this.target.write(Buffer.from(data.slice(0, hit.index), 'latin1'));
    this.target = null;
    this.onDetach();
    const rest = data.slice(hit.index + hit.length);
    if (rest.length > 0) this.route(rest);
  }

  dispose(): void {
    this.keyPath?.stop();
    this.subscription.dispose();
  }
}
