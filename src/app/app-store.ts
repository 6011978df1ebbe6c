// The UI state store: named actions produce new immutable states; subscribers (the Ink tree via
// useAppState) are told at most once per `minIntervalMs`, so a burst of row events costs one
// chrome render, not one per event.
import { sanitize } from '../text/sanitize.js';
import { systemClock, type Clock } from '../util/clock.js';
import { Emitter } from '../util/event.js';
import type { Disposable } from '../util/lifecycle.js';
import { TimerSlot } from '../util/timer-slot.js';
import type { ReceiptState, SendResult } from '../protocol/methods.js';
import { MAX_NOTES, type AppState, type ClosedRow, type Note, type NoteKind, type Overlay, type ParkedReview, type PendingConfirm, type RowView } from './app-state.js';

/** Closed rows kept for reopening. */
const MAX_CLOSED = 9;
import type { ResourceStatus } from '../protocol/resource-name.js';
import { rowReservations, sameReservations } from './row-reservations.js';
import { withStatuses, type ResourcesViewState } from './resources-view-state.js';
import { applyReceiptToSend, applySendError, applySendResult } from './composer-receipts.js';
import {
  bindMention,
  closeComposer,
  openComposer,
  refuseSend,
  saveDraft,
  startSend,
  type ComposerPrefill,
  type ComposerState,
  type MentionBinding,
  type PeerView,
  type SendError,
  type SendStatus,
} from './composer-state.js';
import type { LayoutMode } from './layout.js';
import {
  addArrived,
  appendPage,
  applyReceiptToView,
  resetMailView,
  type MailEntry,
  type MailViewState,
} from './mail-view-state.js';

/** A note longer than this is cut (the strip shows one line of it; the list a few). */
const NOTE_MAX_CHARS = 2000;

export class AppStore implements Disposable {
  private state: AppState;
  private readonly changed = new Emitter<AppState>();
  /** The pending tell of subscribers (at most one per minIntervalMs). */
  private readonly tell: TimerSlot;
  private lastEmit = 0;
  private nextNoteId = 1;
  readonly onChange = this.changed.event;

  constructor(
    initial: AppState,
    private readonly minIntervalMs = 40,
    private readonly clock: Clock = systemClock,
  ) {
    this.state = initial;
    this.tell = new TimerSlot(clock);
  }

  getState = (): AppState => this.state;

  subscribe = (listener: () => void): (() => void) => {
    const d = this.changed.event(listener);
    return () => d.dispose();
  };

  private set(next: AppState): void {
    if (next === this.state) return;
    this.state = next;
    this.schedule();
  }

  private schedule(): void {
    if (this.tell.pending) return;
    this.tell.set(this.emit, this.lastEmit + this.minIntervalMs - this.clock.now());
  }

  private readonly emit = (): void => {
    this.lastEmit = this.clock.now();
    this.changed.fire(this.state);
  };

  /** Emits now (tests, and the first frame). */
  flush(): void {
    this.tell.clear();
    this.emit();
  }

  // --- actions -------------------------------------------------------------------------------

  resize(cols: number, rows: number): void {
    if (cols === this.state.size.cols && rows === this.state.size.rows) return;
    this.set({ ...this.state, size: { cols, rows } });
  }

  addRow(row: RowView): void {
    // A row that joins while it already holds or waits (a restored server, a renamed row) shows it at once.
    const reservations = rowReservations(this.state.resources.statuses, row.name);
    const rows = [...this.state.rows.filter((r) => r.name !== row.name), { ...row, reservations }];
    this.set({ ...this.state, rows, focused: this.state.focused ?? row.name });
  }

  updateRow(name: string, patch: Partial<RowView>): void {
    let changed = false;
    const rows = this.state.rows.map((r) => {
      if (r.name !== name) return r;
      for (const k of Object.keys(patch) as (keyof RowView)[]) {
        if (r[k] !== patch[k]) {
          changed = true;
          break;
        }
      }
      return changed ? { ...r, ...patch } : r;
    });
    if (changed) this.set({ ...this.state, rows });
  }

