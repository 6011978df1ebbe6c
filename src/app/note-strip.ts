// A client's notifications: every note goes to the list, news also to the strip, and whatever is
// on the strip leaves it after a while — one timer, for the note shown now; a newer note replaces
// it. The list keeps them all. (What reaches the operator's desktop is the server's notifier's.)
import { systemClock, type Clock } from '../util/clock.js';
import { DisposableStore, type Disposable } from '../util/lifecycle.js';
import { TimerSlot } from '../util/timer-slot.js';
import type { NoteKind } from './app-state.js';
import type { AppStore } from './app-store.js';

/** How long a note stays on the strip: information briefly, mail and problems longer. */
export const STRIP_AGE_MS = { info: 8_000, news: 60_000 };

/** Adds a note: `own` (the operator's own mail) is listed but is not news for the strip. */
export type Note = (kind: NoteKind, text: string, row: string | null, own?: boolean, replyTo?: number | null, mailId?: number | null) => void;

export interface NoteStripOptions {
  store: AppStore;
  stripAgeMs?: { info: number; news: number };
  /** Ages the strip and tells news from history (default: the system clock). */
  clock?: Clock;
}

export class NoteStrip implements Disposable {
  private readonly lifetime = new DisposableStore();
  private readonly clock: Clock;
  private readonly aging: TimerSlot;
  /** The strip note `aging` ages out. */
  private agingNote: number | null = null;
  private readonly ages: { info: number; news: number };

  constructor(private readonly o: NoteStripOptions) {
    this.ages = o.stripAgeMs ?? STRIP_AGE_MS;
    this.clock = o.clock ?? systemClock;
    this.aging = this.lifetime.add(new TimerSlot(this.clock));
    this.lifetime.add(o.store.onChange(() => this.followStrip()));
  }

  readonly note: Note = (kind, text, row, own = false, replyTo = null, mailId = null) => {
    this.o.store.notify(kind, text, row, !own, replyTo, mailId);
  };

  /** A note about something that happened at `at`: news to a client there when it happened, history to a later one. */
  noteFrom(at: number, text: string, row: string): void {
    if (this.clock.now() - at < this.ages.info) this.note('info', text, row);
    else this.o.store.notifyPast('info', text, row, at);
  }

  private followStrip(): void {
    const strip = this.o.store.getState().strip;
    if (strip?.id === this.agingNote) return;
    this.agingNote = strip?.id ?? null;
    this.aging.clear();
    if (!strip) return;
    this.aging.set(() => this.o.store.dismissStrip(strip.id), strip.kind === 'info' ? this.ages.info : this.ages.news);
  }

  dispose(): void {
    this.lifetime.dispose();
  }
}
