// What the workspace server answers through the hub (operator only): the rows it runs, new rows,
// closing one, the mail parked for review, and stopping. A headless hub has no server: each method
// then answers NO_SERVER. The hub only routes these; the server (src/server/server-control.ts) acts.
import { swbError, type SwbErrorValue } from '../protocol/error-codes.js';
import type { NewRowParams, RowListing } from '../protocol/methods.js';
import type { SkippedFile } from '../worktree/skipped-files.js';
import type { Review, WorktreeInfo } from '../worktree/worktree.js';

export type ControlResult<T> = { ok: T } | { error: SwbErrorValue };

export interface ServerControl {
  rows(): ControlResult<{ rows: RowListing[]; clients: number; pid: number; version: string }>;
  newRow(params: NewRowParams): Promise<ControlResult<{ name: string; worktree?: WorktreeInfo; copied?: string[]; skipped?: SkippedFile[] }>>;
  review(row: string): Promise<ControlResult<Review & { worktree: WorktreeInfo }>>;
  merge(row: string, opts: { mode: 'merge' | 'rebase' | 'squash'; into?: string; commitAll?: boolean }): Promise<ControlResult<{ into: string; commit: string; fastForward: boolean; committedFirst: boolean }>>;
  removeRow(row: string, opts: { force: boolean; deleteBranch: boolean }): Promise<ControlResult<{ closed: boolean; removed: boolean; pruned: boolean; branchDeleted: boolean }>>;
  killRow(name: string): ControlResult<{ closed: boolean }>;
  interrupt(name: string): Promise<ControlResult<{ key: string; sent: boolean; before: string; after: string; leftBusy: boolean }>>;
  parked(row: string, action: 'redeliver' | 'discard'): Promise<ControlResult<{ messages: number }>>;
  stop(force: boolean): ControlResult<{ stopping: boolean; rows: number; pid: number }>;
}

export function noServer(workspaceId: string): { error: SwbErrorValue } {
  return {
    error: swbError(
      'NO_SERVER',
      `No swb server runs for workspace ${workspaceId} (only its hub, started by a mail command); start one with swb.`,
    ),
  };
}
