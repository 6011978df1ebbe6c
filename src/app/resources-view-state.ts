// The resources overlay's state (issue #35): the hub's reservation status as last read, which line
// the operator has selected, and the question it is answering (a forced release shows the evidence
// first; a controller is picked from the rows or the operator). Plain data and pure steps; the
// ResourceBoard fills it from the hub and carries out what the operator chose.
import type { ResourceStatus, TicketView } from '../protocol/resource-name.js';

/** One selectable line of the overlay: a resource's policy line, a holder or a queued ticket. */
export type ResourceEntry =
  | { kind: 'resource'; resource: string }
  | { kind: 'holder' | 'queued'; resource: string; ticket: TicketView; place: number };

export interface ResourcesViewState {
  statuses: readonly ResourceStatus[];
  selected: number;
  /** The forced release the operator is asked to confirm (its evidence is shown). */
  confirmRelease: TicketView | null;
  /** The resource whose controller is being picked. */
  pickController: string | null;
  /** The last answer of the hub that was not a success (already sanitized), or what was done. */
  message: { kind: 'info' | 'error'; text: string } | null;
}

export function initialResourcesView(): ResourcesViewState {
  return { statuses: [], selected: 0, confirmRelease: null, pickController: null, message: null };
}

/** The overlay's lines in order: each resource, then its holders, then its queue in order. */
export function resourceEntries(statuses: readonly ResourceStatus[]): ResourceEntry[] {
  const out: ResourceEntry[] = [];
  for (const s of statuses) {
    out.push({ kind: 'resource', resource: s.name });
    s.holders.forEach((ticket, i) => out.push({ kind: 'holder', resource: s.name, ticket, place: i }));
    s.queue.forEach((ticket, i) => out.push({ kind: 'queued', resource: s.name, ticket, place: i + 1 }));
  }
  return out;
}

export function selectedEntry(view: ResourcesViewState): ResourceEntry | undefined {
  const all = resourceEntries(view.statuses);
  return all[Math.min(view.selected, all.length - 1)];
}

/** New statuses keep the selection on the same ticket (or resource) when it is still listed. */
export function withStatuses(view: ResourcesViewState, statuses: readonly ResourceStatus[]): ResourcesViewState {
  const before = selectedEntry(view);
  const after = resourceEntries(statuses);
  let selected = Math.min(view.selected, Math.max(0, after.length - 1));
  if (before) {
    const same = after.findIndex((e) =>
      before.kind === 'resource' ? e.kind === 'resource' && e.resource === before.resource : e.kind !== 'resource' && e.resource === before.resource && e.ticket.ticket === before.ticket.ticket,
    );
    if (same >= 0) selected = same;
  }
  return { ...view, statuses, selected };
}

export function moveSelection(view: ResourcesViewState, step: number): ResourcesViewState {
  const n = resourceEntries(view.statuses).length;
  if (n === 0) return view;
  return { ...view, selected: Math.max(0, Math.min(n - 1, view.selected + step)) };
}
