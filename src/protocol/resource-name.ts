// Resource names and the bounds of a reservation request (issue #35), shared by the hub, the CLI
// and the MCP tool. A resource is a name in the workspace: the handle rule plus `:` (`db`,
// `port:3000`, `gpu:0`). No zod here: `swb run` checks its flags with these before it connects.

export const RESOURCE_NAME_PATTERN = /^[A-Za-z0-9._:][A-Za-z0-9._:-]{0,63}$/;
export const RESOURCE_NAME_HINT = 'a resource name is 1-64 of A-Z a-z 0-9 . _ : - and may not start with -';

/** Resources one request may ask for at once (all or none). */
export const MAX_RESOURCES_PER_REQUEST = 8;
/** Characters of the reason a holder gives (shown to the operator and other agents, sanitized). */
export const MAX_REASON_CHARS = 200;
/** Tickets one holder may have open (queued, granted, held or uncertain) at once. */
export const MAX_TICKETS_PER_HOLDER = 16;
/** Largest capacity a policy may set. */
export const MAX_CAPACITY = 64;

export function isValidResourceName(value: string): boolean {
  return RESOURCE_NAME_PATTERN.test(value);
}

/** The states a ticket moves through (docs/PROTOCOL.md, "Reservations"). */
export const TICKET_STATES = ['queued', 'granted', 'held', 'released', 'cancelled', 'void', 'uncertain'] as const;
export type TicketState = (typeof TICKET_STATES)[number];

/** A ticket as the hub shows it (resource.request, resource.wait, resource.status). */
export interface TicketView {
  ticket: number;
  holder: string;
  state: TicketState;
  /** Sorted: the fixed order every request takes its resources in. */
  resources: string[];
  reason: string | null;
  requestedAt: number;
  /** Past this a queued ticket is cancelled (RESOURCE_WAIT_TIMEOUT); null waits until cancelled. */
  deadline: number | null;
  grantedAt: number | null;
  grantedBy: string | null;
  endedAt: number | null;
  /** Why it ended or became uncertain (released, cancelled, void, uncertain). */
  why: string | null;
  /** The launch ledger entry (swb run's command), when one was recorded. */
  launch: { pid: number; pgid: number; startTime: string; command: string; launchedAt: number } | null;
  /** A queued ticket: who holds what it waits for, and since when. */
  blockers?: Array<{ resource: string; ticket: number; holder: string; state: TicketState; since: number | null }>;
  /** A queued ticket: tickets queued before it on any of its resources. */
  ahead?: number;
}

export interface ResourceStatus {
  name: string;
  capacity: number;
  /** The handle that grants by hand (no automatic grants while one is set); null: the hub grants in order. */
  controller: string | null;
  /** Default wait of a request that names none, ms; null: until granted or cancelled. */
  waitMs: number | null;
  epoch: number;
  holders: TicketView[];
  queue: TicketView[];
}