  removeRow(name: string): void {
    const index = this.state.rows.findIndex((r) => r.name === name);
    if (index < 0) return;
    const rows = this.state.rows.filter((r) => r.name !== name);
    let focused = this.state.focused;
    if (focused === name) focused = rows[Math.min(index, rows.length - 1)]?.name ?? null;
    const attached = this.state.attached === name ? null : this.state.attached;
    // A note about a row that is gone is no longer true ("x exited with status 3" after x was closed).
    const strip = this.state.strip?.row === name ? null : this.state.strip;
    this.set({ ...this.state, rows, focused, attached, strip, zoomed: rows.length > 0 && this.state.zoomed });
  }

  focus(name: string | null): void {
    if (name === null || name === this.state.focused || !this.state.rows.some((r) => r.name === name)) return;
    this.set({ ...this.state, focused: name });
  }

  focusBy(offset: number): void {
    const rows = this.state.rows;
    if (rows.length === 0) return;
    const i = rows.findIndex((r) => r.name === this.state.focused);
    const next = rows[(((i < 0 ? 0 : i) + offset) % rows.length + rows.length) % rows.length]!;
    this.focus(next.name);
  }

  toggleZoom(): void {
    if (!this.state.focused) return;
    this.set({ ...this.state, zoomed: !this.state.zoomed });
  }

  setLayout(mode: LayoutMode): void {
    if (mode !== this.state.layoutMode) this.set({ ...this.state, layoutMode: mode });
  }

  setTheme(name: string): void {
    if (name !== this.state.themeName) this.set({ ...this.state, themeName: name });
  }

  attach(name: string): void {
    if (!this.state.rows.some((r) => r.name === name)) return;
    this.set({ ...this.state, attached: name, overlay: null, focused: name });
  }

  detach(): void {
    if (this.state.attached !== null) this.set({ ...this.state, attached: null });
  }

  openOverlay(overlay: Overlay, explainText = this.state.explainText): void {
    this.set({
      ...this.state,
      overlay,
      explainText,
      // Opening the list shows everything: nothing is unseen any more.
      unseen: overlay === 'notifications' ? 0 : this.state.unseen,
      confirm: overlay === 'confirm' ? this.state.confirm : null,
      wakePick: overlay === 'wakePolicy' ? this.state.wakePick : null,
      parked: overlay === 'parked' ? this.state.parked : null,
      review: overlay === 'review' ? this.state.review : null,
      history: overlay === 'history' ? this.state.history : null,
      resources: overlay === 'resources' ? this.state.resources : { ...this.state.resources, confirmRelease: null, pickController: null, message: null },
    });
  }

  /** The hub's reservations, read again after an event: the overlay's list and every row's marks. */
  setResourceStatuses(statuses: readonly ResourceStatus[]): void {
    const rows = this.state.rows.map((r) => {
      const reservations = rowReservations(statuses, r.name);
      return sameReservations(r.reservations, reservations) ? r : { ...r, reservations };
    });
    this.set({ ...this.state, rows, resources: withStatuses(this.state.resources, statuses) });
  }

  /** A step of the resources overlay (selection, a question asked or answered, a message). */
  updateResourcesView(step: (view: ResourcesViewState) => ResourcesViewState): void {
    const resources = step(this.state.resources);
    if (resources !== this.state.resources) this.set({ ...this.state, resources });
  }

  /** Opens the wake policy picker for `row`. */
  pickWakePolicy(row: string): void {
    this.set({ ...this.state, overlay: 'wakePolicy', wakePick: row });
  }

  /** Opens the "new row" dialog, or keeps it open saying why the last attempt was refused. */
  newRowDialog(problem: string | null): void {
    this.set({ ...this.state, overlay: 'newRow', newRowProblem: problem });
  }

