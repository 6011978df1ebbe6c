// The fleet at a glance, for the status line: how many rows are busy, idle, waiting for the operator
// (a question or a dialog), exited, and how much mail the rows have not read. A plain selector over
// the rows the store holds, so every client counts the same rows the same way.
import type { RowView } from './app-state.js';

export interface FleetSummary {
  busy: number;
  idle: number;
  waiting: number;
  exited: number;
  /** Running rows whose state is not known (no agent profile, or not decided yet). */
  other: number;
  /** Unread mail across the rows (the ✉ counts of their headers). */
  unread: number;
}

export function fleetSummary(rows: readonly RowView[]): FleetSummary {
  const s: FleetSummary = { busy: 0, idle: 0, waiting: 0, exited: 0, other: 0, unread: 0 };
  for (const r of rows) {
    s.unread += r.unread;
    if (!r.running || r.agentState === 'exited') s.exited++;
    else if (r.agentState === 'busy') s.busy++;
    else if (r.agentState === 'idle') s.idle++;
    else if (r.agentState === 'waiting') s.waiting++;
    else s.other++;
  }
  return s;
}

/** "2 busy · 1 idle · 1 waiting for you · 1 exited · ✉ 3 unread": the counts that are not zero. */
export function formatFleetSummary(s: FleetSummary): string {
  const parts = [
    s.busy > 0 ? `${s.busy} busy` : '',
    s.idle > 0 ? `${s.idle} idle` : '',
    s.waiting > 0 ? `${s.waiting} waiting for you` : '',
    s.other > 0 ? `${s.other} running` : '',
    s.exited > 0 ? `${s.exited} exited` : '',
    s.unread > 0 ? `✉ ${s.unread} unread` : '',
  ];
  return parts.filter(Boolean).join(' · ');
}
