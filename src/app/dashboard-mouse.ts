// The mouse on the dashboard: a click focuses the row under it, a second click there attaches, the
// wheel up opens its history; over a scrolling overlay the wheel scrolls it (as j / k). Rows are
// hit-tested against the client's one layout, the rectangles the painter draws them in.
import type { ActionName } from '../config/keymap.js';
import { systemClock, type Clock } from '../util/clock.js';
import type { MouseEvent } from './intents.js';
import type { AppStore } from './app-store.js';
import type { LayoutSource } from './layout-source.js';

/** Two clicks on one row this close together attach it. */
const DOUBLE_CLICK_MS = 400;

/** Overlays whose lists the mouse wheel scrolls (as j / k). */
const SCROLLING_OVERLAYS: ReadonlySet<string> = new Set(['history', 'mail', 'notifications', 'review']);

export class DashboardMouse {
  /** The last click on a row, to tell a double click. */
  private lastClick: { row: string; at: number } | null = null;

  constructor(
    private readonly o: {
      store: AppStore;
      layouts: LayoutSource;
      action: (action: ActionName) => void;
      /** Keys for Ink as if typed (the wheel over a scrolling overlay). */
      injectKeys?: (keys: string) => void;
      /** Times the double click (default: the system clock). */
      clock?: Clock;
    },
  ) {}

  readonly mouse = (e: MouseEvent): void => {
    const { store } = this.o;
    const state = store.getState();
    if (state.attached !== null) return;
    if (state.overlay !== null) {
      if (SCROLLING_OVERLAYS.has(state.overlay) && (e.button === 'wheelUp' || e.button === 'wheelDown')) {
        this.o.injectKeys?.((e.button === 'wheelUp' ? 'k' : 'j').repeat(3));
      }
      return;
    }
    const hit = this.o.layouts.of(state).rows.find((p) => {
      const top = p.header.y;
      const bottom = p.viewport.y + p.viewport.height;
      return e.y >= top && e.y < bottom && e.x >= p.header.x && e.x < p.header.x + p.header.width;
    });
    if (!hit) return;
    if (e.button === 'wheelUp') {
      store.focus(hit.name);
      return this.o.action('history');
    }
    if (e.button !== 'left' || !e.press) return;
    const now = (this.o.clock ?? systemClock).now();
    const double = this.lastClick?.row === hit.name && now - this.lastClick.at < DOUBLE_CLICK_MS;
    this.lastClick = double ? null : { row: hit.name, at: now };
    store.focus(hit.name);
    if (double) this.o.action('attach');
  };
}
