// What a client asks of the server beyond mail: new rows (planned and started, in a worktree or
// not), restart, close, reopen, review, removing a worktree, wake policy, interrupt, a row's
// notification mute, and where its copies go. One port for every kind of client (the terminal
// dashboard now, a browser later), so they cannot drift apart; the server builds it once
// (src/server/server-desk.ts). Mail goes through the OperatorPort, not here.
import type { Row, RowSpec } from '../rows/row.js';
import type { RowFleet } from '../supervisor/row-fleet.js';
import type { Event } from '../util/event.js';
import type { SkippedFile } from '../worktree/skipped-files.js';
import type { RowView, WakePolicy } from './app-state.js';
import type { NewRowRequest } from './intents.js';
import type { PasteBufferPort } from './paste-controller.js';
import type { RowUsageView } from '../usage/row-usage-view.js';

export type RowSize = { cols: number; rows: number };

/** How a new row's start went: at once, a problem, or a worktree git is still making. */
export type NewRowStart =
  | { problem: string }
  | { started: string }
  | { name: string; worktree: Promise<{ path: string; branch: string; skipped?: SkippedFile[] } | { problem: string }> };

/** Worktree rows' git state (the server's board), for their headers. */
export interface WorktreeStatus {
  statusOf(name: string): RowView['git'];
  onStatus: Event<{ row: string; status: NonNullable<RowView['git']> }>;
}

/** Rows whose notifications are silenced (the server's notifier): every client shows and changes the same set. */
export interface RowMutes {
  muted(name: string): boolean;
  setMuted(name: string, muted: boolean): void;
  onMuted: Event<{ row: string; muted: boolean }>;
}

/** Agent rows' usage, cost and budget marks (the server's usage board), for their headers and the `$` overlay. */
export interface RowUsageStatus {
  usageOf(name: string): RowUsageView | null;
  /** Once per committed change of a row's usage or budget mark. */
  onUsage: Event<{ row: string; usage: RowUsageView }>;
  /** Budget warnings and actions, for the notes. */
  onNote: Event<{ kind: 'info' | 'error'; text: string; row: string | null }>;
}

export interface ClientDesk {
  /**
   * The server's rows, shared by every client: a client mirrors them, draws them, types into
   * them and takes part in their sizes (the fleet arbitrates), and changes them through the
   * methods below.
   */
  readonly fleet: RowFleet;
  readonly worktrees?: WorktreeStatus;
  /** Per-row notification mutes (the dashboard's mute key); absent: this server sends no notifications. */
  readonly mutes?: RowMutes;
  readonly usage?: RowUsageStatus;
  /** The server's paste buffer: y in the history view fills it, p pastes it into the focused row. */
  readonly pasteBuffer?: PasteBufferPort;
  /** Where the audit log is written (shown in the audit view). */
  readonly auditLogPath?: string;
  /** Where copies go that the client's terminal does not take (a file each). */
  readonly copiesDir?: string;
  /** The agent profiles a new row may name (the "new row" dialog). */
  readonly profileIds: readonly string[];
  /** Rows a client names as it opens, started together; the sentence for each that did not start. */
  startRows(rows: ReadonlyArray<{ spec: RowSpec; wake?: WakePolicy }>, sizeOf: (name: string) => RowSize): string[];
  /** The "new row" dialog's fields, planned and started (absent: this server starts rows only from swb new). */
  newRow?(request: NewRowRequest, size: RowSize): NewRowStart;
  /** Starts the row again (throws what stopped it); whether its agent resumes its conversation. */
  restart(name: string): { resumed: boolean };
  /** Ends a row; its spec is kept so reopen (from any client) can start it again. */
  close(name: string): boolean;
  reopen(name: string, size: RowSize): Row | null;
  /** A worktree row's changes, ready to show (the server reads them with git). */
  review?(name: string): Promise<{ title: string; lines: string[] } | { problem: string }>;
  /** Removes a worktree row's worktree and closes the row, or says what would be lost. */
  removeWorktree?(name: string): Promise<{ ok: true } | { problem: string }>;
  setWakePolicy(name: string, policy: WakePolicy): boolean;
}

/** A desk over a fleet alone (no worktrees, no dialog, no copies): tests and minimal servers. */
export function fleetDesk(fleet: RowFleet, more: Partial<Omit<ClientDesk, 'fleet'>> = {}): ClientDesk {
  return {
    fleet,
    profileIds: [],
    startRows: (rows, sizeOf) => {
      const problems: string[] = [];
      for (const { spec, wake } of rows) {
        try {
          fleet.add(spec, sizeOf(spec.name), wake ? { wake } : {});
        } catch (err) {
          problems.push(`row ${spec.name} did not start: ${String((err as Error).message ?? err)}`);
        }
      }
      return problems;
    },
    restart: (name) => fleet.restart(name),
    close: (name) => fleet.close(name),
    reopen: (name, size) => fleet.reopen(name, size),
    setWakePolicy: (name, policy) => fleet.setPolicy(name, policy),
    ...more,
  };
}
