// `swb rm ROW`: a worktree row's worktree removed (and the row closed if it runs). The server finds
// the worktree from the running row, a row closed while it runs, or git's list by the row's name;
// with no server at all, this command asks git itself, the same way (src/worktree/find-worktree.ts),
// so a worktree outlives neither `swb kill` nor `swb kill-server` as something only git can remove.
import { HANDLE_HINT, isValidHandle } from '../protocol/handle.js';
import { SwbError } from '../protocol/error-codes.js';
import { UsageError, type CommandContext, type CommandDescriptor } from './command.js';

type Removed = { closed: boolean; removed: boolean; pruned: boolean; branchDeleted: boolean };

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
    const opts = {
      ...(ctx.flags.force === true ? { force: true } : {}),
      ...(ctx.flags['delete-branch'] === true ? { deleteBranch: true } : {}),
    };
    let r: Removed;
    try {
      const client = await ctx.connect({ autoStart: false, server: true });
      r = await client.request<Removed>('server.removeRow', { row, ...opts });
    } catch (err) {
      if (!(err instanceof SwbError) || err.code !== 'NO_SERVER') throw err;
      r = await removeWithoutServer(ctx, row, opts);
    }
    ctx.result({ row, ...r });
    const what = r.pruned ? 'its worktree was gone already (pruned)' : 'worktree removed';
    ctx.print(`${r.closed ? `closed ${row}; ` : `${row}: `}${what}${r.branchDeleted ? ', branch deleted' : ', branch kept'}`);
    return 0;
  },
};

/** No server runs: git's own list, by the row's name, in the workspace's repository. */
async function removeWithoutServer(ctx: CommandContext, row: string, opts: { force?: boolean; deleteBranch?: boolean }): Promise<Removed> {
  const { findRowWorktree } = await import('../worktree/find-worktree.js');
  const { removeWorktree } = await import('../worktree/worktree.js');
  const found = await findRowWorktree(ctx.paths.workspace, row);
  if ('error' in found) throw new SwbError(found.error.code, `${found.error.message} (no swb server runs here).`);
  const r = await removeWorktree(found.ok, opts);
  if ('error' in r) throw new SwbError(r.error.code, `${r.error.message}.`);
  return { closed: false, ...r.ok };
}
