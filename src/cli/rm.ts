import { HANDLE_HINT, isValidHandle } from '../protocol/handle.js';
import { UsageError, type CommandDescriptor } from './command.js';

export const rmCommand: CommandDescriptor = {
  name: 'rm',
  summary: 'Close a worktree row and remove its worktree, unless that would lose work (operator only).',
  usage: 'ROW [--force] [--delete-branch]',
  minArgs: 1,
  maxArgs: 1,
  flags: [
    { name: 'force', type: 'boolean', description: 'remove even with uncommitted changes or commits no other branch has' },
    { name: 'delete-branch', type: 'boolean', description: 'delete the branch too (kept by default)' },
  ],
  details: 'Refuses UNMERGED, saying what would be lost, when the tree is dirty or the branch has commits no other branch reaches. A worktree deleted by hand is pruned.',
  async run(ctx) {
    const row = ctx.args[0]!;
    if (!isValidHandle(row)) throw new UsageError(`${JSON.stringify(row)}: ${HANDLE_HINT}`);
    const client = await ctx.connect({ autoStart: false });
    const r = await client.request<{ closed: boolean; removed: boolean; pruned: boolean; branchDeleted: boolean }>('server.removeRow', {
      row,
      ...(ctx.flags.force === true ? { force: true } : {}),
      ...(ctx.flags['delete-branch'] === true ? { deleteBranch: true } : {}),
    });
    ctx.result({ row, ...r });
    ctx.print(`closed ${row}; ${r.pruned ? 'its worktree was gone already (pruned)' : 'worktree removed'}${r.branchDeleted ? ', branch deleted' : ', branch kept'}`);
    return 0;
  },
};
