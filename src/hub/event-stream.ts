// `swb events` (issue #13): what happens, for scripts and other tools — mail accepted, delivered, read,
// replied, told; row state changes with the rule that decided; wakes; rows added and exited;
// reservations (issue #35: requests, grants, releases, timeouts, uncertain holders, policy epochs);
// a row's usage, cost, context fill, plan windows and budget mark after each committed change (#38). One
// subscription per connection with a filter (kinds, one row); events go out as `event` notifications
// on that connection and nothing is buffered here: a subscriber that does not read is bounded (and
// finally dropped, with a last error saying why) by its connection's own backlog limits, and never
// slows the hub or anyone else.
import { notification } from '../protocol/rpc.js';
import type { HubConnection } from './hub-connection.js';

export const EVENT_KINDS = ['mail', 'receipt', 'state', 'wake', 'row', 'resource', 'usage'] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

export interface SwbEvent {
  kind: EventKind;
  at: number;
  /** The row or recipient it is about (filters match on it, and on the sender for mail). */
  row?: string;
  [field: string]: unknown;
}

interface Subscriber {
  kinds: ReadonlySet<EventKind>;
  /** Only events about this handle (a row watching itself, or --row). */
  handle: string | null;
}

export class EventStream {
  private readonly subscribers = new Map<HubConnection, Subscriber>();

  subscribe(conn: HubConnection, kinds: readonly EventKind[], handle: string | null): void {
    this.subscribers.set(conn, { kinds: new Set(kinds.length > 0 ? kinds : EVENT_KINDS), handle });
  }

  unsubscribe(conn: HubConnection): void {
    this.subscribers.delete(conn);
  }

  get size(): number {
    return this.subscribers.size;
  }

  publish(event: SwbEvent, about: readonly string[] = event.row !== undefined ? [event.row] : []): void {
    if (this.subscribers.size === 0) return;
    const frame = notification('event', event);
    for (const [conn, sub] of this.subscribers) {
      if (!sub.kinds.has(event.kind)) continue;
      if (sub.handle !== null && !about.includes(sub.handle)) continue;
      // Past its backlog limit the connection closes itself with a final error: the subscriber is dropped.
      if (!conn.write(frame)) this.subscribers.delete(conn);
    }
  }
}
