// What a worktree's `.worktreeinclude` copy left out, and the one line that tells the operator (issue
// #34.2). Apart from src/worktree/copy-included.ts so that the CLI (`swb new`) and the dashboard can
// say it without loading the copying and git.
import { sanitize } from '../text/sanitize.js';

export interface SkippedFile {
  /** The path relative to the repository, as git listed it. */
  file: string;
  /** Why it was not copied, as a phrase ("a symlink in the main checkout"). */
  reason: string;
}

/** One line for the operator naming what was not copied and why (file names sanitized: the repository chose them). */
export function describeSkipped(skipped: readonly SkippedFile[], max = 5): string {
  const shown = skipped.slice(0, max).map((s) => `${sanitize(s.file, { singleLine: true, maxChars: 120 })} (${sanitize(s.reason, { singleLine: true, maxChars: 200 })})`);
  const more = skipped.length > max ? `, and ${skipped.length - max} more` : '';
  return `.worktreeinclude: not copied: ${shown.join(', ')}${more}`;
}
