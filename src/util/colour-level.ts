/** chalk's colour level (what FORCE_COLOR says) for a terminal's colour depth in bits: the server has no terminal of its own, and Ink's colours follow its client's. */
export function colourLevel(depth: number): string {
  return String(depth >= 24 ? 3 : depth >= 8 ? 2 : depth >= 4 ? 1 : 0);
}
