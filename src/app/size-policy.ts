// This client's part in the rows' sizes. Rows are shared; the fleet decides which client sizes
// which row (the last one typed into, the one attached to it). This client gives the rows it
// decides the size of the size it shows them at: the whole terminal for the attached row, its
// viewport on the dashboard. It resizes only when the layout changed (coalesced, so focus hops
// do not make programs reflow many times), and a same size is no resize at all (RowProcess).
import type { RowFleet } from '../supervisor/row-fleet.js';
import { DisposableStore, type Disposable } from '../util/lifecycle.js';
import { TimerSlot } from '../util/timer-slot.js';
import type { AppStore } from './app-store.js';
import type { Layout } from './layout.js';
import type { LayoutSource } from './layout-source.js';

/** How long layout changes gather before the rows are resized. */
const RESIZE_SETTLE_MS = 60;

export interface SizePolicyOptions {
  store: AppStore;
  fleet: RowFleet;
  layouts: LayoutSource;
  /** Lines kept under an attached row for its status line (0: the row takes the whole terminal). */
  attachedStatusLines?: number;
}

export class SizePolicy implements Disposable {
  private readonly lifetime = new DisposableStore();
  private readonly settle = this.lifetime.add(new TimerSlot());
  /** What the rows were last sized for: the layout (memoized, so the same object while its key holds) and the attached row. */
  private sizedFor: { layout: Layout; attached: string | null } | null = null;
  /** Set while this client goes away: it sizes nothing any more. */
  private disposing = false;

  constructor(private readonly o: SizePolicyOptions) {
    this.lifetime.add(
      o.store.onChange(() => {
        const state = o.store.getState();
        const layout = o.layouts.of(state);
        if (this.sizedFor?.layout === layout && this.sizedFor.attached === state.attached) return;
        this.settle.setIfIdle(() => this.apply(), RESIZE_SETTLE_MS);
      }),
    );
    // Another client took the sizes, or gave them back.
    this.lifetime.add(o.fleet.onSizeOwner(() => this.apply()));
  }

  /** This client's terminal got input: its sizes decide the rows' sizes from now on. */
  inputArrived(): void {
    this.o.fleet.claimSizes(this, this.o.store.getState().attached);
  }

  /** This client attaches to `name` (on) or leaves it (off): the fleet counts who looks at it whole. */
  attached(name: string, on: boolean): void {
    this.o.fleet.setAttached(name, this, on);
  }

  /** Gives the rows this client decides the size of (see RowFleet.decidesSize) the size it shows them at. */
  apply(): void {
    if (this.disposing) return;
    const { fleet } = this.o;
    const state = this.o.store.getState();
    const layout = this.o.layouts.of(state);
    this.sizedFor = { layout, attached: state.attached };
    if (state.attached !== null) {
      if (fleet.decidesSize(state.attached, this)) {
        fleet.get(state.attached)?.resize(state.size.cols, Math.max(1, state.size.rows - (this.o.attachedStatusLines ?? 0)));
      }
      return;
    }
    for (const p of layout.rows) {
      if (p.viewport.height > 0 && fleet.decidesSize(p.name, this)) fleet.get(p.name)?.resize(p.viewport.width, p.viewport.height);
    }
  }

  dispose(): void {
    this.disposing = true;
    const attached = this.o.store.getState().attached;
    if (attached !== null) this.attached(attached, false);
    if (this.o.fleet.sizeOwner === this) this.o.fleet.claimSizes(null);
    this.lifetime.dispose();
  }
}
