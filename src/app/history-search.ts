// Search in a row's history (the history view's `/`, `n`, `N`): plain, case-insensitive unless the
// query has a capital letter (as less and vim's smartcase), newest match first.

export interface Hit {
  line: number;
  start: number;
  end: number;
}

/** Every match of `query` in `lines`, oldest first. */
export function findHits(lines: readonly string[], query: string, maxHits = 10_000): Hit[] {
  if (query === '') return [];
  const smart = query !== query.toLowerCase();
  const needle = smart ? query : query.toLowerCase();
  const hits: Hit[] = [];
  for (let i = 0; i < lines.length && hits.length < maxHits; i++) {
    const hay = smart ? lines[i]! : lines[i]!.toLowerCase();
    for (let at = hay.indexOf(needle); at >= 0 && hits.length < maxHits; at = hay.indexOf(needle, at + needle.length)) {
      hits.push({ line: i, start: at, end: at + needle.length });
    }
  }
  return hits;
}

/** The hit to go to from `line`: backward (older, like `?` from the bottom) or forward. */
export function nextHit(hits: readonly Hit[], line: number, backward: boolean): number {
  if (hits.length === 0) return -1;
  if (backward) {
    for (let i = hits.length - 1; i >= 0; i--) if (hits[i]!.line < line) return i;
    return hits.length - 1; // wraps to the newest
  }
  for (let i = 0; i < hits.length; i++) if (hits[i]!.line > line) return i;
  return 0; // wraps to the oldest
}