  /** Shows a row's history. */
  showHistory(history: NonNullable<AppState['history']>): void {
    this.set({ ...this.state, overlay: 'history', history });
  }

  setPasteBuffer(text: string | null): void {
    if (this.state.pasteBuffer !== text) this.set({ ...this.state, pasteBuffer: text });
  }

  /** The history view's y or s went through: the view says where the text went. */
  historyDone(text: string): void {
    const h = this.state.history;
    if (!h) return;
    this.set({ ...this.state, history: { ...h, done: { text, seq: (h.done?.seq ?? 0) + 1 } } });
  }

  /** Shows a worktree row's review. */
  showReview(review: NonNullable<AppState['review']>): void {
    this.set({ ...this.state, overlay: 'review', review });
  }

  /** Asks the operator what becomes of a row's parked mail. */
  reviewParked(parked: ParkedReview): void {
    this.set({ ...this.state, overlay: 'parked', parked });
  }

  /** Asks the operator before `action` ends the running program of `row`. */
  askConfirm(confirm: PendingConfirm): void {
    this.set({ ...this.state, overlay: 'confirm', confirm });
  }

  /** Remembers a closed row for the 'reopen' list (newest first, at most MAX_CLOSED). */
  rowClosed(closed: ClosedRow): void {
    this.set({ ...this.state, closed: [closed, ...this.state.closed.filter((c) => c.name !== closed.name)].slice(0, MAX_CLOSED) });
  }

  /** A closed row came back: it leaves the list. */
  rowReopened(name: string): void {
    this.set({ ...this.state, closed: this.state.closed.filter((c) => c.name !== name) });
  }

  /** Adds a note to the list and (unless `strip` is false) shows it in the strip. */
  notify(kind: NoteKind, text: string, row: string | null = null, strip = true, replyTo: number | null = null, mailId: number | null = null): Note {
    // Once more here, whoever wrote the note: many carry text from a file, git or a peer (a path, a
    // branch, an error message), and the strip and the list draw it as is. Clean text passes untouched.
    const note: Note = { id: this.nextNoteId++, at: this.clock.now(), kind, text: sanitize(text, { maxChars: NOTE_MAX_CHARS }), row, ...(replyTo !== null ? { replyTo } : {}), ...(mailId !== null ? { mailId } : {}) };
    const notes = [note, ...this.state.notes].slice(0, MAX_NOTES);
    this.set({ ...this.state, notes, strip: strip ? note : this.state.strip, unseen: this.state.unseen + (strip ? 1 : 0) });
    return note;
  }

  /**
   * A note about something that happened at `at`, before this client came: listed with its own time,
   * never shown on the strip nor counted as unseen (it is history to this client, not news).
   */
  notifyPast(kind: NoteKind, text: string, row: string | null, at: number): void {
    const note: Note = { id: this.nextNoteId++, at, kind, text, row };
    const notes = [...this.state.notes, note].sort((a, b) => b.at - a.at).slice(0, MAX_NOTES);
    this.set({ ...this.state, notes });
  }

  /** Clears the strip (or only note `id`, if it is still the one shown: an aged-out note). */
  dismissStrip(id?: number): void {
    if (this.state.strip && (id === undefined || this.state.strip.id === id)) this.set({ ...this.state, strip: null });
  }

  clearNotes(): void {
    this.set({ ...this.state, notes: [], strip: null });
  }

  // --- composer ------------------------------------------------------------------------------

  private setComposer(composer: ComposerState): void {
    if (composer !== this.state.composer) this.set({ ...this.state, composer });
  }

  // Opening and closing move the keyboard between the composer and the dashboard: emitted at once,
  // so a key typed right after Esc is not read by a composer that is about to go away.

  openComposer(prefill?: ComposerPrefill): void {
    const before = this.state;
    this.setComposer(openComposer(this.state.composer, prefill));
    if (this.state !== before) this.flush();
  }

