// One handler per JSON-RPC method. Params are parsed with the method's schema first, so
// handlers only ever see typed values; the sender is always conn.identity, never the payload.
import { hookPayloadFields } from '../agents/hook-payload-fields.js';
import { swbError } from '../protocol/error-codes.js';
import { PROTOCOL_VERSION } from '../protocol/limits.js';
import {
  emptyParams,
  eventsParams,
  explainParams,
  grantParams,
  hookEventParams,
  hookStopParams,
  helloParams,
  historyParams,
  killRowParams,
  usageParams,
  listParams,
  mergeParams,
  removeRowParams,
  reviewParams,
  newRowParams,
  parkedParams,
  stopServerParams,
  webParams,
  readParams,
  receiptParams,
  peersParams,
  registerRowParams,
  releaseParams,
  sendParams,
  plainSendParams,
  waitParams,
  subscribeParams,
  wokenParams,
} from '../protocol/method-params.js';
import type { HelloResult } from '../protocol/methods.js';
import { check } from '../util/schema.js';
import { EVENT_KINDS } from './event-stream.js';
import type { HubConnection } from './hub-connection.js';
import type { HubCore } from './hub-core.js';
import { RESOURCE_HANDLERS } from './resource-handlers.js';
import type { Continuation } from './continuation.js';
import { handler, type Handler, type HandlerResult } from './rpc-handler.js';

