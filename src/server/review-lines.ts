// A worktree row's review as the dashboard's overlay shows it: a title, the per-file stats, then the
// diff, every line sanitized and coloured by swb (never by git: the text is the agent's).
import { colorDiffLine } from '../worktree/diff-lines.js';
import { commitsHeading } from '../worktree/review-text.js';
import { reviewWorktree } from '../worktree/worktree.js';
import { sanitize } from '../text/sanitize.js';
import type { RowFleet } from '../supervisor/row-fleet.js';

const MAX_LINES = 20_000;

export async function reviewLines(fleet: Pick<RowFleet, 'get'>, name: string): Promise<{ title: string; lines: string[] } | { problem: string }> {
  const info = fleet.get(name)?.spec.worktree;
  if (!info) return { problem: `@${name} does not run in a worktree of its own` };
  const r = await reviewWorktree(info);
  if ('error' in r) return { problem: `${r.error.code}: ${r.error.message}` };
  const clean = (t: string) => sanitize(t, { singleLine: true, maxChars: 300 });
  const from = info.base.ref ? `${info.base.ref} at ${r.ok.base.slice(0, 12)}` : r.ok.base.slice(0, 12);
  const lines: string[] = [];
  let added = 0;
  let deleted = 0;
  // The commits first, as `git log --oneline` shows them; a branch's subjects are the agent's text.
  if (r.ok.commitCount > 0) {
    lines.push(commitsHeading(r.ok.commitCount));
    for (const c of r.ok.commits) lines.push(`${clean(c.hash)} ${clean(c.subject)}`);
    if (r.ok.commitCount > r.ok.commits.length) lines.push(`... and ${r.ok.commitCount - r.ok.commits.length} older`);
    lines.push('');
  }
  for (const f of r.ok.files) {
    added += f.added;
    deleted += f.deleted;
    lines.push(`${f.status} ${(f.binary ? '(binary)' : `+${f.added} -${f.deleted}`).padEnd(12)} ${clean(f.path)}`);
  }
  lines.push(r.ok.files.length === 0 ? (r.ok.commitCount > 0 ? 'no changes in the files' : 'no changes') : `${r.ok.files.length} file${r.ok.files.length === 1 ? '' : 's'}, +${added} -${deleted}`, '');
  for (const line of r.ok.patch.split('\n')) {
    if (lines.length >= MAX_LINES) break;
    lines.push(colorDiffLine(line));
  }
  if (r.ok.truncated || lines.length >= MAX_LINES) lines.push(`(cut short; the whole diff: git -C ${clean(info.path)} diff ${r.ok.base})`);
  return { title: `Review of @${name}: ${clean(info.branch)} against ${clean(from)} — ${clean(info.path)}`, lines };
}