  closeComposer(draft: string): void {
    const before = this.state;
    this.setComposer(closeComposer(this.state.composer, draft));
    if (this.state !== before) this.flush();
  }

  saveDraft(draft: string): void {
    this.setComposer(saveDraft(this.state.composer, draft));
  }

  bindMention(binding: MentionBinding): void {
    this.setComposer(bindMention(this.state.composer, binding));
  }

  refuseSend(draft: string, warning: string, dropBindings: readonly string[] = []): void {
    this.setComposer(refuseSend(this.state.composer, draft, warning, dropBindings));
  }

  startSend(text: string, status: SendStatus): void {
    this.setComposer(startSend(this.state.composer, text, status));
  }

  private updateLastSend(messageId: string, fn: (s: SendStatus) => SendStatus): void {
    const last = this.state.composer.lastSend;
    if (!last || last.messageId !== messageId) return;
    const next = fn(last);
    if (next !== last) this.setComposer({ ...this.state.composer, lastSend: next });
  }

  sendAccepted(messageId: string, result: SendResult): void {
    this.updateLastSend(messageId, (s) => applySendResult(s, result));
  }

  sendFailed(messageId: string, error: SendError): void {
    this.updateLastSend(messageId, (s) => applySendError(s, error));
  }

  /** Puts a message whose send failed back into the composer, if the operator has not begun another. */
  restoreDraft(text: string): void {
    if (this.state.composer.draft !== '') return;
    this.setComposer({ ...this.state.composer, draft: text });
  }

  /** A receipt moved: the last send's line and the mail view follow it. */
  receiptChanged(change: { id: number; to: string; state: ReceiptState | 'woken' }): void {
    const last = this.state.composer.lastSend;
    const lastSend = last ? applyReceiptToSend(last, change) : last;
    const mailView = applyReceiptToView(this.state.mailView, change);
    if (lastSend === last && mailView === this.state.mailView) return;
    this.set({ ...this.state, composer: lastSend === last ? this.state.composer : { ...this.state.composer, lastSend }, mailView });
  }

  setPeers(peers: readonly PeerView[]): void {
    const old = this.state.peers;
    if (old.length === peers.length && old.every((p, i) => p.handle === peers[i]!.handle && p.online === peers[i]!.online && p.role === peers[i]!.role)) return;
    this.set({ ...this.state, peers });
  }

  // --- mail view -----------------------------------------------------------------------------

  private setMailView(mailView: MailViewState): void {
    if (mailView !== this.state.mailView) this.set({ ...this.state, mailView });
  }

  /** Opens (or re-filters) the mail view with nothing loaded yet. */
  openMailView(filter: string | null): void {
    this.set({ ...this.state, overlay: 'mail', mailView: resetMailView(filter) });
  }

  /** Leaves the mail view, dropping its loaded pages (the filter is remembered). */
  closeMailView(): void {
    this.set({ ...this.state, overlay: this.state.overlay === 'mail' ? null : this.state.overlay, mailView: { ...resetMailView(this.state.mailView.filter), hasMore: false } });
  }

  mailPageLoaded(page: readonly MailEntry[], hasMore: boolean): void {
    this.setMailView(appendPage(this.state.mailView, page, hasMore));
  }

  mailArrived(entry: MailEntry): void {
    this.setMailView(addArrived(this.state.mailView, entry));
  }

  selectMail(id: number | null): void {
    if (id !== this.state.mailView.selectedId) this.setMailView({ ...this.state.mailView, selectedId: id });
  }

  openMail(id: number | null): void {
    const mv = this.state.mailView;
    if (id !== mv.openId) this.setMailView({ ...mv, openId: id, selectedId: id ?? mv.selectedId });
  }

  tick(now: number): void {
    this.set({ ...this.state, now });
  }

  dispose(): void {
    this.tell.dispose();
    this.changed.dispose();
  }
}
