// An agent interrupted right after it took a prompt may give the prompt back as a draft (Claude Code
// puts the cancelled message into its input again). When that prompt was the wake line swb typed, the
// draft is swb's own text, and a draft holds every later wake off: swb erases it, and only it. This
// says whether the input holds exactly the wake line (nothing the operator added) and the bytes that
// erase it: one Backspace (DEL) per character, which every line editor reads the same way.
import type { PromptInput } from './prompt-input.js';

const normal = (text: string) => text.replace(/\s+/g, ' ').trim();

/** The keys that erase the wake line from the input, or null when the input is not exactly that line. */
export function eraseRestoredWakeLine(input: PromptInput, wakeLine: string): string | null {
  if (!input.found || input.dialogOpen) return null;
  const text = normal(input.text);
  const line = normal(wakeLine);
  // A line wrapped inside a narrow input box shows its start on the input row: that counts too (the
  // Backspaces past its start erase nothing).
  if (text !== line && !(text.length >= Math.min(12, line.length) && line.startsWith(text))) return null;
  return '\x7f'.repeat([...wakeLine].length);
}
