// Keeps one page's row headers current: the same mirror a terminal dashboard keeps (RowMirror over
// the fleet, the agents, the operator port's unread counts, worktrees, mutes, usage, in an AppStore
// of the page's own), turned into frames — the whole list when rows come, go or move, one row when
// only its header changed. No second source of truth: the store is the dashboard's, and what the
// page gets is what a terminal client would draw. The store tells at most once per 40 ms, so a
// burst of state changes is one frame. A row's age moves with its output, which the mirror does
// not follow (a terminal client reads it as it paints): it is looked at every AGE_REFRESH_MS.
import { initialState, type RowView } from '../app/app-state.js';
import { AppStore } from '../app/app-store.js';
import type { ClientDesk } from '../app/client-desk.js';
import { NoteStrip } from '../app/note-strip.js';
import { RowMirror } from '../app/row-mirror.js';
import type { OperatorPort } from '../hub/operator-port.js';
import { DisposableStore, type Disposable } from '../util/lifecycle.js';
import { TimerSlot } from '../util/timer-slot.js';
import type { ServerToPage } from './page-protocol.js';

/** How often the rows' last-output times are carried into their headers (the page ages them itself in between). */
export const AGE_REFRESH_MS = 2_000;

export class PageRowHeaders implements Disposable {
  private readonly lifetime = new DisposableStore();
  private readonly store: AppStore;
  private sent: readonly RowView[] = [];
  private readonly ages = this.lifetime.add(new TimerSlot());

  constructor(
    private readonly desk: ClientDesk,
    port: OperatorPort,
    private readonly send: (message: ServerToPage) => void,
  ) {
    this.store = this.lifetime.add(new AppStore(initialState({ cols: 80, rows: 24 }, 'grid', 'default')));
    const notes = this.lifetime.add(new NoteStrip({ store: this.store }));
    this.lifetime.add(new RowMirror({ store: this.store, desk, port, notes, attachedGone: () => undefined }));
    this.lifetime.add(this.store.onChange(() => this.tell()));
    this.sent = this.store.getState().rows;
    this.send({ t: 'rows', rows: [...this.sent] });
    this.refreshAges();
  }

  /** The rows as the page was last told them. */
  get rows(): readonly RowView[] {
    return this.sent;
  }

  private tell(): void {
    const rows = this.store.getState().rows;
    const before = this.sent;
    if (rows === before) return;
    this.sent = rows;
    if (rows.length !== before.length || rows.some((r, i) => r.name !== before[i]!.name)) {
      this.send({ t: 'rows', rows: [...rows] });
      return;
    }
    for (let i = 0; i < rows.length; i++) if (rows[i] !== before[i]) this.send({ t: 'row', name: rows[i]!.name, row: rows[i]! });
  }

  private readonly refreshAges = (): void => {
    for (const view of this.store.getState().rows) {
      const at = this.desk.fleet.get(view.name)?.lastOutputAt;
      if (at !== undefined && at !== view.lastOutputAt) this.store.updateRow(view.name, { lastOutputAt: at });
    }
    this.ages.set(this.refreshAges, AGE_REFRESH_MS);
  };

  dispose(): void {
    this.lifetime.dispose();
  }
}
