// The rows one client draws, each held by its render handle (Row.show, or Row.attach for the row
// the keys go to). The handles follow what the client decides it shows — focus, layout, attach,
// detach, overlays, rows coming and going — as its state changes, never inside a paint; their
// listeners go straight to the client's painter. A row's render handle is also what decides how
// the row reads and parses (batched while nobody draws it, at once while attached).
import type { Row } from '../rows/row.js';
import { DisposableMap } from '../util/disposable-map.js';
import { DisposableStore, type Disposable } from '../util/lifecycle.js';
import type { AppStore } from './app-store.js';
import type { LayoutSource } from './layout-source.js';

/** Where a drawn row's changes go (the terminal's DashboardPainter; later a browser's). */
export interface RowPainter {
  /** The row's screen changed: paint it when the painter's frame comes. */
  rowChanged(row: Row): void;
  /** The attached row's program wrote `chunk`, which its screen parses next (an echo may go ahead). */
  rowOutput(row: Row, chunk: Buffer): void;
}

/** How a client holds a row: drawn attached, drawn in its viewport, or only its header shown. */
type Hold = 'attached' | 'shown' | 'header';

interface Held extends Disposable {
  row: Row;
  hold: Hold;
}

export class DrawnRows implements Disposable {
  private readonly lifetime = new DisposableStore();
  private readonly held = this.lifetime.add(new DisposableMap<string, Held>());

  constructor(
    private readonly o: {
      store: AppStore;
      /** The server's rows by name. */
      rows: { get(name: string): Row | undefined };
      layouts: LayoutSource;
      painter: RowPainter;
    },
  ) {
    this.lifetime.add(o.store.onChange(() => this.update()));
    this.update();
  }

  /** Takes and releases handles so that exactly the rows the state shows are held. */
  update(): void {
    const state = this.o.store.getState();
    const wanted = new Map<string, Hold>();
    if (state.attached !== null) wanted.set(state.attached, 'attached');
    else if (state.overlay === null) {
      // Under a full-screen overlay no row is drawn.
      for (const p of this.o.layouts.of(state).rows) wanted.set(p.name, p.viewport.height > 0 ? 'shown' : 'header');
    }
    for (const name of [...this.held.keys()]) {
      const h = this.held.get(name)!;
      // A row closed and started again under its name is another Row: its handle is taken anew.
      if (wanted.get(name) !== h.hold || this.o.rows.get(name) !== h.row) this.held.delete(name);
    }
    for (const [name, hold] of wanted) {
      if (this.held.has(name)) continue;
      const row = this.o.rows.get(name);
      if (row) this.held.set(name, this.take(row, hold));
    }
  }

  private take(row: Row, hold: Hold): Held {
    const { painter } = this.o;
    const changed = () => painter.rowChanged(row);
    const handle =
      hold === 'attached'
        ? row.attach(changed, (chunk) => painter.rowOutput(row, chunk))
        : hold === 'shown'
          ? row.show(changed)
          : // A header alone is not a drawn screen (the row still reads in batches), but its age
            // follows the row's output.
            row.onScreenChange(changed);
    return { row, hold, dispose: () => handle.dispose() };
  }

  dispose(): void {
    this.lifetime.dispose();
  }
}
