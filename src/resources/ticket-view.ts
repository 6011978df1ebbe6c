// A ticket as clients see it: its record, plus for a queued ticket who holds what it waits for and
// since when (what `swb run` prints while it waits) and how many tickets are queued before it.
import type { TicketView } from '../protocol/resource-name.js';
import type { TicketRecord } from '../store/resource-store.js';

/** States that count against a resource's capacity: an uncertain holder still counts until forced free. */
export const HOLDING_STATES: ReadonlySet<string> = new Set(['granted', 'held', 'uncertain']);

export function ticketView(t: TicketRecord, open: readonly TicketRecord[]): TicketView {
  const view: TicketView = {
    ticket: t.id,
    holder: t.holder,
    state: t.state,
    resources: t.claims.map((c) => c.resource),
    reason: t.reason,
    requestedAt: t.requestedAt,
    deadline: t.deadline,
    grantedAt: t.grantedAt,
    grantedBy: t.grantedBy,
    endedAt: t.endedAt,
    why: t.why,
    launch: t.launch && { pid: t.launch.pid, pgid: t.launch.pgid, startTime: t.launch.startTime, command: t.launch.command, launchedAt: t.launch.launchedAt },
  };
  if (t.state !== 'queued') return view;
  const blockers: NonNullable<TicketView['blockers']> = [];
  const ahead = new Set<number>();
  for (const claim of t.claims) {
    for (const other of open) {
      if (other.id === t.id) continue;
      const theirs = other.claims.find((c) => c.resource === claim.resource);
      if (!theirs) continue;
      if (HOLDING_STATES.has(other.state)) blockers.push({ resource: claim.resource, ticket: other.id, holder: other.holder, state: other.state, since: other.grantedAt });
      else if (other.state === 'queued' && theirs.position < claim.position) ahead.add(other.id);
    }
  }
  view.blockers = blockers;
  view.ahead = ahead.size;
  return view;
}
