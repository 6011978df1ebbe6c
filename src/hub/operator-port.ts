// The one seam between everything that shows or drives mail (the dashboard's controllers, and later
// every client of the workspace server) and the mail core below it (DESIGN.md §1). Before it the UI
// reached the hub four ways (ComposerHub, MailViewHub, AgentMailPort, the whole Hub, plus hub.store
// directly) and repeated "change the store, then publish the change" at each call site. Here every
// method that changes something publishes its own receipt changes, store calls pass the hub's
// store gate, and a store failure comes back as a typed value instead of an exception in the UI.
import type { UnreadMail } from '../agents/wake-controller.js';
import { OPERATOR } from '../protocol/handle.js';
import type { SwbErrorValue } from '../protocol/error-codes.js';
import type { MailItem, PeerChanged, PeerInfo, ReceiptChanged, ReceiptResult, SendParams, SendResult } from '../protocol/methods.js';
import type { ResourceStatus, TicketView } from '../protocol/resource-name.js';
import type { ResourceEvent } from '../resources/resource-coordinator.js';
import type { Actor } from '../resources/ticket-authority.js';
import type { StateChange } from '../store/mail-store.js';
import type { HeldPair } from '../store/reply-budget.js';
import type { Event } from '../util/event.js';
import { toDisposable } from '../util/lifecycle.js';
import type { BudgetHeld, ExplainProvider, Hub } from './hub.js';
import type { ServerControl } from './server-control.js';

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

  /** Registers a row and mints its token (a row registered again gets a new one). */
  registerRow(handle: string): { ok: true; token: string } | { ok: false; error: SwbErrorValue };
  /** A row's process started or ended (a running row is online: @all reaches it, peers list it online). */
  rowRunning(handle: string, running: boolean): void;
  /** Who answers `rows.explain` (null: nobody). */
  setExplainProvider(provider: ExplainProvider | null): void;
  /** Who answers `server.*` — the workspace server (null: nobody). */
  setServerControl(control: ServerControl | null): void;

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

/** Enough to hold every unread message of a recipient at the default limits (maxUnread 256). */
const UNREAD_PAGE = 1000;

export function operatorPort(hub: Hub): OperatorPort {
  const failure = (err: unknown, context: string): { error: SwbErrorValue } => ({ error: hub.failureOf(err, context) });
  return {
    send: (params) => hub.send(OPERATOR, params),
    peers: () => hub.peers(),
    history(opts) {
      try {
        return { ok: hub.store.history(opts) };
      } catch (err) {
        return failure(err, 'The mail history could not be read');
      }
    },
    receipts(id) {
      try {
        return hub.store.receipts(id);
      } catch (err) {
        hub.log(`receipts of #${id}: ${hub.failureOf(err, 'receipts').message}`);
        return undefined;
      }
    },
    async markRead(handles, id) {
      try {
        const changes = await hub.gate.run(() => {
          const all: StateChange[] = [];
          for (const h of handles) all.push(...hub.store.markRead(h, [id]).changes);
          return all;
        });
        // Receipts reach the views (and the unread badges) through the hub's receipt events.
        hub.publishChanges(changes);
        return { ok: { updated: changes.length } };
      } catch (err) {
        return failure(err, `#${id} could not be marked read`);
      }
    },
    unreadCount: (handle) => hub.store.unreadCount(handle),

    unreadOf(handle) {
      if (hub.store.unreadCount(handle) === 0) return { messageIds: [], maxSeq: 0 };
      let items: MailItem[];
      try {
        ({ items } = hub.store.list(handle, { unreadOnly: true, peek: true, limit: UNREAD_PAGE }));
      } catch (err) {
        // No wake this time (the store is locked or failing); the next mail or receipt asks again.
        hub.log(`unread of ${handle}: ${hub.failureOf(err, 'wake check').message}`);
        return { messageIds: [], maxSeq: 0 };
      }
      let maxSeq = 0;
      for (const m of items) maxSeq = Math.max(maxSeq, m.seq ?? 0);
      return { messageIds: items.map((m) => String(m.id)), maxSeq };
    },
    recordWake(handle, messageIds) {
      const ids = messageIds.map(Number).filter((n) => Number.isSafeInteger(n) && n > 0);
      if (ids.length === 0) return;
      hub.gate.run(() => hub.store.recordWake(handle, ids)).then(
        (changes) => hub.publishChanges(changes),
        (err: unknown) => hub.log(`wake of ${handle} not recorded: ${hub.failureOf(err, 'recordWake').message}`),
      );
    },
    onUnreadMaybeChanged(listener) {
      const a = hub.onMail((m) => listener(m.to));
      const b = hub.onReceipt((r) => listener([r.to]));
      const c = hub.onUnreadChanged((h) => listener([h]));
      return toDisposable(() => {
        a.dispose();
        b.dispose();
        c.dispose();
      });
    },

    onToldByHook: hub.hooks.onDelivered,
    onHookGaveUp: hub.hooks.onGaveUp,

    registerRow: (handle) => hub.registerRow(handle),
    rowRunning: (handle, running) => hub.setRowRunning(handle, running),
    setExplainProvider: (provider) => hub.setExplainProvider(provider),
    setServerControl: (control) => {
      hub.serverControl = control;
    },

    parkedMail() {
      try {
        return hub.store.parkedMail();
      } catch (err) {
        hub.log(`parked mail: ${hub.failureOf(err, 'parked mail').message}`);
        return [];
      }
    },
    async redeliverParked(handle) {
      try {
        const messages = await hub.gate.run(() => hub.store.redeliverParked(handle));
        // The row's unread count and its wake follow the same event as new mail's.
        hub.publishUnreadChanged(handle);
        return { ok: { messages } };
      } catch (err) {
        return failure(err, `the parked mail of ${handle} could not be re-delivered`);
      }
    },
    async discardParked(handle) {
      try {
        const changes = await hub.gate.run(() => hub.store.discardParked(handle));
        hub.publishChanges(changes);
        return { ok: { messages: changes.length } };
      } catch (err) {
        return failure(err, `the parked mail of ${handle} could not be discarded`);
      }
    },

    async resourceStatus() {
      try {
        return { ok: await hub.resources.status(undefined) };
      } catch (err) {
        return failure(err, 'The reservations could not be read');
      }
    },
    grantTicket: (ticket) => hub.resources.grant(AS_OPERATOR, ticket),
    releaseTicket: (ticket) => hub.resources.release(AS_OPERATOR, ticket, true),
    setController: (resource, controller) => hub.resources.setPolicy(AS_OPERATOR, resource, { controller }),
    onResource: hub.resources.onEvent,

    heldPairs: () => hub.heldPairs(),
    grantBudget: (a, b) => hub.grantBudget(a, b),

    onMail: hub.onMail,
    onReceipt: hub.onReceipt,
    onPeer: hub.onPeer,
    onRefused: hub.onRefused,
    onHeld: hub.onHeld,
  };
}
