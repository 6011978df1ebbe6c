// A review line for the page: the dashboard's coloured line (colorDiffLine) becomes its kind and its
// plain text, and no escape sequence of the agent's or swb's reaches the page.
import { describe, expect, it } from 'vitest';
import { colorDiffLine } from '../../../src/worktree/diff-lines.js';
import { reviewLine } from '../../../src/web/review-line.js';

describe('reviewLine', () => {
  it('gives each diff line its kind and plain text', () => {
    expect(reviewLine(colorDiffLine('+added'))).toEqual({ kind: 'add', text: '+added' });
    expect(reviewLine(colorDiffLine('-removed'))).toEqual({ kind: 'del', text: '-removed' });
    expect(reviewLine(colorDiffLine('@@ -1,2 +1,3 @@'))).toEqual({ kind: 'hunk', text: '@@ -1,2 +1,3 @@' });
    expect(reviewLine(colorDiffLine('diff --git a/x b/x'))).toEqual({ kind: 'head', text: 'diff --git a/x b/x' });
    expect(reviewLine(colorDiffLine(' context'))).toEqual({ kind: 'text', text: ' context' });
    expect(reviewLine('M +1 -0        src/x.ts')).toEqual({ kind: 'text', text: 'M +1 -0        src/x.ts' });
  });

  it('an agent’s own escapes were made visible by the sanitizer; nothing is left to colour the page', () => {
    const line = reviewLine(colorDiffLine('+evil \x1b[31mred\x1b]0;title\x07 <script>alert(1)</script>'));
    expect(line.kind).toBe('add');
    expect(line.text).not.toMatch(/\x1b/);
    expect(line.text).toContain('<script>alert(1)</script>');
  });
});
