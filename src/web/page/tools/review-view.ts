// A worktree row's review in the page: its title, then the commits, the files and the diff as the
// dashboard's review shows them, in monospace, each line coloured by its kind through a CSS class
// (added, removed, hunk, file head). Every line is the agent's text: inserted as text only.
import type { ReviewLine } from '../../tool-protocol.js';
import { el } from './dom.js';

export function reviewView(title: string, lines: readonly ReviewLine[]): HTMLElement {
  return el('div', { class: 'tools-review' }, [
    el('div', { class: 'tools-review-title', text: title }),
    el(
      'pre',
      { class: 'tools-diff', attrs: { 'aria-label': 'diff' } },
      lines.map((l) => el('div', { class: `tools-diff-line diff-${l.kind}`, text: l.text === '' ? ' ' : l.text })),
    ),
  ]);
}
