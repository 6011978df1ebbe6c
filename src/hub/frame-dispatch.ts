// One decoded frame of a connection, to the dialect it speaks: a JSON-RPC request to its method's
// handler (rpc-handlers.ts), with its answer written back and a page answer's size reserved while it
// runs; an Intercom envelope to the dialect (intercom-dialect.ts). A connection speaks one dialect,
// set by its first frame. Nothing a client sends, and no store failure, may throw out of here.
import { swbError } from '../protocol/error-codes.js';
import type { HubLimits } from '../protocol/limits.js';
import type { DecodedFrame } from '../protocol/ndjson-decoder.js';
import { classifyLine, failure, success, type RpcId } from '../protocol/rpc.js';
import { isStoreFailure } from '../store/store-error.js';
import type { HubConnection } from './hub-connection.js';
import type { HubCore } from './hub-core.js';
import { handleIntercomEnvelope } from './intercom-dialect.js';
import type { Continuation } from './continuation.js';
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
      const answer = new RequestAnswer(core, conn, id, method, reserve);
      // What follows a hello on the wire speaks as the session it claims: wait for it.
      if (method === 'hello') conn.hold(answer.written());
      try {
        dispatchRpc(core, conn, method, params ?? {}, answer);
      } catch (err) {
        answer.fail(err);
      }
      answer.dispatched();
    }
  }
}

/**
 * One request's answer, as the continuation its handler hands the result to (continuation.ts). The
 * answer is written before the request ends: alone in flight it leaves at once, and the bookkeeping
 * of the end (the next frames, reading) comes after it (hub-connection.ts). A result the handler
 * has while it is dispatched (a refusal, a read) is answered in a later turn of the microtask queue,
 * as an async handler's always was: the frames after it are decoded first, and their answers share
 * a write. A send's comes from its commit's loop, in the turn of that commit (issue #33).
 */
class RequestAnswer implements Continuation<HandlerResult> {
  private dispatching = true;
  /** A result that came while dispatching, answered after it. */
  private early: { result: HandlerResult } | { err: unknown } | null = null;
  private ended = false;
  private onWritten: (() => void) | null = null;

  constructor(
    private readonly core: HubCore,
    private readonly conn: HubConnection,
    private readonly id: RpcId,
    private readonly method: string,
    private readonly reserve: number,
  ) {}

  /** Settles once the answer is written (the hello's hold on later frames). */
  written(): Promise<void> {
    return new Promise<void>((resolve) => (this.onWritten = resolve));
  }

  /** Dispatching returned: a result that came during it is answered in a later microtask. */
  dispatched(): void {
    this.dispatching = false;
    const early = this.early;
    if (early === null) return;
    this.early = null;
    queueMicrotask(() => ('result' in early ? this.resume(early.result) : this.fail(early.err)));
  }

  resume(result: HandlerResult): void {
    if (this.dispatching) {
      this.early ??= { result };
      return;
    }
    if (this.ended) return;
    this.conn.answer('error' in result ? failure(this.id, result.error) : success(this.id, result.ok));
    this.end();
  }

  fail(err: unknown): void {
    if (this.dispatching) {
      this.early ??= { err };
      return;
    }
    if (this.ended) return;
    const { core, method } = this;
    if (!isStoreFailure(err)) core.log(`internal error in ${method}: ${err instanceof Error ? err.stack : String(err)}`);
    this.conn.answer(failure(this.id, core.mail.failureOf(err, `The hub could not complete ${method}`)));
    this.end();
  }

  private end(): void {
    this.ended = true;
    this.conn.endRequest(this.reserve);
    this.onWritten?.();
  }
}
