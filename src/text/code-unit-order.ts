// Sorting names without String.prototype.localeCompare. Its first call in a process builds ICU's
// collator for the default locale: 10-25 ms measured on the server's cold start (issue #33), where
// listing the themes was the only caller. The names sorted here (themes, peer handles) are ASCII
// identifiers, for which a locale adds nothing but a machine-dependent order.

/** -1, 0 or 1 by UTF-16 code units: the same order on every machine, and no collator to build. */
export function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
