// Where every row goes on the screen: a pure function of the terminal size, the rows, the focus
// and the layout mode. Ink draws the chrome (headers, bars) from these rectangles, and the
// compositor paints each row's emulated screen into its viewport rectangle, so both agree.

export type LayoutMode = 'stack' | 'grid';

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface RowPlacement {
  name: string;
  /** The one-line header bar above the viewport. */
  header: Rect;
  /** The row's screen; height 0 when the row is collapsed to its header. */
  viewport: Rect;
}

export interface LayoutInput {
  cols: number;
  rows: number;
  names: readonly string[];
  focused: string | null;
  mode: LayoutMode;
  zoomed: boolean;
  /** Lines at the bottom kept for the status strip and composer. */
  chromeHeight: number;
}

export interface Layout {
  rows: RowPlacement[];
  /** Rows that did not fit (shown only as a count in the status bar). */
  hidden: string[];
  chrome: Rect;
}

/** Share `total` among `weights` proportionally, integers, every share >= min when possible. */
export function shareOut(total: number, weights: readonly number[], min: number): number[] {
  const n = weights.length;
  if (n === 0) return [];
  const base = Math.min(min, Math.floor(total / n));
  let rest = total - base * n;
  const sum = weights.reduce((a, b) => a + b, 0);
  const shares = weights.map((w) => base + Math.floor((rest * w) / sum));
  rest = total - shares.reduce((a, b) => a + b, 0);
  for (let i = 0; rest > 0; i = (i + 1) % n, rest--) shares[i]! += 1;
  return shares;
}

export function computeLayout(input: LayoutInput): Layout {
  const cols = Math.max(1, input.cols);
  const chromeHeight = Math.min(input.chromeHeight, Math.max(0, input.rows - 2));
  const areaHeight = Math.max(0, input.rows - chromeHeight);
  const chrome: Rect = { x: 0, y: areaHeight, width: cols, height: chromeHeight };
  const names = input.zoomed && input.focused && input.names.includes(input.focused) ? [input.focused] : [...input.names];
  if (names.length === 0 || areaHeight === 0) return { rows: [], hidden: [...names], chrome };
  return input.mode === 'grid' && names.length > 1 ? grid(names, input, cols, areaHeight, chrome) : stack(names, input, cols, areaHeight, chrome);
}

function stack(names: string[], input: LayoutInput, cols: number, areaHeight: number, chrome: Rect): Layout {
  // Each row needs at least its header; those that cannot even get that are hidden.
  const fit = Math.min(names.length, areaHeight);
  const shown = pickVisible(names, input.focused, fit);
  const hidden = names.filter((n) => !shown.includes(n));
  const focusedWeight = shown.length > 1 ? Math.max(2, shown.length - 1) : 1;
  const weights = shown.map((n) => (n === input.focused ? focusedWeight : 1));
  const heights = shareOut(areaHeight, weights, 1);
  let y = 0;
  const rows = shown.map((name, i) => {
    const h = heights[i]!;
    const placement: RowPlacement = {
      name,
      header: { x: 0, y, width: cols, height: 1 },
      viewport: { x: 0, y: y + 1, width: cols, height: Math.max(0, h - 1) },
    };
    y += h;
    return placement;
  });
  return { rows, hidden, chrome };
}

function grid(names: string[], input: LayoutInput, cols: number, areaHeight: number, chrome: Rect): Layout {
  let gridCols = Math.ceil(Math.sqrt(names.length));
  // Keep cells at least 20 columns wide.
  while (gridCols > 1 && Math.floor((cols - (gridCols - 1)) / gridCols) < 20) gridCols--;
  let gridRows = Math.ceil(names.length / gridCols);
  gridRows = Math.min(gridRows, Math.max(1, Math.floor(areaHeight / 2)));
  const capacity = gridRows * gridCols;
  const shown = pickVisible(names, input.focused, capacity);
  const hidden = names.filter((n) => !shown.includes(n));
  const focusedIndex = input.focused ? shown.indexOf(input.focused) : -1;
  const focusRow = focusedIndex >= 0 ? Math.floor(focusedIndex / gridCols) : -1;
  const focusCol = focusedIndex >= 0 ? focusedIndex % gridCols : -1;
  // The focused row's grid line and column get a larger share; separators are one column wide.
  const heights = shareOut(areaHeight, Array.from({ length: gridRows }, (_, r) => (r === focusRow && gridRows > 1 ? 1.5 : 1)), 2);
  const widths = shareOut(cols - (gridCols - 1), Array.from({ length: gridCols }, (_, c) => (c === focusCol && gridCols > 1 ? 1.5 : 1)), 1);
  const rows: RowPlacement[] = [];
  let y = 0;
  for (let r = 0; r < gridRows; r++) {
    let x = 0;
    for (let c = 0; c < gridCols; c++) {
      const name = shown[r * gridCols + c];
      const w = widths[c]!;
      if (name !== undefined) {
        rows.push({
          name,
          header: { x, y, width: w, height: 1 },
          viewport: { x, y: y + 1, width: w, height: Math.max(0, heights[r]! - 1) },
        });
      }
      x += w + 1;
    }
    y += heights[r]!;
  }
  return { rows, hidden, chrome };
}

/** The first `count` rows in order, but always including the focused one. */
function pickVisible(names: readonly string[], focused: string | null, count: number): string[] {
  if (count >= names.length) return [...names];
  const shown = names.slice(0, count);
  if (focused && names.includes(focused) && !shown.includes(focused)) shown[count - 1] = focused;
  return shown;
}

/** Neighbour of the focused row in a direction, from the placements actually on screen. */
export function neighbour(layout: Layout, focused: string | null, direction: 'up' | 'down' | 'left' | 'right'): string | null {
  const from = layout.rows.find((r) => r.name === focused);
  if (!from) return layout.rows[0]?.name ?? null;
  const cx = from.header.x + from.header.width / 2;
  const cy = from.header.y;
  let best: { name: string; score: number } | null = null;
  for (const r of layout.rows) {
    if (r.name === from.name) continue;
    const dx = r.header.x + r.header.width / 2 - cx;
    const dy = r.header.y - cy;
    const ok = direction === 'up' ? dy < 0 : direction === 'down' ? dy > 0 : direction === 'left' ? dx < 0 : dx > 0;
    if (!ok) continue;
    const score = direction === 'up' || direction === 'down' ? Math.abs(dy) * 4 + Math.abs(dx) : Math.abs(dx) * 4 + Math.abs(dy);
    if (!best || score < best.score) best = { name: r.name, score };
  }
  return best?.name ?? null;
}
