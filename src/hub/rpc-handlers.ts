// One handler per JSON-RPC method. Params are parsed with the method's schema first, so
// handlers only ever see typed values; the sender is always conn.identity, never the payload.
import { swbError } from '../protocol/error-codes.js';
import { PROTOCOL_VERSION } from '../protocol/limits.js';
import {
  emptyParams,
  eventsParams,
  explainParams,
  grantParams,
  helloParams,
  historyParams,
  killRowParams,
  listParams,
  mergeParams,
  removeRowParams,
  reviewParams,
  newRowParams,
  parkedParams,
  stopServerParams,
  readParams,
  receiptParams,
  peersParams,
  registerRowParams,
  releaseParams,
  sendParams,
  waitParams,
  subscribeParams,
  wokenParams,
} from '../protocol/method-params.js';
import type { HelloResult } from '../protocol/methods.js';
import { check } from '../util/schema.js';
import { EVENT_KINDS } from './event-stream.js';
import type { HubConnection } from './hub-connection.js';
import type { Hub } from './hub.js';
import { RESOURCE_HANDLERS } from './resource-handlers.js';
import { handler, type Handler, type HandlerResult } from './rpc-handler.js';
import { noServer } from './server-control.js';

// A Map, not an object literal: a method named `constructor` or `__proto__` must find nothing.
const HANDLERS = new Map<string, Handler<unknown>>([
  ...Object.entries(RESOURCE_HANDLERS),
  ...Object.entries({
  hello: handler({
    params: helloParams,
    anonymous: true,
    async run(hub, conn, p) {
      if (p.version > PROTOCOL_VERSION) {
        return { error: swbError('BAD_REQUEST', `This hub speaks protocol ${PROTOCOL_VERSION}; the client asked for ${p.version}.`) };
      }
      const err = await hub.claimSession(conn, p.session, p.token);
      if (err) return { error: err };
      if (p.subscribe) conn.subscription = 'mine';
      const who = conn.identity!;
      // No peer list here: a CLI command needs none, and it would grow with every handle ever seen
      // (peers.list pages it).
      const result: HelloResult = {
        session: who.handle,
        role: who.role,
        lastSeq: hub.store.lastSeq(who.handle),
        limits: hub.limits,
        protocolVersion: PROTOCOL_VERSION,
      };
      return { ok: result };
    },
  }),

  'mail.send': handler({
    params: sendParams,
    run: (hub, _conn, p, who) => hub.send(who.handle, p),
  }),

  'mail.list': handler({
    params: listParams,
    async run(hub, _conn, p, who) {
      // Paged to fit one answer frame: what did not fit stays unmarked, `more` says to ask again.
      const { items, changes, more } = await hub.gate.run(() => hub.store.list(who.handle, { ...p, maxBytes: replyBudget(hub) }));
      hub.publishChanges(changes);
      return { ok: { messages: items, lastSeq: hub.store.lastSeq(who.handle), more } };
    },
  }),

  'mail.read': handler({
    params: readParams,
    async run(hub, _conn, p, who) {
      const { changes, notFound } = await hub.gate.run(() => hub.store.markRead(who.handle, p.ids));
      hub.publishChanges(changes);
      if (notFound.length > 0 && notFound.length === p.ids.length) {
        return { error: swbError('NOT_FOUND', `No message ${notFound.join(', ')} was sent to ${who.handle}.`, { ids: notFound }) };
      }
      return { ok: { updated: changes.length, notFound } };
    },
  }),

  'mail.wait': handler({
    params: waitParams,
    async run(hub, conn, p, who) {
      const timeoutMs = Math.min(p.timeoutMs, hub.limits.maxWaitMs);
      const pending = () =>
        hub.gate.run(() =>
          hub.store.list(who.handle, {
            unreadOnly: p.after === undefined,
            after: p.after ?? 0,
            limit: 100,
            maxBytes: replyBudget(hub),
            ...(p.peek ? { peek: true } : {}),
          }),
        );
      let found = await pending();
      if (found.items.length === 0 && timeoutMs > 0) {
        await hub.waiters.wait(who.handle, conn, timeoutMs, () => hub.store.unreadCount(who.handle) > 0 || p.after !== undefined);
        found = await pending();
      }
      hub.publishChanges(found.changes);
      return { ok: { messages: found.items, timedOut: found.items.length === 0, more: found.more } };
    },
  }),

  'mail.subscribe': handler({
    params: subscribeParams,
    run(_hub, conn, p, who) {
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
    async run(hub, _conn, p) {
      const page = await hub.gate.run(() => hub.store.history({ ...p, maxBytes: replyBudget(hub) }));
      return { ok: { messages: page.items, more: page.more } };
    },
  }),

  'mail.woken': handler({
    params: wokenParams,
    operatorOnly: true,
    async run(hub, _conn, p) {
      hub.publishChanges(await hub.gate.run(() => hub.store.recordWake(p.recipient, p.ids)));
      return { ok: { recorded: p.ids.length } };
    },
  }),

  'receipt.get': handler({
    params: receiptParams,
    async run(hub, _conn, p, who) {
      const r = await hub.gate.run(() => hub.store.receipts(p.id));
      const visible = r && (who.role === 'operator' || r.from === who.handle || r.recipients.some((x) => x.to === who.handle));
      if (!r || !visible) return { error: swbError('NOT_FOUND', `No message ${p.id} that ${who.handle} sent or received.`) };
      return { ok: r };
    },
  }),

  'peers.list': handler({
    params: peersParams,
    run: (hub, _conn, p) => ({ ok: hub.peersPage(p) }),
  }),

  'rows.explain': handler({
    params: explainParams,
    run(hub, _conn, p, who) {
      // The evidence is screen text: the operator may read any row's, a row only its own.
      if (who.role !== 'operator' && !(who.role === 'row' && who.handle === p.row)) {
        return { error: swbError('UNAUTHENTICATED', `Only the operator or the row ${p.row} itself may ask why ${p.row} is in its state.`) };
      }
      return hub.explainRow(p.row, p.verbose ?? false);
    },
  }),

  'session.registerRow': handler({
    params: registerRowParams,
    operatorOnly: true,
    run: (hub, _conn, p) => hub.registerRowDurably(p.handle),
  }),

  'budget.grant': handler({
    params: grantParams,
    operatorOnly: true,
    run: (hub, _conn, p) => hub.grantBudget(p.a, p.b),
  }),

  'budget.held': handler({
    params: emptyParams,
    run: (hub) => ({ ok: { pairs: hub.heldPairs(), budget: hub.limits.automaticReplies } }),
  }),

  'federation.status': handler({
    params: emptyParams,
    run: async (hub) => ({ ok: { link: await hub.federationStatus() } }),
  }),

  'session.release': handler({
    params: releaseParams,
    operatorOnly: true,
    run: (hub, _conn, p) => hub.releaseRow(p.handle),
  }),

  'events.subscribe': handler({
    params: eventsParams,
    run(hub, conn, p, who) {
      // The operator may watch everything (or one row); a row only what concerns it.
      if (who.role === 'row') {
        if (p.row !== undefined && p.row !== who.handle) return { error: swbError('UNAUTHENTICATED', `A row sees its own events only, not ${p.row}'s.`) };
      } else if (who.role !== 'operator') {
        return { error: swbError('UNAUTHENTICATED', 'events are for the operator, or a row for its own.') };
      }
      const handle = who.role === 'row' ? who.handle : (p.row ?? null);
      hub.events.subscribe(conn, p.kinds ?? [], handle);
      return { ok: { subscribed: true, kinds: p.kinds ?? EVENT_KINDS, row: handle } };
    },
  }),

  'hook.stop': handler({
    params: emptyParams,
    async run(hub, _conn, _p, who) {
      // A row's own end-of-turn hook: only a row has a turn to end.
      if (who.role !== 'row') return { error: swbError('UNAUTHENTICATED', 'hook.stop is for a row (its agent\'s end-of-turn hook).') };
      try {
        return { ok: await hub.hooks.stop(who.handle) };
      } catch (err) {
        return { error: hub.storeFailure(err, 'The hook could not check the mail') };
      }
    },
  }),

  'server.rows': handler({
    params: emptyParams,
    operatorOnly: true,
    run: (hub) => hub.serverControl?.rows() ?? noServer(hub.paths.workspaceId),
  }),

  'server.newRow': handler({
    params: newRowParams,
    operatorOnly: true,
    run: (hub, _conn, p) => hub.serverControl?.newRow(p) ?? noServer(hub.paths.workspaceId),
  }),

  'server.review': handler({
    params: reviewParams,
    operatorOnly: true,
    run: (hub, _conn, p) => hub.serverControl?.review(p.row) ?? noServer(hub.paths.workspaceId),
  }),

  'server.merge': handler({
    params: mergeParams,
    operatorOnly: true,
    run: (hub, _conn, p) =>
      hub.serverControl?.merge(p.row, { mode: p.mode ?? 'merge', ...(p.into !== undefined ? { into: p.into } : {}), ...(p.commitAll ? { commitAll: true } : {}) }) ??
      noServer(hub.paths.workspaceId),
  }),

  'server.removeRow': handler({
    params: removeRowParams,
    operatorOnly: true,
    run: (hub, _conn, p) => hub.serverControl?.removeRow(p.row, { force: p.force ?? false, deleteBranch: p.deleteBranch ?? false }) ?? noServer(hub.paths.workspaceId),
  }),

  'server.interrupt': handler({
    params: killRowParams,
    operatorOnly: true,
    run: (hub, _conn, p) => hub.serverControl?.interrupt(p.row) ?? noServer(hub.paths.workspaceId),
  }),

  'server.killRow': handler({
    params: killRowParams,
    operatorOnly: true,
    run: (hub, _conn, p) => hub.serverControl?.killRow(p.row) ?? noServer(hub.paths.workspaceId),
  }),

  'server.parked': handler({
    params: parkedParams,
    operatorOnly: true,
    run: (hub, _conn, p) => hub.serverControl?.parked(p.row, p.action) ?? noServer(hub.paths.workspaceId),
  }),

  'server.stop': handler({
    params: stopServerParams,
    operatorOnly: true,
    run: (hub, _conn, p) => hub.serverControl?.stop(p.force ?? false) ?? noServer(hub.paths.workspaceId),
  }),

  'hub.shutdown': handler({
    params: emptyParams,
    operatorOnly: true,
    run(hub) {
      // A dashboard's hub serves its rows; stopping it would cut them off. Only headless hubs
      // step down (so a dashboard can take over a workspace a CLI command started a hub for).
      if (hub.embedded) {
        // A server on its way out (its rows ending) is stopping anyway: the caller waits for the lock.
        if (hub.serverStopping) return { ok: { stopping: true } };
        return { error: swbError('HUB_RUNNING', `The swb server runs for workspace ${hub.paths.workspaceId}; its hub does not stop on request (swb kill-server ends the server).`) };
      }
      setImmediate(() => void hub.stop());
      // The pid lets `swb kill-server` wait until the process is gone, not only its socket.
      return { ok: { stopping: true, pid: process.pid } };
    },
  }),
  }),
]);

/** Bytes a page of messages may take in one answer, leaving room for the envelope. */
function replyBudget(hub: Hub): number {
  return Math.max(4096, hub.limits.maxReplyBytes - 1024);
}

export async function dispatchRpc(hub: Hub, conn: HubConnection, method: string, rawParams: unknown): Promise<HandlerResult> {
  const h = HANDLERS.get(method);
  if (!h) return { error: swbError('UNKNOWN_METHOD', `There is no method ${JSON.stringify(method.slice(0, 64))}.`) };
  const parsed = check(h.params, rawParams);
  if (!parsed.ok) return { error: swbError('BAD_REQUEST', `Bad params for ${method}: ${parsed.error.message}.`) };
  const params = parsed.value;
  if (h.anonymous) return h.run(hub, conn, params, conn.identity ?? { handle: '', role: 'participant', tokenHolder: false });
  const who = conn.identity;
  if (!who) return { error: swbError('UNAUTHENTICATED', 'Say hello first: the first request must be hello.') };
  if (h.operatorOnly && who.role !== 'operator') return { error: swbError('UNAUTHENTICATED', `${method} is for the operator only.`) };
  return h.run(hub, conn, params, who);
}
