// The dashboard's per-row mute, kept by the server's notifier: one set for every client, so a row
// muted on one dashboard is muted (and marked) on all of them. A mute is by row name and lasts
// through the row's restarts and the server's: it is kept with the row records (RowRecordStore), read
// back when the server starts, and forgotten with the row's record.
import type { RowMutes } from '../app/client-desk.js';
import type { Notifier } from '../notify/notifier.js';
import { Emitter } from '../util/event.js';
import type { Disposable } from '../util/lifecycle.js';

/** Where mutes are kept across restarts (the row records' store). */
export interface MuteMemory {
  mutedRows(): string[];
  setMuted(name: string, muted: boolean): void;
}

export class NotifierMutes implements RowMutes, Disposable {
  private readonly changed = new Emitter<{ row: string; muted: boolean }>();
  readonly onMuted = this.changed.event;

  constructor(
    private readonly notifier: Notifier,
    private readonly memory?: MuteMemory,
  ) {
    for (const name of memory?.mutedRows() ?? []) notifier.mute(name);
  }

  muted(name: string): boolean {
    return this.notifier.muted(name);
  }

  setMuted(name: string, muted: boolean): void {
    if (this.notifier.muted(name) === muted) return;
    if (muted) this.notifier.mute(name);
    else this.notifier.unmute(name);
    this.memory?.setMuted(name, muted);
    this.changed.fire({ row: name, muted });
  }

  dispose(): void {
    this.changed.dispose();
  }
}
