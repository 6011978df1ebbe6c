// Scrolling a list in a fixed number of lines: the first visible index for a list of `count` items
// shown in `height` lines, either clamped from a requested offset or moved just enough to keep a
// selected item visible.

/** The offset clamped so the window never runs past the end or before the start. */
export function clampOffset(offset: number, count: number, height: number): number {
  return Math.max(0, Math.min(offset, count - Math.max(1, height)));
}

/** The smallest change of `offset` that keeps `selected` inside the window. */
export function followSelection(offset: number, selected: number, count: number, height: number): number {
  const h = Math.max(1, height);
  let next = offset;
  if (selected < next) next = selected;
  else if (selected >= next + h) next = selected - h + 1;
  return clampOffset(next, count, h);
}
