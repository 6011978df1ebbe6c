import { HANDLE_HINT, isValidHandle } from '../protocol/handle.js';
import type { Review, WorktreeInfo } from '../worktree/worktree.js';
import { UsageError, type CommandDescriptor } from './command.js';
import { colorDiffLine } from '../worktree/diff-lines.js';
import { commitsHeading } from '../worktree/review-text.js';
import { sanitize } from '../text/sanitize.js';

export const reviewCommand: CommandDescriptor = {
  name: 'review',
  summary: "Show what a worktree row changed since its base: commits, uncommitted and untracked files (operator only).",
  usage: 'ROW',
  minArgs: 1,
  maxArgs: 1,
  flags: [{ name: 'stat', type: 'boolean', description: 'the per-file stats only' }],
  details: 'The diff is against the commit the row started from (kept when it was made). D on the dashboard reviews the focused row.',
  async run(ctx) {
    const row = ctx.args[0]!;
    if (!isValidHandle(row)) throw new UsageError(`${JSON.stringify(row)}: ${HANDLE_HINT}`);
    const client = await ctx.connect({ autoStart: false, server: true });
    const r = await client.request<Review & { worktree: WorktreeInfo }>('server.review', { row });
    ctx.result(r);
    const from = r.worktree.base.ref ? `${r.worktree.base.ref} at ${r.base.slice(0, 12)}` : r.base.slice(0, 12);
    const clean = (t: string) => sanitize(t, { singleLine: true, maxChars: 300 });
    ctx.print(`${row}: ${clean(r.worktree.branch)} in ${clean(r.worktree.path)}, against ${clean(from)}`);
    // An older server sends no commits.
    const commits = r.commits ?? [];
    const count = r.commitCount ?? commits.length;
    if (count > 0) {
      ctx.print(`  ${commitsHeading(count)}`);
      for (const c of commits) ctx.print(`    ${clean(c.hash)} ${clean(c.subject)}`);
      if (count > commits.length) ctx.print(`    ... and ${count - commits.length} older`);
    }
    if (r.files.length === 0) {
      ctx.print(count > 0 ? '  no changes in the files' : '  no changes');
      return 0;
    }
    let added = 0;
    let deleted = 0;
    for (const f of r.files) {
      added += f.added;
      deleted += f.deleted;
      ctx.print(`  ${f.status} ${f.binary ? '(binary)'.padEnd(12) : `+${f.added} -${f.deleted}`.padEnd(12)} ${clean(f.path)}`);
    }
    ctx.print(`  ${r.files.length} file${r.files.length === 1 ? '' : 's'}, +${added} -${deleted}`);
    if (ctx.flags.stat === true) return 0;
    // A terminal gets the lines sanitized and coloured by swb; a pipe gets the patch as git wrote it.
    const color = process.stdout.isTTY === true;
    ctx.print('');
    for (const line of r.patch.split('\n')) ctx.print(color ? colorDiffLine(line) : line);
    if (r.truncated) ctx.print(`(cut short; the whole diff: git -C ${r.worktree.path} diff ${r.base})`);
    return 0;
  },
};
