// The dashboard's per-row mute, kept by the server's notifier: one set for every client, so a row
// muted on one dashboard is muted (and marked) on all of them. A mute is by row name and lasts while
// the server runs, through the row's restarts.
import type { RowMutes } from '../app/client-desk.js';
import type { Notifier } from '../notify/notifier.js';
import { Emitter } from '../util/event.js';
import type { Disposable } from '../util/lifecycle.js';

export class NotifierMutes implements RowMutes, Disposable {
  private readonly changed = new Emitter<{ row: string; muted: boolean }>();
  readonly onMuted = this.changed.event;

  constructor(private readonly notifier: Notifier) {}

  muted(name: string): boolean {
    return this.notifier.muted(name);
  }

  setMuted(name: string, muted: boolean): void {
    if (this.notifier.muted(name) === muted) return;
    if (muted) this.notifier.mute(name);
    else this.notifier.unmute(name);
    this.changed.fire({ row: name, muted });
  }

  dispose(): void {
    this.changed.dispose();
  }
}
