// The pages' notification list: the dashboard's own notes, from the dashboard's own sources. It is
// built from the same parts a terminal dashboard builds (an app store, the note strip, the row mirror
// for rows' exits, wake failures, agents' and the fleet's notices, usage budgets; the mail notices for
// mail and refusals and held pairs), so the page's list cannot say anything the dashboard would not.
// One list for the pages of a web server, kept while any page is open: a page opened later sees
// what happened since the first (as a dashboard's list starts when that dashboard opens).
import { initialState, type Note, type NoteKind } from '../app/app-state.js';
import { AppStore } from '../app/app-store.js';
import type { ClientDesk } from '../app/client-desk.js';
import { ComposerController } from '../app/composer-controller.js';
import { MailNotices } from '../app/mail-notices.js';
import { MailViewController } from '../app/mail-view-controller.js';
import { NoteStrip } from '../app/note-strip.js';
import { RowMirror } from '../app/row-mirror.js';
import type { OperatorPort } from '../hub/operator-port.js';
import type { Clock } from '../util/clock.js';
import { Emitter } from '../util/event.js';
import { DisposableStore, type Disposable } from '../util/lifecycle.js';

export class PageNotes implements Disposable {
  private readonly lifetime = new DisposableStore();
  private readonly store: AppStore;
  private readonly strip: NoteStrip;
  private readonly added = this.lifetime.add(new Emitter<Note>());
  /** The newest note already told (notes get rising ids). */
  private told = 0;
  /** Each note once, as it is added to the list. */
  readonly onNote = this.added.event;

  constructor(o: { port: OperatorPort; desk: ClientDesk; clock?: Clock }) {
    const { port, desk } = o;
    // No terminal: the size only matters to the store's composer and layouts, which nothing draws.
    this.store = this.lifetime.add(new AppStore(initialState({ cols: 120, rows: 40 }, 'grid', 'dark'), 0, o.clock));
    this.strip = this.lifetime.add(new NoteStrip({ store: this.store, ...(o.clock ? { clock: o.clock } : {}) }));
    const note = this.strip.note;
    const composer = this.lifetime.add(new ComposerController({ store: this.store, port, note }));
    const mailView = new MailViewController({ store: this.store, port, composer, note });
    this.lifetime.add(new MailNotices({ port, isRow: (name) => desk.fleet.has(name), note, mailView }));
    this.lifetime.add(new RowMirror({ store: this.store, desk, port, notes: this.strip, attachedGone: () => undefined }));
    this.lifetime.add(this.store.onChange((state) => this.tell(state.notes)));
  }

  /** The list, newest first (at most the dashboard's MAX_NOTES). */
  list(): Note[] {
    return [...this.store.getState().notes];
  }

  /** A note of the page's own (how a change it asked for went), into the same list. */
  note(kind: NoteKind, text: string, row: string | null): void {
    this.strip.note(kind, text, row);
  }

  private tell(notes: readonly Note[]): void {
    const fresh = notes.filter((n) => n.id > this.told);
    if (fresh.length === 0) return;
    this.told = Math.max(...fresh.map((n) => n.id));
    for (let i = fresh.length - 1; i >= 0; i--) this.added.fire(fresh[i]!);
  }

  dispose(): void {
    this.lifetime.dispose();
  }
}
