// What the workspace server answers through the hub (operator only): the rows it runs, new rows,
// closing one, the mail parked for review, usage, and stopping; and why a row is in its state
// (`rows.explain`). A headless hub has no server: each method then answers NO_SERVER (NOT_FOUND for
// an explanation). The hub only routes these; the server (src/server/server-control.ts) acts. The
// server takes its seat (ServerSeat) through the operator port and is its only writer.
import { swbError, type SwbErrorValue } from '../protocol/error-codes.js';
import type { WebParams } from '../protocol/method-params.js';
import type { NewRowParams, RowExplainResult, RowListing } from '../protocol/methods.js';
import type { SkippedFile } from '../worktree/skipped-files.js';
import type { Review, WorktreeInfo } from '../worktree/worktree.js';
import type { RowUsageView } from '../usage/row-usage-view.js';
import type { UsageGrouping, UsageReport } from '../usage/usage-report.js';

/** A row as `swb ls --json` lists it: with its usage when its agent's files are followed (null: not tracked). */
export type ListedRow = RowListing & { usage?: RowUsageView | null };

export type ControlResult<T> = { ok: T } | { error: SwbErrorValue };

export interface ServerControl {
  rows(): ControlResult<{ rows: ListedRow[]; clients: number; pid: number; version: string }>;
  /** `swb usage`: the workspace's usage history (one row's, for a row asking), grouped and priced. */
  usage(q: { by: UsageGrouping; since?: string; row?: string }): ControlResult<UsageReport>;
  newRow(params: NewRowParams): Promise<ControlResult<{ name: string; worktree?: WorktreeInfo; copied?: string[]; skipped?: SkippedFile[] }>>;
  review(row: string): Promise<ControlResult<Review & { worktree: WorktreeInfo }>>;
  merge(row: string, opts: { mode: 'merge' | 'rebase' | 'squash'; into?: string; commitAll?: boolean }): Promise<ControlResult<{ into: string; commit: string; fastForward: boolean; committedFirst: boolean }>>;
  removeRow(row: string, opts: { force: boolean; deleteBranch: boolean }): Promise<ControlResult<{ closed: boolean; removed: boolean; pruned: boolean; branchDeleted: boolean }>>;
  killRow(name: string): ControlResult<{ closed: boolean }>;
  interrupt(name: string): Promise<ControlResult<{ key: string; sent: boolean; before: string; after: string; leftBusy: boolean }>>;
  parked(row: string, action: 'redeliver' | 'discard'): Promise<ControlResult<{ messages: number }>>;
  stop(force: boolean): ControlResult<{ stopping: boolean; rows: number; pid: number }>;
  /** `swb web`: serves the browser client and mints a fresh token for its URL (the one place it is plain). */
  web(params: WebParams): Promise<ControlResult<WebAnswer>>;
}

/** What `swb web` prints: the page's URL with a fresh token (none after a bare --rotate), and where it listens. */
export interface WebAnswer {
  url: string;
  /** The address carrying the fresh token (printed once), or null when only rotating. */
  loginUrl: string | null;
  readOnly: boolean;
  bind: string;
  port: number;
  tls: boolean;
  rotated: boolean;
  /** Said on stderr: e.g. a non-loopback listener without TLS. */
  warnings: string[];
}

export function noServer(workspaceId: string): { error: SwbErrorValue } {
  return {
    error: swbError(
      'NO_SERVER',
      `No swb server runs for workspace ${workspaceId} (only its hub, started by a mail command); start one with swb.`,
    ),
  };
}

/** Answers `rows.explain` (the server that embeds the hub registers one; a headless hub has none). */
export type ExplainProvider = (row: string, verbose: boolean) => { ok: RowExplainResult } | { error: SwbErrorValue };

/**
 * The embedding workspace server's seat in its hub: who answers `server.*` and `rows.explain`, and
 * whether the server is on its way out. `embedded` is fixed at the hub's start; the rest is set by
 * the server alone, through the operator port; the method handlers only read it.
 */
export class ServerSeat {
  private control: ServerControl | 'stopping' | null = null;
  private explainer: ExplainProvider | null = null;

  constructor(
    readonly workspaceId: string,
    /** Embedded in a server that runs rows: the hub does not stop on a `hub.shutdown` request. */
    readonly embedded: boolean,
  ) {}

  /** The server serves through `control`; 'stopping' once it ends its rows (it answers nothing more). */
  setControl(control: ServerControl | 'stopping'): void {
    this.control = control;
  }

  /** The server is stopping (ending its rows): a successor asking it to step down may wait. */
  get stopping(): boolean {
    return this.control === 'stopping';
  }

  /** `call` with the server's control, or NO_SERVER when no server serves. */
  ask<T>(call: (control: ServerControl) => T): T | { error: SwbErrorValue } {
    const control = this.control;
    return control === null || control === 'stopping' ? noServer(this.workspaceId) : call(control);
  }

  setExplainProvider(provider: ExplainProvider | null): void {
    this.explainer = provider;
  }

  /** Why a row is in its state, from the server running it (NOT_FOUND from a headless hub). */
  explain(row: string, verbose: boolean): { ok: RowExplainResult } | { error: SwbErrorValue } {
    if (!this.explainer) {
      return {
        error: swbError(
          'NOT_FOUND',
          `This hub runs headless (no swb dashboard), so it watches no rows and cannot explain ${row}; run swb explain against the workspace whose dashboard runs ${row}.`,
        ),
      };
    }
    return this.explainer(row, verbose);
  }
}
