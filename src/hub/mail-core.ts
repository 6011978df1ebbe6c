// The mail core: the store behind its gate, and the one place mail changes after it was accepted.
// Every method here that changes something publishes what changed (receipts to their senders through
// the fan-out, unread news to the wake) before it returns, so "change the store, then publish" is
// written once, here, instead of at each caller — the method handlers, the operator port, the hook
// delivery, the sweep. What only reads goes through `reads`. A store failure becomes a typed value
// here too (a damaged file is set aside once, for the operator's recovery). Accepting new mail is
// the send pipeline's (send-pipeline.ts): it commits in groups.
import type { SwbErrorValue } from '../protocol/error-codes.js';
import { swbError } from '../protocol/error-codes.js';
import type { HubLimits } from '../protocol/limits.js';
import type { MailItem } from '../protocol/methods.js';
import type { MailStore, StateChange } from '../store/mail-store.js';
import type { HeldPair } from '../store/reply-budget.js';
import { RowRecordStore } from '../store/row-record-store.js';
import { UsageStore } from '../usage/usage-store.js';
import { isCorruptError, isStoreFailure, setAsideDamaged, storeErrorValue } from '../store/store-error.js';
import type { FanOut } from './fan-out.js';
import type { StoreGate } from './store-gate.js';

/** What may be read straight from the store (a change goes through a method of the core, which publishes it). */
export type StoreReads = Pick<MailStore, 'lastSeq' | 'unreadCount' | 'history' | 'receipts' | 'parkedMail'>;

/** Enough to hold every unread message of a recipient at the default limits (maxUnread 256). */
const UNREAD_PAGE = 1000;
const NO_UNREAD = { items: [], maxSeq: 0 } as const;

export interface MailCoreDeps {
  store: MailStore;
  /** Every store call passes it: another process's lock queues calls instead of freezing the loop. */
  gate: StoreGate;
  fanOut: FanOut;
  limits: HubLimits;
  /** mail.db, named in store failures (and copied aside when damaged). */
  dbFile: string;
  log(line: string): void;
}

export class MailCore {
  readonly gate: StoreGate;
  readonly reads: StoreReads;
  private readonly store: MailStore;
  /** Where a damaged mail.db was copied (once per run), for the operator's recovery. */
  private damagedCopy: string | null = null;
  private rowRecordStore: RowRecordStore | null = null;
  private usageStore: UsageStore | null = null;

  constructor(private readonly deps: MailCoreDeps) {
    this.store = deps.store;
    this.gate = deps.gate;
    this.reads = deps.store;
  }

  /** A store failure as a typed error; a damaged file is copied aside (once) so the operator can recover it. */
  storeFailure(err: unknown, context: string): SwbErrorValue {
    if (isCorruptError(err) && this.damagedCopy === null) {
      this.damagedCopy = setAsideDamaged(this.deps.dbFile);
      this.deps.log(`mail.db is damaged (${(err as Error).message}); copy set aside at ${this.damagedCopy ?? '(copy failed)'}`);
    }
    return storeErrorValue(err, this.deps.dbFile, context, this.damagedCopy);
  }

  /** The typed answer for an exception: a store failure says what and where; anything else is INTERNAL. */
  failureOf(err: unknown, context: string): SwbErrorValue {
    if (isStoreFailure(err)) return this.storeFailure(err, context);
    return swbError('INTERNAL', `${context}; see the hub log.`);
  }

  /** A recipient's unread mail, peeked (nothing marked delivered), and the newest sequence among it. */
  unreadMail(handle: string): { readonly items: readonly MailItem[]; readonly maxSeq: number } {
    if (this.store.unreadCount(handle) === 0) return NO_UNREAD;
    const { items } = this.store.list(handle, { unreadOnly: true, peek: true, limit: UNREAD_PAGE });
    let maxSeq = 0;
    for (const m of items) maxSeq = Math.max(maxSeq, m.seq ?? 0);
    return { items, maxSeq };
  }

  /** A page of a recipient's mail; what it shows (unless peeked) is marked delivered and published. */
  async list(recipient: string, opts: Parameters<MailStore['list']>[1]): Promise<{ items: MailItem[]; more: boolean }> {
    const { items, changes, more } = await this.gate.run(() => this.store.list(recipient, opts));
    this.deps.fanOut.publishChanges(changes);
    return { items, more };
  }

  /** A page of all mail (or one peer's), newest first, through the gate. */
  history(opts: Parameters<MailStore['history']>[0]): Promise<{ items: MailItem[]; more: boolean }> {
    return this.gate.run(() => this.store.history(opts));
  }

