// The mail view's side effects: pages of history from the store (newest first, a page at a time, never
// the whole table), receipts for what is loaded, new mail and receipt changes while it is open, marking
// read, and handing a message to the composer for a reply.
import type { MailViewIntents } from './intents.js';
import type { OperatorPort } from '../hub/operator-port.js';
import { OPERATOR } from '../protocol/handle.js';
import type { MailItem } from '../protocol/methods.js';
import type { NoteKind } from './app-state.js';
import type { AppStore } from './app-store.js';
import type { ComposerController } from './composer-controller.js';
import { MAIL_PAGE, mailFilters, matchesFilter, nextFilter, toMailEntry, type MailEntry } from './mail-view-state.js';
import { markAllReadTargets, markReadTargets } from './mail-view-threads.js';

/** The part of the hub the mail view uses (the embedded Hub satisfies it). */
/** What the mail view needs of the mail core. */
export type MailViewPort = Pick<OperatorPort, 'history' | 'receipts' | 'markRead'>;

export interface MailViewControllerOptions {
  store: AppStore;
  port: MailViewPort;
  composer: ComposerController;
  note: (kind: NoteKind, text: string, row: string | null) => void;
  pageSize?: number;
}

export class MailViewController implements MailViewIntents {
  private readonly pageSize: number;

  constructor(private readonly o: MailViewControllerOptions) {
    this.pageSize = o.pageSize ?? MAIL_PAGE;
  }

  private entry(id: number): MailEntry | undefined {
    return this.o.store.getState().mailView.entries.find((e) => e.id === id);
  }

  private toEntry(item: MailItem): MailEntry {
    return toMailEntry(item, this.o.port.receipts(item.id)?.recipients);
  }

  open(filter: string | null): void {
    this.o.composer.refreshPeers();
    this.o.store.openMailView(filter);
    this.loadPage();
  }

  close(): void {
    this.o.store.closeMailView();
  }

  /** The next older page, if there is one. */
  loadPage(): void {
    const mv = this.o.store.getState().mailView;
    if (!mv.hasMore) return;
    const oldest = mv.entries[mv.entries.length - 1]?.id;
    const history = this.o.port.history({
      limit: this.pageSize,
      ...(oldest !== undefined ? { before: oldest } : {}),
      ...(mv.filter !== null ? { peer: mv.filter } : {}),
    });
    if ('error' in history) {
      this.o.note('error', history.error.message, null);
      return;
    }
    this.o.store.mailPageLoaded(
      history.ok.items.map((m) => this.toEntry(m)),
      history.ok.more,
    );
  }

  /** New mail while the view is open. */
  arrived(item: MailItem): void {
    const state = this.o.store.getState();
    if (state.overlay !== 'mail' || !matchesFilter(item, state.mailView.filter)) return;
    this.o.store.mailArrived(this.toEntry(item));
  }

  select(id: number): void {
    this.o.store.selectMail(id);
  }

  /** Opens a message in full (marking the operator's copy read), or closes it again. */
  toggle(id: number): void {
    const mv = this.o.store.getState().mailView;
    if (mv.openId === id) {
      this.o.store.openMail(null);
      return;
    }
    this.o.store.openMail(id);
    const e = this.entry(id);
    if (e && e.to.includes(OPERATOR)) this.markFor(e, [OPERATOR]);
  }

  markRead(id: number): void {
    const e = this.entry(id);
    if (!e) return;
    const targets = markReadTargets(e, this.o.store.getState().mailView.filter);
    if (targets.length === 0) {
      this.o.note('info', `#${id}: nothing unread to mark`, null);
      return;
    }
    this.markFor(e, targets);
  }

  /** Marks every loaded message read for the filtered handle (no filter: for the operator). */
  markAllRead(): void {
    const { entries, filter } = this.o.store.getState().mailView;
    let marked = 0;
    for (const e of entries) {
      const targets = markAllReadTargets(e, filter);
      if (targets.length === 0) continue;
      this.markFor(e, targets);
      marked += 1;
    }
    this.o.note('info', marked === 0 ? 'nothing unread to mark' : `marked ${marked} message${marked === 1 ? '' : 's'} read`, null);
  }

  private markFor(e: MailEntry, handles: readonly string[]): void {
    // Receipts reach the view (and the unread badges) through the port's receipt events.
    void this.o.port.markRead(handles, e.id).then((r) => {
      if ('error' in r) this.o.note('error', r.error.message, null);
    });
  }

  reply(id: number): void {
    const e = this.entry(id);
    if (e) this.o.composer.reply(e);
  }

  cycleFilter(step: number): void {
    const state = this.o.store.getState();
    const filters = mailFilters(state.rows, state.peers, state.focused);
    this.open(nextFilter(state.mailView.filter, filters, step));
  }
}
