// Whether the input shows swb's wake line, whitespace-insensitive and allowing for a long line that
// wraps inside the input box. The wake reads it after typing (the echo) and after submitting (the line
// left the input: taken).
import type { PromptInput } from './prompt-input.js';

/** Whitespace-insensitive: does the input show (the start of) the wake line? */
export function showsWakeLine(input: PromptInput, wakeLine: string): boolean {
  if (!input.found) return false;
  const text = input.text.replace(/\s+/g, ' ').trim();
  const line = wakeLine.replace(/\s+/g, ' ').trim();
  if (text === '') return false;
  // A long line wraps inside the input box: the first input row holds a prefix of it.
  return text.startsWith(line) || (text.length >= Math.min(12, line.length) && line.startsWith(text));
}
