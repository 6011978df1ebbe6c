// Who may do what with a reservation (issue #35). Identity is the connection's (never a payload's):
// a holder requests, releases and cancels its own tickets; the operator, or the handle a resource's
// policy names as its controller, grants, refuses, forces a release and changes the policy. A
// controller acts only from a row's connection (proven by the row's token): a tokenless client could
// otherwise take a controller's handle while it is offline and act as it.
import type { SessionRole } from '../protocol/methods.js';
import type { PolicyRecord } from '../store/resource-store.js';

export interface Actor {
  handle: string;
  role: SessionRole;
}

/** True when `actor` controls every one of `policies` (the operator controls them all). */
export function controlsAll(actor: Actor, policies: readonly PolicyRecord[]): boolean {
  if (actor.role === 'operator') return true;
  return actor.role === 'row' && policies.length > 0 && policies.every((p) => p.controller === actor.handle);
}

/** The sentence for an actor who may not control these resources. */
export function notController(actor: Actor, policies: readonly PolicyRecord[], what: string): string {
  const named = policies.map((p) => `${p.name} (${p.controller === null ? 'operator only' : `controller ${p.controller}`})`).join(', ');
  return `${actor.handle} may not ${what}: only the operator or the controller of ${named} may.`;
}