  receipts(id: number): Promise<ReturnType<MailStore['receipts']>> {
    return this.gate.run(() => this.store.receipts(id));
  }

  /** Marks messages read for their recipient; ids that are not theirs are reported, not fatal. */
  async markRead(recipient: string, ids: readonly number[]): Promise<{ updated: number; notFound: number[] }> {
    const { changes, notFound } = await this.gate.run(() => this.store.markRead(recipient, ids));
    this.deps.fanOut.publishChanges(changes);
    return { updated: changes.length, notFound };
  }

  /** Marks message `id` read for each of `handles` (the operator reading for them). */
  async markReadFor(handles: readonly string[], id: number): Promise<number> {
    const changes = await this.gate.run(() => {
      const all: StateChange[] = [];
      for (const h of handles) all.push(...this.store.markRead(h, [id]).changes);
      return all;
    });
    // Receipts reach the views (and the unread badges) through the receipt events.
    this.deps.fanOut.publishChanges(changes);
    return changes.length;
  }

  /**
   * Records that `handle` was told of these messages (typed by the wake, or by its own hook). `told`
   * runs between the record and the publish: the hook delivery tells the wake controller first, so
   * the receipts' news cannot start a typed wake for the same batch.
   */
  async recordWake(handle: string, ids: readonly number[], how: 'typed' | 'hook' = 'typed', told?: () => void): Promise<void> {
    const changes = await this.gate.run(() => this.store.recordWake(handle, ids, how));
    told?.();
    this.deps.fanOut.publishChanges(changes);
  }

  /** Parks a row's unread mail for the operator's review (a fresh relaunch; before any client is told of it). */
  parkUnread(handle: string): number {
    return this.store.parkUnread(handle);
  }

  /** Hands the parked mail to the row after all (it is unread and woken for again); returns how many. */
  async redeliverParked(handle: string): Promise<number> {
    const messages = await this.gate.run(() => this.store.redeliverParked(handle));
    // The row's unread count and its wake follow the same event as new mail's.
    this.deps.fanOut.unreadChanged(handle);
    return messages;
  }

  /** The parked mail never reaches the row; its senders' receipts say expired. Returns how many. */
  async discardParked(handle: string): Promise<number> {
    const changes = await this.gate.run(() => this.store.discardParked(handle));
    this.deps.fanOut.publishChanges(changes);
    return changes.length;
  }

  /** Pairs of rows that used up their reply budget and wait for the operator (empty if the store cannot tell now). */
  heldPairs(): HeldPair[] {
    try {
      return this.store.budget.held();
    } catch {
      return [];
    }
  }

  /** The operator gives a pair of rows another reply budget. */
  async grantBudget(a: string, b: string): Promise<{ ok: { granted: boolean; budget: number } } | { error: SwbErrorValue }> {
    try {
      const granted = await this.gate.run(() => this.store.budget.grant(a, b));
      return { ok: { granted, budget: this.deps.limits.automaticReplies } };
    } catch (err) {
      return { error: this.storeFailure(err, `the budget of ${a} and ${b} could not be granted`) };
    }
  }

  /** Expiry, retention, and tokenless handles nobody used for participantTtlHours (`inUse` keeps a handle). */
  sweep(inUse: (handle: string) => boolean): void {
    const { limits } = this.deps;
    this.gate
      .run(() =>
        this.store.sweep({
          expiryMs: limits.expiryHours * 3600_000,
          retentionMs: limits.retentionDays * 86_400_000,
          forget: { ttlMs: limits.participantTtlHours * 3600_000, keep: inUse },
        }),
      )
      .then(
        ({ changes }) => this.deps.fanOut.publishChanges(changes),
        (err: unknown) => this.deps.log(`sweep failed: ${this.storeFailure(err, 'sweep').message}`),
      );
  }

  /** The workspace server's records of its rows (row-records.ts), in the same mail.db. */
  get rowRecords(): RowRecordStore {
    return (this.rowRecordStore ??= new RowRecordStore(this.store.db));
  }

  /** Usage tracking's offsets and totals (issue #38, src/usage/usage-store.ts), in the same mail.db. */
  get usage(): UsageStore {
    return (this.usageStore ??= new UsageStore(this.store.db));
  }

  /**
   * Runs `work` in one transaction now, not through the gate: for the server's last records as it
   * stops, which must be written before the store closes (a failure throws, for the caller to log).
   */
  writeNow(work: () => void): void {
    this.store.db.transaction(work)();
  }
}
