// Keys that reach the dashboard together (the terminal sent a burst while the process was busy)
// arrive at Ink as one input string such as "zg?", which its key handlers would read as no key at
// all. The pacer hands Ink one key at a time and waits for Ink's next frame (the key's effect)
// or a short deadline before the next, so each key is handled against the state the previous one
// produced. Text entry (the composer) gets the rest of a burst in one piece, unpaced.
//
// A key that comes in a read of its own waits the same way when the one before is still being
// handled. Ink's components subscribe to keys in effects (useInput's isActive), and React runs
// effects only after the commit that drew the frame: the new-row form's Tab moved the focus on
// screen, but the next key, typed 12 ms later while a 200x50 frame was committed, still reached
// the field the focus had left. Hence also the wait after the frame: two check phases, so that
// the effects React queued at the end of that commit (a setImmediate of its scheduler) have run.
import { systemClock, type Clock } from '../util/clock.js';
import { toDisposable, type Disposable } from '../util/lifecycle.js';
import type { Event } from '../util/event.js';

const ESC = '\x1b';
const PASTE_START = '\x1b[200~';
const PASTE_END = '\x1b[201~';

/** Splits terminal input into keys: escape sequences, Alt+key, a bracketed paste, or one character. */
export function splitKeys(text: string): string[] {
  const keys: string[] = [];
  let i = 0;
  while (i < text.length) {
    let end: number;
    if (text.startsWith(PASTE_START, i)) {
      const close = text.indexOf(PASTE_END, i + PASTE_START.length);
      end = close < 0 ? text.length : close + PASTE_END.length;
    } else if (text[i] === ESC && i + 1 < text.length) {
      const next = text[i + 1]!;
      if (next === '[') {
        end = i + 2;
        while (end < text.length && !(text.charCodeAt(end) >= 0x40 && text.charCodeAt(end) <= 0x7e)) end++;
        end = Math.min(text.length, end + 1);
      } else if (next === 'O') {
        end = Math.min(text.length, i + 3);
      } else {
        end = i + 1 + (text.codePointAt(i + 1)! > 0xffff ? 2 : 1);
      }
    } else {
      end = i + (text.codePointAt(i)! > 0xffff ? 2 : 1);
    }
    keys.push(text.slice(i, end));
    i = end;
  }
  return keys;
}

/** Joins runs of printable characters into one piece: a text field inserts a run whole. */
export function joinTextRuns(keys: readonly string[]): string[] {
  const out: string[] = [];
  for (const k of keys) {
    const printable = k.length > 0 && !/[\x00-\x1f\x7f]/.test(k);
    const last = out[out.length - 1];
    if (printable && last !== undefined && !/[\x00-\x1f\x7f]/.test(last)) out[out.length - 1] = last + k;
    else out.push(k);
  }
  return out;
}

/** How keys reach Ink: one at a time, whole bursts (the composer), or text runs whole and other keys one at a time (a form). */
export type PaceMode = 'keys' | 'burst' | 'text';

export class KeyPacer implements Disposable {
  private queue: string[] = [];
  private waiting: Disposable | null = null;

  constructor(
    private readonly deliver: (text: string) => void,
    /** 'burst' while text is being typed in the composer: then a burst goes through whole. */
    private readonly mode: () => PaceMode,
    private readonly frames: Event<void>,
    /**
     * How long a key that draws nothing (an unbound key, a move past the last row) holds the next.
     * Under a held key's repeat interval (~33 ms), so repeats past the end never pile up. A key
     * that does draw starts its render in the same event-loop turn, before this can run out.
     */
    private readonly maxWaitMs = 25,
    private readonly clock: Clock = systemClock,
  ) {}

  push(text: string): void {
    this.queue.push(...this.split(text));
    if (!this.waiting) this.pump();
  }

  private pump(): void {
    if (this.queue.length === 0) return;
    if (this.mode() === 'burst') {
      const rest = this.queue.join('');
      this.queue = [];
      this.deliver(rest);
      return;
    }
    this.deliver(this.queue.shift()!);
    // Wait even with nothing queued: a key read a moment later must not overtake this one.
    const frame = this.frames(() => this.next());
    const timer = this.clock.setTimer(() => this.next(), this.maxWaitMs);
    this.waiting = toDisposable(() => {
      frame.dispose();
      timer.dispose();
    });
  }

  private split(text: string): string[] {
    const mode = this.mode();
    if (mode === 'burst') return [text];
    return mode === 'text' ? joinTextRuns(splitKeys(text)) : splitKeys(text);
  }

  private next(): void {
    if (!this.waiting) return;
    this.waiting.dispose();
    // Still waiting (keys that come meanwhile queue up) until the commit and its effects are done:
    // the frame fires inside the commit, which queues its effects after this first setImmediate.
    let settle: NodeJS.Immediate | undefined = setImmediate(() => {
      settle = setImmediate(() => {
        settle = undefined;
        this.waiting = null;
        this.pump();
      });
    });
    this.waiting = toDisposable(() => {
      if (settle) clearImmediate(settle);
    });
  }

  dispose(): void {
    this.waiting?.dispose();
    this.waiting = null;
    this.queue = [];
  }
}
