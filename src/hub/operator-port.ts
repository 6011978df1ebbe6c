// The one seam between everything that shows or drives mail (the dashboard's controllers, and later
// every client of the workspace server) and the mail core below it (DESIGN.md §1). Before it the UI
// reached the hub four ways (ComposerHub, MailViewHub, AgentMailPort, the whole Hub, plus hub.store
// directly). It takes the hub's core (hub-core.ts), whose mail core publishes every change it makes
// and passes every store call through the gate; here a store failure becomes a typed value instead
// of an exception in the UI.
import type { HookReport } from '../agents/hook-signal.js';
import type { UnreadMail } from '../agents/wake-controller.js';
import { OPERATOR } from '../protocol/handle.js';
import type { SwbErrorValue } from '../protocol/error-codes.js';
import type { MailItem, PeerChanged, PeerInfo, ReceiptChanged, ReceiptResult, SendParams, SendResult } from '../protocol/methods.js';
import type { ResourceStatus, TicketView } from '../protocol/resource-name.js';
import type { ResourceEvent } from '../resources/resource-coordinator.js';
import type { Actor } from '../resources/ticket-authority.js';
import type { HeldPair } from '../store/reply-budget.js';
import type { Event } from '../util/event.js';
import { toDisposable } from '../util/lifecycle.js';
import type { HubCore } from './hub-core.js';
import type { BudgetHeld } from './send-pipeline.js';
import type { ExplainProvider, ServerControl } from './server-control.js';

export type PortResult<T> = { ok: T } | { error: SwbErrorValue };

export interface OperatorPort {
  /** Sends as the operator. */
  send(params: SendParams): Promise<PortResult<SendResult>>;
  peers(): PeerInfo[];
  /** A page of all mail (or one peer's), newest first. */
  history(opts: { before?: number; limit?: number; peer?: string }): PortResult<{ items: MailItem[]; more: boolean }>;
  /** A message's receipts, or undefined when it is gone or the store cannot tell now. */
  receipts(id: number): ReceiptResult | undefined;
  /** Marks message `id` read for each of `handles` (the operator reading for them); publishes the receipts. */
  markRead(handles: readonly string[], id: number): Promise<PortResult<{ updated: number }>>;
  unreadCount(handle: string): number;

  /** A row's unread mail, peeked: looking never marks anything delivered. */
  unreadOf(handle: string): UnreadMail;
  /** The wake controller nudged `handle` about these messages (`swb status ID` then shows woken). */
  recordWake(handle: string, messageIds: readonly string[]): void;
  /** Fires with the handles whose unread mail may have changed (new mail, or a receipt moved). */
  onUnreadMaybeChanged: Event<readonly string[]>;
  /** A row's own hook told it of its mail up to this sequence (no typed wake needed for that batch). */
  onToldByHook: Event<{ handle: string; maxSeq: number }>;
  /** A row's hook gave up telling it (the loop guard): a typed wake for its unread mail is due. */
  onHookGaveUp: Event<string>;
  /** A row's agent hook reported an event of its turn (the second state signal). */
  onHookReport: Event<{ handle: string; report: HookReport }>;

  /** Registers a row and mints its token (a row registered again gets a new one). */
  registerRow(handle: string): { ok: true; token: string } | { ok: false; error: SwbErrorValue };
  /** The row whose current SWB_TOKEN this is, or null (a token of a row since re-registered names nobody). */
  rowOfToken(token: string): string | null;
  /** A row's process started or ended (a running row is online: @all reaches it, peers list it online). */
  rowRunning(handle: string, running: boolean): void;
  /** Who answers `rows.explain` (null: nobody). */
  setExplainProvider(provider: ExplainProvider | null): void;
  /**
   * Who answers `server.*`: the workspace server, its only caller; 'stopping' once it ends its rows
   * (it answers nothing more, and a successor asking its hub to step down may wait for the lock).
   */
  setServerControl(control: ServerControl | 'stopping'): void;

  /** Rows whose unread mail from before a fresh relaunch waits for the operator's review. */
  parkedMail(): Array<{ recipient: string; count: number }>;
  /** Hands the parked mail to the row after all (it is unread and woken for again). */
  redeliverParked(handle: string): Promise<PortResult<{ messages: number }>>;
  /** The parked mail never reaches the row; its senders' receipts say expired. */
  discardParked(handle: string): Promise<PortResult<{ messages: number }>>;

  /** Reservations (issue #35), as the operator: what `swb resource status|grant|release|policy` does. */
  resourceStatus(): Promise<PortResult<ResourceStatus[]>>;
  grantTicket(ticket: number): Promise<PortResult<TicketView>>;
  /** Forced: the operator frees anyone's ticket, held or uncertain. */
  releaseTicket(ticket: number): Promise<PortResult<TicketView>>;
  setController(resource: string, controller: string | null): Promise<PortResult<ResourceStatus>>;
  /** A reservation changed (committed): requested, granted, released, policy ... */
  onResource: Event<ResourceEvent>;

