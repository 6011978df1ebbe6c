// What one row holds and what it waits for, read off the hub's reservation status (issue #35): the
// row header's ⚿ and ⧗ marks. A pure function of the status list, so the header follows the hub's
// truth and never keeps a tally of its own events.
import type { ResourceStatus } from '../protocol/resource-name.js';

export interface RowReservations {
  /** Resources the row holds (granted, held), an uncertain one marked with a trailing `?`; sorted. */
  held: readonly string[];
  /** Resources the row's queued tickets wait for; sorted. */
  waiting: readonly string[];
}

export const NO_RESERVATIONS: RowReservations = { held: [], waiting: [] };

export function rowReservations(statuses: readonly ResourceStatus[], row: string): RowReservations {
  const held = new Set<string>();
  const waiting = new Set<string>();
  for (const s of statuses) {
    for (const t of s.holders) if (t.holder === row) held.add(t.state === 'uncertain' ? `${s.name}?` : s.name);
    for (const t of s.queue) if (t.holder === row) waiting.add(s.name);
  }
  return { held: [...held].sort(), waiting: [...waiting].sort() };
}

export function sameReservations(a: RowReservations | null | undefined, b: RowReservations | null | undefined): boolean {
  const x = a ?? NO_RESERVATIONS;
  const y = b ?? NO_RESERVATIONS;
  return x.held.join('\n') === y.held.join('\n') && x.waiting.join('\n') === y.waiting.join('\n');
}