// A Map, not an object literal: a method named `constructor` or `__proto__` must find nothing.
const HANDLERS = new Map<string, Handler<unknown>>([
  ...Object.entries(RESOURCE_HANDLERS),
  ...Object.entries({
  hello: handler({
    params: helloParams,
    anonymous: true,
    async run(core, conn, p) {
      if (p.version > PROTOCOL_VERSION) {
        return { error: swbError('BAD_REQUEST', `This hub speaks protocol ${PROTOCOL_VERSION}; the client asked for ${p.version}.`) };
      }
      const err = await core.sessions.claim(conn, p.session, p.token);
      if (err) return { error: err };
      if (p.subscribe) conn.subscription = 'mine';
      const who = conn.identity!;
      // No peer list here: a CLI command needs none, and it would grow with every handle ever seen
      // (peers.list pages it).
      const result: HelloResult = {
        session: who.handle,
        role: who.role,
        lastSeq: core.mail.reads.lastSeq(who.handle),
        limits: core.limits,
        protocolVersion: PROTOCOL_VERSION,
      };
      return { ok: result };
    },
  }),

  'mail.send': handler({
    params: sendParams,
    plainParams: plainSendParams,
    runThen: (core, _conn, p, who, then) => core.sends.sendThen(who.handle, p, then),
  }),

  'mail.list': handler({
    params: listParams,
    async run(core, _conn, p, who) {
      // Paged to fit one answer frame: what did not fit stays unmarked, `more` says to ask again.
      const { items, more } = await core.mail.list(who.handle, { ...p, maxBytes: replyBudget(core) });
      return { ok: { messages: items, lastSeq: core.mail.reads.lastSeq(who.handle), more } };
    },
  }),

  'mail.read': handler({
    params: readParams,
    async run(core, _conn, p, who) {
      const { updated, notFound } = await core.mail.markRead(who.handle, p.ids);
      if (notFound.length > 0 && notFound.length === p.ids.length) {
        return { error: swbError('NOT_FOUND', `No message ${notFound.join(', ')} was sent to ${who.handle}.`, { ids: notFound }) };
      }
      return { ok: { updated, notFound } };
    },
  }),

  'mail.wait': handler({
    params: waitParams,
    async run(core, conn, p, who) {
      const timeoutMs = Math.min(p.timeoutMs, core.limits.maxWaitMs);
      const pending = () =>
        core.mail.list(who.handle, {
          unreadOnly: p.after === undefined,
          after: p.after ?? 0,
          limit: 100,
          maxBytes: replyBudget(core),
          ...(p.peek ? { peek: true } : {}),
        });
      let found = await pending();
      if (found.items.length === 0 && timeoutMs > 0) {
        await core.waiters.wait(who.handle, conn, timeoutMs, () => core.mail.reads.unreadCount(who.handle) > 0 || p.after !== undefined);
        found = await pending();
      }
      return { ok: { messages: found.items, timedOut: found.items.length === 0, more: found.more } };
    },
  }),

  'mail.subscribe': handler({
    params: subscribeParams,
    run(_core, conn, p, who) {
      const scope = p.scope ?? 'mine';
      if (scope === 'all' && who.role !== 'operator') {
        return { error: swbError('UNAUTHENTICATED', 'Only the operator may watch all mail.') };
      }
      conn.subscription = scope;
      return { ok: { scope } };
    },
  }),

  'mail.history': handler({
    params: historyParams,
    operatorOnly: true,
    async run(core, _conn, p) {
      const page = await core.mail.history({ ...p, maxBytes: replyBudget(core) });
      return { ok: { messages: page.items, more: page.more } };
    },
  }),

  'mail.woken': handler({
    params: wokenParams,
    operatorOnly: true,
    async run(core, _conn, p) {
      await core.mail.recordWake(p.recipient, p.ids);
      return { ok: { recorded: p.ids.length } };
    },
  }),

  'receipt.get': handler({
    params: receiptParams,
    async run(core, _conn, p, who) {
      const r = await core.mail.receipts(p.id);
      const visible = r && (who.role === 'operator' || r.from === who.handle || r.recipients.some((x) => x.to === who.handle));
      if (!r || !visible) return { error: swbError('NOT_FOUND', `No message ${p.id} that ${who.handle} sent or received.`) };
      return { ok: r };
    },
  }),

  'peers.list': handler({
    params: peersParams,
    run: (core, _conn, p) => ({ ok: core.sessions.peersPage(p) }),
  }),

  'rows.explain': handler({
    params: explainParams,
    run(core, _conn, p, who) {
      // The evidence is screen text: the operator may read any row's, a row only its own.
      if (who.role !== 'operator' && !(who.role === 'row' && who.handle === p.row)) {
        return { error: swbError('UNAUTHENTICATED', `Only the operator or the row ${p.row} itself may ask why ${p.row} is in its state.`) };
      }
      return core.server.explain(p.row, p.verbose ?? false);
    },
  }),

  'session.registerRow': handler({
    params: registerRowParams,
    operatorOnly: true,
    run: (core, _conn, p) => core.sessions.registerRowDurably(p.handle),
  }),

  'budget.grant': handler({
    params: grantParams,
    operatorOnly: true,
    run: (core, _conn, p) => core.mail.grantBudget(p.a, p.b),
  }),

  'budget.held': handler({
    params: emptyParams,
    run: (core) => ({ ok: { pairs: core.mail.heldPairs(), budget: core.limits.automaticReplies } }),
  }),

  'federation.status': handler({
    params: emptyParams,
    run: async (core) => ({ ok: { link: await core.federationStatus() } }),
  }),

  'session.release': handler({
    params: releaseParams,
    operatorOnly: true,
    run: (core, _conn, p) => core.sessions.releaseRow(p.handle),
  }),

  'events.subscribe': handler({
    params: eventsParams,
    run(core, conn, p, who) {
      // The operator may watch everything (or one row); a row only what concerns it.
      if (who.role === 'row') {
        if (p.row !== undefined && p.row !== who.handle) return { error: swbError('UNAUTHENTICATED', `A row sees its own events only, not ${p.row}'s.`) };
      } else if (who.role !== 'operator') {
        return { error: swbError('UNAUTHENTICATED', 'events are for the operator, or a row for its own.') };
      }
      const handle = who.role === 'row' ? who.handle : (p.row ?? null);
      core.events.subscribe(conn, p.kinds ?? [], handle);
      return { ok: { subscribed: true, kinds: p.kinds ?? EVENT_KINDS, row: handle } };
    },
  }),

  'hook.stop': handler({
    params: hookStopParams,
    async run(core, _conn, p, who) {
      // A row's own end-of-turn hook: only a row has a turn to end.
      if (who.role !== 'row') return { error: swbError('UNAUTHENTICATED', 'hook.stop is for a row (its agent\'s end-of-turn hook).') };
      try {
        return { ok: await core.hooks.stop(who.handle, p.startedAt) };
      } catch (err) {
        return { error: core.mail.storeFailure(err, 'The hook could not check the mail') };
      }
    },
  }),

  'hook.event': handler({
    params: hookEventParams,
    async run(core, _conn, p, who) {
      // The row's agent speaks for itself only: the row is the connection's, never the payload's.
      if (who.role !== 'row') return { error: swbError('UNAUTHENTICATED', "hook.event is for a row (its agent's own hooks).") };
      // The native hook client sends the payload's string fields as they were: picked here, where the node hook picks them itself.
      const { payload, ...report } = p;
      core.hooks.report(who.handle, payload === undefined ? report : { ...hookPayloadFields(payload), ...report });
      return { ok: { reported: true } };
    },
  }),

  'server.rows': handler({
    params: emptyParams,
    operatorOnly: true,
    run: (core) => core.server.ask((c) => c.rows()),
  }),

  'usage.report': handler({
    params: usageParams,
    run(core, _conn, p, who) {
      // The operator sees every row; a row (an orchestrating agent) its own usage only.
      if (who.role === 'row' && p.row !== undefined && p.row !== who.handle) return { error: swbError('UNAUTHENTICATED', `A row sees its own usage only, not ${p.row}'s.`) };
      if (who.role !== 'row' && who.role !== 'operator') return { error: swbError('UNAUTHENTICATED', 'usage is for the operator, or a row for its own.') };
      const row = who.role === 'row' ? who.handle : p.row;
      return core.server.ask((c) => c.usage({ by: p.by ?? 'row', ...(p.since !== undefined ? { since: p.since } : {}), ...(row !== undefined ? { row } : {}) }));
    },
  }),

  'server.newRow': handler({
    params: newRowParams,
    operatorOnly: true,
    run: (core, _conn, p) => core.server.ask((c) => c.newRow(p)),
  }),

  'server.review': handler({
    params: reviewParams,
    operatorOnly: true,
    run: (core, _conn, p) => core.server.ask((c) => c.review(p.row)),
  }),

  'server.merge': handler({
    params: mergeParams,
    operatorOnly: true,
    run: (core, _conn, p) =>
      core.server.ask((c) => c.merge(p.row, { mode: p.mode ?? 'merge', ...(p.into !== undefined ? { into: p.into } : {}), ...(p.commitAll ? { commitAll: true } : {}) })),
  }),

  'server.removeRow': handler({
    params: removeRowParams,
    operatorOnly: true,
    run: (core, _conn, p) => core.server.ask((c) => c.removeRow(p.row, { force: p.force ?? false, deleteBranch: p.deleteBranch ?? false })),
  }),

  'server.interrupt': handler({
    params: killRowParams,
    operatorOnly: true,
    run: (core, _conn, p) => core.server.ask((c) => c.interrupt(p.row)),
  }),

  'server.killRow': handler({
    params: killRowParams,
    operatorOnly: true,
    run: (core, _conn, p) => core.server.ask((c) => c.killRow(p.row)),
  }),

  'server.parked': handler({
    params: parkedParams,
    operatorOnly: true,
    run: (core, _conn, p) => core.server.ask((c) => c.parked(p.row, p.action)),
  }),

  'server.stop': handler({
    params: stopServerParams,
    operatorOnly: true,
    run: (core, _conn, p) => core.server.ask((c) => c.stop(p.force ?? false)),
  }),

  'server.web': handler({
    params: webParams,
    operatorOnly: true,
    run: (core, _conn, p) => core.server.ask((c) => c.web(p)),
  }),

  'hub.shutdown': handler({
    params: emptyParams,
    operatorOnly: true,
    run(core) {
      // A dashboard's hub serves its rows; stopping it would cut them off. Only headless hubs
      // step down (so a dashboard can take over a workspace a CLI command started a hub for).
      if (core.server.embedded) {
        // A server on its way out (its rows ending) is stopping anyway: the caller waits for the lock.
        if (core.server.stopping) return { ok: { stopping: true } };
        return { error: swbError('HUB_RUNNING', `The swb server runs for workspace ${core.server.workspaceId}; its hub does not stop on request (swb kill-server ends the server).`) };
      }
      setImmediate(() => void core.stop());
      // The pid lets `swb kill-server` wait until the process is gone, not only its socket.
      return { ok: { stopping: true, pid: process.pid } };
    },
  }),
  }),
]);

