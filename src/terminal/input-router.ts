// Routes one client's keys. On the dashboard, bytes go to Ink (through its proxy stdin); while a
// row is attached, every byte goes to that row's program except the detach key, which is found in
// any of the forms a terminal may send it (legacy, modifyOtherKeys, kitty). The terminal's raw
// mode is the thin client's business; here keys are just bytes arriving.
import { StringDecoder } from 'node:string_decoder';
import { findRawKey } from '../config/keymap.js';
import type { Event } from '../util/event.js';
import type { Disposable } from '../util/lifecycle.js';

/** A click or a wheel turn on the dashboard (SGR mouse report; cells counted from 0). */
export interface MouseEvent {
  x: number;
  y: number;
  button: 'left' | 'middle' | 'right' | 'wheelUp' | 'wheelDown' | 'other';
  press: boolean;
}

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
  ) {
    this.detachStarts = detachStartBytes(detachSequences);
    this.subscription = input((chunk) => this.received(chunk));
  }

  private received(chunk: Buffer): void {
    // The common case while attached — keys without the detach key — goes through as it came.
    if (this.target && (this.detachStarts ? !holdsAny(chunk, this.detachStarts) : !findRawKey(chunk.toString('latin1'), this.detachSequences))) {
      this.target.write(chunk);
      this.onTypedIntoRow();
      return;
    }
    this.route(chunk.toString('latin1'));
  }

  attach(target: AttachTarget): void {
    this.target = target;
  }

  detach(): void {
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
      this.onTypedIntoRow();
      return;
    }
    if (hit.index > 0) this.target.write(Buffer.from(data.slice(0, hit.index), 'latin1'));
    this.target = null;
    this.onDetach();
    const rest = data.slice(hit.index + hit.length);
    if (rest.length > 0) this.route(rest);
  }

  dispose(): void {
    this.subscription.dispose();
  }
}
