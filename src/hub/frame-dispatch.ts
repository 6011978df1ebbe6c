// One decoded frame of a connection, to the dialect it speaks: a JSON-RPC request to its method's
// handler (rpc-handlers.ts), with its answer written back and a page answer's size reserved while it
// runs; an Intercom envelope to the dialect (intercom-dialect.ts). A connection speaks one dialect,
// set by its first frame. Nothing a client sends, and no store failure, may throw out of here.
import { swbError } from '../protocol/error-codes.js';
import type { HubLimits } from '../protocol/limits.js';
import type { DecodedFrame } from '../protocol/ndjson-decoder.js';
import { classifyLine, failure, success } from '../protocol/rpc.js';
import { isStoreFailure } from '../store/store-error.js';
import type { HubConnection } from './hub-connection.js';
import type { HubCore } from './hub-core.js';
import { handleIntercomEnvelope } from './intercom-dialect.js';
import type { HandlerResult } from './rpc-handler.js';
import { dispatchRpc } from './rpc-handlers.js';

/**
 * Methods whose answer is a page (up to maxReplyBytes) reserve that much while in flight; other
 * answers are a few KB and reserve nothing (at most MAX_IN_FLIGHT of them per connection).
 */
const PAGED_METHODS: ReadonlySet<string> = new Set(['mail.list', 'mail.wait', 'mail.history', 'peers.list', 'server.rows', 'server.review']);

function replyReservation(method: string, limits: HubLimits): number {
  return PAGED_METHODS.has(method) ? limits.maxReplyBytes : 0;
}

export function dispatchFrame(core: HubCore, conn: HubConnection, frame: DecodedFrame): void {
  try {
    handleFrame(core, conn, frame);
  } catch (err) {
    core.log(`internal error handling a frame: ${err instanceof Error ? err.stack : String(err)}`);
    conn.writeError(null, core.mail.failureOf(err, 'The hub failed to handle a frame'));
  }
}

function handleFrame(core: HubCore, conn: HubConnection, frame: DecodedFrame): void {
  if (frame.kind === 'error') {
    conn.writeError(null, frame.error);
    return;
  }
  const msg = classifyLine(frame.text);
  if (msg.kind === 'intercom') {
    if (conn.dialect === 'rpc') {
      conn.writeError(null, swbError('BAD_FRAME', 'This connection speaks JSON-RPC; an Intercom envelope is not allowed here.'));
      return;
    }
    conn.dialect = 'intercom';
    const work = handleIntercomEnvelope(core, conn, msg.envelope);
    if (work) conn.hold(work);
    return;
  }
  if (conn.dialect === 'intercom') {
    conn.write({ type: 'error', payload: { code: 'BAD_FRAME', message: 'This connection speaks the Intercom dialect.' } });
    return;
  }
  conn.dialect = 'rpc';
  switch (msg.kind) {
    case 'invalid':
      conn.writeError(msg.id, msg.error);
      return;
    case 'notification':
    case 'response':
      return; // clients send no notifications we act on; stray responses are ignored
    case 'request': {
      const { id, method, params } = msg.message;
      const reserve = replyReservation(method, core.limits);
      conn.beginRequest(reserve);
      let answer: HandlerResult | Promise<HandlerResult>;
      try {
        answer = dispatchRpc(core, conn, method, params ?? {});
      } catch (err) {
        answer = Promise.reject(err);
      }
      // Answered in a later turn of the microtask queue either way (as an async handler always was).
      // The answer is written before the request ends: alone in flight it leaves at once, and the
      // bookkeeping of the end (the next frames, reading) comes after it (hub-connection.ts).
      const work = (answer instanceof Promise ? answer : Promise.resolve(answer)).then(
        (result) => {
          conn.answer('error' in result ? failure(id, result.error) : success(id, result.ok));
          conn.endRequest(reserve);
        },
        (err: unknown) => {
          if (!isStoreFailure(err)) core.log(`internal error in ${method}: ${err instanceof Error ? err.stack : String(err)}`);
          conn.answer(failure(id, core.mail.failureOf(err, `The hub could not complete ${method}`)));
          conn.endRequest(reserve);
        },
      );
      // What follows a hello on the wire speaks as the session it claims: wait for it.
      if (method === 'hello') conn.hold(work);
    }
  }
}
