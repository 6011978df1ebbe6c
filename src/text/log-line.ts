// One log entry made safe to write where an operator will read it with `tail` or `less` (issue
// #34.3): log lines carry names and messages that came from files and peers (a tampered row record's
// name, a peer's handle, git's stderr), and an OSC 52 in one would write to the operator's clipboard.
// Everything passes sanitize (ESC and every escape sequence, C0 but newline and tab, C1, DEL and bidi
// controls become visible placeholders), and the lines after the first of a multi-line entry (a
// stack) are indented, so nothing inside an entry can pass for an entry of its own.
import { sanitize } from './sanitize.js';

/** Lines of one entry kept (a stack trace is rarely longer). */
const MAX_ENTRY_LINES = 60;

export function logLine(line: string, maxChars = 4096): string {
  return sanitize(line, { maxChars, maxLines: MAX_ENTRY_LINES }).replace(/\n/g, '\n  ');
}
