// What one JSON-RPC method's handler is: its params schema (parsed before it runs, so a handler only
// sees typed values), who may call it, and what it does with the hub's core (hub-core.ts), the
// connection and the caller's identity (always conn.identity, never the payload). Its own file so
// that every table of handlers (rpc-handlers.ts, resource-handlers.ts) builds on it without importing
// the table that dispatches.
import type * as z from 'zod';
import type { SwbErrorValue } from '../protocol/error-codes.js';
import type { Continuation } from './continuation.js';
import type { HubConnection } from './hub-connection.js';
import type { HubCore } from './hub-core.js';
import type { SessionIdentity } from './session-registry.js';

export type HandlerResult = { ok: unknown } | { error: SwbErrorValue };

interface HandlerBase<P> {
  /** The params' schema, built at the method's first call (protocol/lazy-schema.ts says why). */
  params: () => z.ZodType<P>;
  /** A hand check of the common case, for a hot method: the params when the schema would take them as they are, else undefined. */
  plainParams?: (raw: unknown) => P | undefined;
  /** Methods that need no hello first. */
  anonymous?: boolean;
  operatorOnly?: boolean;
}

/**
 * A handler returns its result (or a promise of it); a hot method's (mail.send) instead hands it to
 * the continuation it is given (continuation.ts), at once or from the commit's loop, so its answer
 * costs no promise (issue #33).
 */
export type Handler<P> = HandlerBase<P> &
  (
    | { run(core: HubCore, conn: HubConnection, params: P, who: SessionIdentity): HandlerResult | Promise<HandlerResult>; runThen?: never }
    | { runThen(core: HubCore, conn: HubConnection, params: P, who: SessionIdentity, then: Continuation<HandlerResult>): void; run?: never }
  );

/** One entry of a handler table: typed where it is written, stored as taking unknown params. */
export function handler<P>(h: Handler<P>): Handler<unknown> {
  return h as Handler<unknown>;
}
