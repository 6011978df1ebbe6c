// A unified diff's lines, coloured the way git colours them. The lines are the agent's text: every
// line is sanitized first (no escape sequence of its reaches the terminal), then swb adds its own.
import { sanitize } from '../text/sanitize.js';

const GREEN = '\x1b[32m';
const RED = '\x1b[31m';
const CYAN = '\x1b[36m';
const BOLD = '\x1b[1m';
const RESET = '\x1b[0m';

/** One line of a diff, sanitized, with git's colours. */
export function colorDiffLine(raw: string): string {
  const line = sanitize(raw, { singleLine: true, maxChars: 2000 });
  if (/^(diff --git|index |--- |\+\+\+ |new file|deleted file|similarity|rename |old mode|new mode)/.test(line)) return `${BOLD}${line}${RESET}`;
  if (line.startsWith('@@')) return `${CYAN}${line}${RESET}`;
  if (line.startsWith('+')) return `${GREEN}${line}${RESET}`;
  if (line.startsWith('-')) return `${RED}${line}${RESET}`;
  return line;
}
