import { HANDLE_HINT, isValidHandle } from '../protocol/handle.js';
import { UsageError, type CommandDescriptor } from './command.js';

export const mergeCommand: CommandDescriptor = {
  name: 'merge',
  summary: "Merge a worktree row's branch into its base branch in the main checkout (operator only).",
  usage: 'ROW [--rebase | --squash] [--into BRANCH] [--commit-all]',
  minArgs: 1,
  maxArgs: 1,
  flags: [
    { name: 'rebase', type: 'boolean', description: "rebase the row's branch onto the target first (then fast-forward)" },
    { name: 'squash', type: 'boolean', description: 'one commit on the target' },
    { name: 'into', type: 'string', value: 'BRANCH', description: 'the branch to merge into (default: the base branch); it must be checked out in the main checkout' },
    { name: 'commit-all', type: 'boolean', description: "commit the row's uncommitted changes first (otherwise they refuse the merge)" },
  ],
  details: 'Fast-forwards when it can. Refuses, changing nothing, when the main checkout is dirty or on another branch, the row has uncommitted work, or the merge conflicts.',
  async run(ctx) {
    const row = ctx.args[0]!;
    if (!isValidHandle(row)) throw new UsageError(`${JSON.stringify(row)}: ${HANDLE_HINT}`);
    if (ctx.flags.rebase === true && ctx.flags.squash === true) throw new UsageError('--rebase or --squash, not both');
    const client = await ctx.connect({ autoStart: false, server: true });
    const r = await client.request<{ into: string; commit: string; fastForward: boolean; committedFirst: boolean }>('server.merge', {
      row,
      mode: ctx.flags.rebase === true ? 'rebase' : ctx.flags.squash === true ? 'squash' : 'merge',
      ...(ctx.flags.into !== undefined ? { into: ctx.flags.into } : {}),
      ...(ctx.flags['commit-all'] === true ? { commitAll: true } : {}),
    });
    ctx.result(r);
    ctx.print(`${r.committedFirst ? 'committed the uncommitted work, then ' : ''}merged ${row} into ${r.into}${r.fastForward ? ' (fast-forward)' : ''}: ${r.commit.slice(0, 12)}`);
    return 0;
  },
};
