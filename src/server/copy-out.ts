// Where the operator's copies go (the history view's y and s): the terminal's clipboard through
// OSC 52 when the config says so (opt-in: some terminals refuse it, and it reaches whatever
// terminal the operator sits at, even over SSH), otherwise a private file in the runtime dir.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** OSC 52 carries at most this much; more goes to a file even when the clipboard is allowed. */
const MAX_OSC52_BYTES = 64 * 1024;

/** Copies `text`; returns where it went, as words for the notification. */
export function copyOut(text: string, mode: 'osc52' | 'file', writeTerminal: (s: string) => void, dir: string): string {
  if (mode === 'osc52' && Buffer.byteLength(text) <= MAX_OSC52_BYTES) {
    writeTerminal(`\x1b]52;c;${Buffer.from(text, 'utf8').toString('base64')}\x07`);
    return 'to the clipboard (OSC 52)';
  }
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, `copy-${new Date().toISOString().replace(/[:.]/g, '-')}.txt`);
  writeFileSync(file, text.endsWith('\n') ? text : `${text}\n`, { mode: 0o600 });
  return `to ${file}${mode === 'osc52' ? ' (too long for the clipboard)' : ''}`;
}
