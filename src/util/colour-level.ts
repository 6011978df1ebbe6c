// The colour level a server draws its dashboards in. It has no terminal of its own: Ink's colours
// follow the terminal of the client that started it (server-launch.ts) or beside which bin/swb
// started it (server-entry.ts); both derive it here, from that terminal's environment.
import { WriteStream } from 'node:tty';

/** chalk's colour level (what FORCE_COLOR says) for a terminal's colour depth in bits. */
export function colourLevel(depth: number): string {
  return String(depth >= 24 ? 3 : depth >= 8 ? 2 : depth >= 4 ? 1 : 0);
}

/** The colour level of a terminal described by `env` (TERM, COLORTERM, ...), as node's getColorDepth reads it. */
export function terminalColourLevel(env: NodeJS.ProcessEnv): string {
  return colourLevel(WriteStream.prototype.getColorDepth(env));
}
