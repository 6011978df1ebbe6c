// The one place a client's layout is computed: the chrome (App.tsx), the painter, the rows it
// draws, the size policy and the mouse all ask here, so they agree on the same rectangles and
// the layout is worked out once per change of what shapes it, not once per asker.
import type { AppState } from './app-state.js';
import { computeLayout, type Layout, type LayoutInput } from './layout.js';

/** What shapes the layout: the state's fields computeLayout reads. */
export type LayoutShape = Pick<AppState, 'size' | 'layoutMode' | 'zoomed' | 'focused'> & { rows: ReadonlyArray<{ name: string }> };

export class LayoutSource {
  private last: Layout | null = null;
  private lastKey = '';
  /** The shape the last layout came from, field by field: the same fields skip building the key. */
  private lastShape: LayoutShape | null = null;

  constructor(
    /** Lines at the bottom kept for the chrome (strip and key hints). */
    readonly chromeHeight: number,
    /** How a layout is worked out (a test without a terminal places no rows). */
    private readonly compute: (input: LayoutInput) => Layout = computeLayout,
  ) {}

  /** The layout for `shape`; the same object while nothing that shapes it changed. */
  of(shape: LayoutShape): Layout {
    const seen = this.lastShape;
    if (this.last && seen && seen.size === shape.size && seen.rows === shape.rows && seen.layoutMode === shape.layoutMode && seen.zoomed === shape.zoomed && seen.focused === shape.focused) {
      return this.last;
    }
    this.lastShape = shape;
    const names = shape.rows.map((r) => r.name);
    const key = `${shape.size.cols}x${shape.size.rows}|${shape.layoutMode}|${shape.zoomed}|${shape.focused}|${names.join(',')}`;
    if (this.last && key === this.lastKey) return this.last;
    this.lastKey = key;
    this.last = this.compute({
      cols: shape.size.cols,
      rows: shape.size.rows,
      names,
      focused: shape.focused,
      mode: shape.layoutMode,
      zoomed: shape.zoomed,
      chromeHeight: this.chromeHeight,
    });
    return this.last;
  }
}