/** Bytes a page of messages may take in one answer, leaving room for the envelope. */
function replyBudget(core: HubCore): number {
  return Math.max(4096, core.limits.maxReplyBytes - 1024);
}

/**
 * The method's answer: a value at once when its handler answers at once, else the handler's own
 * promise, not wrapped in another (a mail accept's answer waits for its commit and nothing more).
 * Throws what a handler throws; the caller turns it into the request's typed error.
 */
/**
 * Runs `method` and hands its result to `then`: a handler's own value or promise, or the handler
 * hands it over itself (`runThen`). `then` may hear of it before this returns; what this throws
 * (nothing a client sends makes it) is the caller's to answer.
 */
export function dispatchRpc(core: HubCore, conn: HubConnection, method: string, rawParams: unknown, then: Continuation<HandlerResult>): void {
  const h = HANDLERS.get(method);
  if (!h) return then.resume({ error: swbError('UNKNOWN_METHOD', `There is no method ${JSON.stringify(method.slice(0, 64))}.`) });
  let params = h.plainParams?.(rawParams);
  if (params === undefined) {
    const parsed = check(h.params(), rawParams);
    if (!parsed.ok) return then.resume({ error: swbError('BAD_REQUEST', `Bad params for ${method}: ${parsed.error.message}.`) });
    params = parsed.value;
  }
  let who = conn.identity;
  if (h.anonymous) who ??= { handle: '', role: 'participant', tokenHolder: false };
  else if (!who) return then.resume({ error: swbError('UNAUTHENTICATED', 'Say hello first: the first request must be hello.') });
  else if (h.operatorOnly && who.role !== 'operator') return then.resume({ error: swbError('UNAUTHENTICATED', `${method} is for the operator only.`) });
  if (h.runThen) return h.runThen(core, conn, params, who, then);
  const result = h.run(core, conn, params, who);
  if (result instanceof Promise) {
    result.then(
      (r) => then.resume(r),
      (err: unknown) => then.fail(err),
    );
  } else then.resume(result);
}