  heldPairs(): HeldPair[];
  grantBudget(a: string, b: string): Promise<PortResult<{ granted: boolean; budget: number }>>;

  onMail: Event<MailItem>;
  onReceipt: Event<ReceiptChanged & { from: string }>;
  onPeer: Event<PeerChanged>;
  onRefused: Event<{ sender: string; to: readonly string[]; error: SwbErrorValue }>;
  onHeld: Event<BudgetHeld>;
}

/** The operator port acts as the operator, as `swb resource` run by the operator does. */
const AS_OPERATOR: Actor = { handle: OPERATOR, role: 'operator' };

export function operatorPort(core: HubCore): OperatorPort {
  const { mail, sessions, sends, fanOut, hooks, resources, server } = core;
  /** Runs a change of the mail core; a store failure comes back as a typed value saying `context`. */
  const settle = async <T>(work: () => Promise<T>, context: string): Promise<PortResult<T>> => {
    try {
      return { ok: await work() };
    } catch (err) {
      return { error: mail.failureOf(err, context) };
    }
  };
  /** A read that must not throw into the UI: `fallback` when the store cannot answer now, with a log line. */
  const readOr = <T>(read: () => T, fallback: T, what: string, context: string): T => {
    try {
      return read();
    } catch (err) {
      core.log(`${what}: ${mail.failureOf(err, context).message}`);
      return fallback;
    }
  };
  return {
    send: (params) => sends.send(OPERATOR, params),
    peers: () => sessions.peers(),
    history(opts) {
      try {
        return { ok: mail.reads.history(opts) };
      } catch (err) {
        return { error: mail.failureOf(err, 'The mail history could not be read') };
      }
    },
    receipts: (id) => readOr(() => mail.reads.receipts(id), undefined, `receipts of #${id}`, 'receipts'),
    markRead: (handles, id) => settle(async () => ({ updated: await mail.markReadFor(handles, id) }), `#${id} could not be marked read`),
    unreadCount: (handle) => mail.reads.unreadCount(handle),

    unreadOf(handle) {
      let unread: ReturnType<typeof mail.unreadMail>;
      try {
        unread = mail.unreadMail(handle);
      } catch (err) {
        // No wake this time (the store is locked or failing); the next mail or receipt asks again.
        core.log(`unread of ${handle}: ${mail.failureOf(err, 'wake check').message}`);
        return { messageIds: [], maxSeq: 0 };
      }
      return { messageIds: unread.items.map((m) => String(m.id)), maxSeq: unread.maxSeq };
    },
    recordWake(handle, messageIds) {
      const ids = messageIds.map(Number).filter((n) => Number.isSafeInteger(n) && n > 0);
      if (ids.length === 0) return;
      mail.recordWake(handle, ids).catch((err: unknown) => core.log(`wake of ${handle} not recorded: ${mail.failureOf(err, 'recordWake').message}`));
    },
    onUnreadMaybeChanged(listener) {
      const a = fanOut.onMail((m) => listener(m.to));
      const b = fanOut.onReceipt((r) => listener([r.to]));
      const c = fanOut.onUnreadChanged((h) => listener([h]));
      return toDisposable(() => {
        a.dispose();
        b.dispose();
        c.dispose();
      });
    },

    onToldByHook: hooks.onDelivered,
    onHookGaveUp: hooks.onGaveUp,
    onHookReport: hooks.onReport,

    registerRow: (handle) => sessions.registerRow(handle),
    rowRunning: (handle, running) => sessions.setRowRunning(handle, running),
    rowOfToken: (token) => sessions.rowOfToken(token),
    setExplainProvider: (provider) => server.setExplainProvider(provider),
    setServerControl: (control) => server.setControl(control),

    parkedMail: () => readOr(() => mail.reads.parkedMail(), [], 'parked mail', 'parked mail'),
    redeliverParked: (handle) =>
      settle(async () => ({ messages: await mail.redeliverParked(handle) }), `the parked mail of ${handle} could not be re-delivered`),
    discardParked: (handle) => settle(async () => ({ messages: await mail.discardParked(handle) }), `the parked mail of ${handle} could not be discarded`),

    resourceStatus: () => settle(() => resources.status(undefined), 'The reservations could not be read'),
    grantTicket: (ticket) => resources.grant(AS_OPERATOR, ticket),
    releaseTicket: (ticket) => resources.release(AS_OPERATOR, ticket, true),
    setController: (resource, controller) => resources.setPolicy(AS_OPERATOR, resource, { controller }),
    onResource: resources.onEvent,

    heldPairs: () => mail.heldPairs(),
    grantBudget: (a, b) => mail.grantBudget(a, b),

    onMail: fanOut.onMail,
    onReceipt: fanOut.onReceipt,
    onPeer: fanOut.onPeer,
    onRefused: sends.onRefused,
    onHeld: sends.onHeld,
  };
}
