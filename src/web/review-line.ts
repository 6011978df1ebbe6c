// A worktree row's review line as the page shows it. The server's review (review-lines.ts) gives the
// dashboard's lines: sanitized, then coloured by swb with one SGR colour around the whole line. The
// page colours with CSS classes instead, so each line becomes its kind and its plain text; the colour
// swb chose is the kind, and no escape sequence reaches the page.
import type { ReviewLine } from './tool-protocol.js';

const KIND_OF_SGR: Record<string, ReviewLine['kind']> = { '1': 'head', '31': 'del', '32': 'add', '36': 'hunk' };
/** The one colour swb puts around a line; nothing else in a review line is an escape (it was sanitized first). */
const COLOURED = /^\x1b\[(\d+)m(.*)\x1b\[0m$/s;
const ANY_ESCAPE = /\x1b\[[0-9;]*m/g;

export function reviewLine(line: string): ReviewLine {
  const m = COLOURED.exec(line);
  if (m) return { kind: KIND_OF_SGR[m[1]!] ?? 'text', text: m[2]!.replace(ANY_ESCAPE, '') };
  return { kind: 'text', text: line.replace(ANY_ESCAPE, '') };
}
