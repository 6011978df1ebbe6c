// The durable inbox. One writer (the hub that holds the workspace lock) owns this object.
// acceptBatch runs many sends in ONE transaction (group commit) and returns only after that
// commit is on disk; nobody may be told "accepted" before it returns.
// One file over 450 lines because it is one concept: every statement on the mail tables, prepared
// once against one connection, so the transaction boundaries (accept, receipts, expiry) are read in
// one place; the reply budget, migrations and error typing already live beside it.
import { preparedOnFirstUse, sql } from './prepared-on-first-use.js';
import { swbError, type SwbErrorValue } from '../protocol/error-codes.js';
import type {
  MailItem,
  MessageKind,
  ReceiptResult,
  ReceiptState,
  RecipientReceipt,
  SendResult,
  SessionRole,
} from '../protocol/methods.js';
import { asOpenError, openDatabase, type SqliteDatabase } from './open-database.js';
import { STATE_CODE, UNREAD_SQL, stateName } from './receipt-state.js';
import { DEFAULT_REPLY_BUDGET, ReplyBudget, type ReplyBudgetSettings } from './reply-budget.js';
import { requestedKey, sameMessage } from './same-message.js';
import { WalSync } from './wal-sync.js';

export interface AcceptRequest {
  sender: string;
  /** Concrete recipients (broadcast already expanded by the hub), deduplicated. */
  to: string[];
  /** Recipients as the sender wrote them (`all` kept): with the rest, what a retry must repeat (same-message.ts). */
  requestedTo: string[];
  /**
   * Well-formed (src/text/well-formed.ts), as the hub and federation make it: a retry is compared
   * with the text read back from the store, and SQLite cannot keep a lone surrogate.
   */
  text: string;
  kind: MessageKind;
  replyTo: number | null;
  messageId: string;
  /** Recipients with a live subscribed connection: they get it pushed, so it is delivered now. */
  live: ReadonlySet<string>;
  /** Recipients reached only through broadcast: a full inbox skips them (named in `skipped`) instead of refusing the message. */
  optional?: ReadonlySet<string>;
  /**
   * Mail another node's server already accepted (src/federation/): its custody is not ours to
   * refuse, so neither the reply budget nor a full inbox turns it away here (the sending node
   * applied both), and its recipients were checked by the caller.
   */
  fromRemote?: boolean;
}

export type AcceptOutcome =
  | { ok: true; result: SendResult; message: MailItem | null; repliedTo: { id: number; recipient: string; sender: string } | null }
  | { ok: false; error: SwbErrorValue };

export interface StoreOptions {
  maxUnread: number;
  now?: () => number;
  /** The reply budget between rows (default DEFAULT_REPLY_BUDGET). */
  replyBudget?: ReplyBudgetSettings;
}

/** A row of `messages` as SQLite returns it. */
export interface MessageRow {
  id: number;
  sender: string;
  message_id: string;
  kind: string;
  text: string;
  reply_to: number | null;
  recipients: string;
  /** The recipients as asked, as JSON (schema 9 on), or an older row's sha256 digest: see same-message.ts. */
  retry_key: string;
  created_at: number;
}

interface DeliveryRow {
  recipient: string;
  seq: number;
  state: number;
  accepted_at: number;
  delivered_at: number | null;
  woken_at: number | null;
  woken_by: string | null;
  read_at: number | null;
  replied_at: number | null;
  parked_at: number | null;
}

type InboxRow = MessageRow & { seq: number; state: number };

/** How stale a handle's recorded last use may be (it only decides when a tokenless handle is forgotten). */
const LAST_SEEN_GRANULARITY_MS = 3600_000;

/** No recipient skipped (most sends): shared, never written. */
const NO_SKIPS: ReadonlyArray<{ to: string; error: SwbErrorValue }> = [];

/** Counter changes of a batch not yet committed. */
interface Staged {
  seq: Map<string, number>;
  unread: Map<string, number>;
  /** The id floor (MailStore.idFloor) as this batch leaves it: 0 once it stored a message above it. */
  idFloor: number;
}

/** meta's key for the highest message id ever given, when a purge deleted the rows above the rest (schema 10). */
const HIGH_WATER_KEY = 'messages_high_water';

export interface StateChange {
  id: number;
  sender: string;
  to: string;
  state: ReceiptState | 'woken';
  at: number;
}

export class MailStore {
  readonly db: SqliteDatabase;
  private readonly now: () => number;
  private maxUnread: number;
  /** Cached unread counts and next sequence per handle; reloaded from disk if a commit fails. */
  private unread = new Map<string, number>();
  private nextSeq = new Map<string, number>();
  private roles = new Map<string, SessionRole>();
  private lastSeen = new Map<string, number>();
  /**
   * Handles whose next sequence on disk (handles.next_seq) is behind the cache. A commit of mail
   * does not write it: the deliveries it inserts carry the sequence, and the cache is read back as
   * the larger of the two. It is written before anything could delete deliveries (retention's purge),
   * so a sequence is never given twice. One statement and one page less in every accept.
   */
  private readonly seqUnwritten = new Set<string>();
  /**
   * The highest message id ever given, while it is above every stored message's (a purge deleted the
   * newest ones); 0 otherwise, as for nearly every accept. A new row takes max(id) + 1 (schema 10: no
   * AUTOINCREMENT, one page less a commit), so until a message is stored above it the accept names
   * the id itself: a purged id is never given again, and a reply_to or receipt never finds new mail.
   */
  private idFloor = 0;
  private readonly q: ReturnType<MailStore['prepare']>;
  /**
   * Commits of this connection taken without a sync (federation's applies), and made durable later;
   * a FULL group commit covers every one before it.
   */
  readonly wal: WalSync;
  /** The connection commits with synchronous FULL (or EXTRA): a group commit syncs the WAL. */
  private readonly fullSync: boolean;
  /** The group commit's transaction, made once (better-sqlite3 builds its wrappers at each `transaction` call). */
  private readonly acceptTransaction: ReturnType<SqliteDatabase['transaction']>;
  /** Messages rows send each other, per pair, between operator turns. */
  readonly budget: ReplyBudget;
  /** The batch's staged counters: one pair of maps, emptied at each batch (acceptBatch never runs inside itself). */
  private readonly staged: Staged = { seq: new Map(), unread: new Map(), idFloor: 0 };

  /** Opens mail.db; a damaged file fails here (first reads included), typed, with a copy set aside. */
  static open(file: string, options: StoreOptions): MailStore {
    const db = openDatabase(file);
    try {
      return asOpenError(file, () => new MailStore(db, options));
    } catch (err) {
      db.close();
      throw err;
    }
  }

  constructor(db: SqliteDatabase, options: StoreOptions) {
    this.db = db;
    this.now = options.now ?? Date.now;
    this.maxUnread = options.maxUnread;
    this.q = this.prepare();
    this.wal = WalSync.of(db);
    this.fullSync = (db.pragma('synchronous', { simple: true }) as number) >= 2;
    this.acceptTransaction = db.transaction((requests: readonly AcceptRequest[], at: number, staged: Staged): AcceptOutcome[] => {
      const outcomes: AcceptOutcome[] = [];
      for (const r of requests) outcomes.push(this.acceptOne(r, at, staged));
      return outcomes;
    });
    this.budget = new ReplyBudget(db, options.replyBudget ?? DEFAULT_REPLY_BUDGET, (h) => this.roles.get(h));
    this.reloadCaches();
  }

  private prepare() {
    const s = sql;
    return preparedOnFirstUse(this.db, {
      // next_seq continues after any deliveries kept from before the handle was forgotten.
      insertHandle: s(`INSERT INTO handles (handle, role, first_seen, last_seen, next_seq)
                       VALUES (@handle, @role, @at, @at, (SELECT coalesce(max(seq), 0) + 1 FROM deliveries WHERE recipient = @handle))
                       ON CONFLICT(handle) DO UPDATE SET role = excluded.role, last_seen = excluded.last_seen WHERE handles.role <> 'row'
                       RETURNING next_seq`),
      allHandles: s<{ handle: string; role: string; next_seq: number; last_seen: number | null }>(
        `SELECT handle, role, next_seq, last_seen FROM handles`,
      ),
      touchHandle: s(`UPDATE handles SET last_seen = ? WHERE handle = ?`),
      releaseRow: s(`UPDATE handles SET role = 'participant', last_seen = ? WHERE handle = ? AND role = 'row'`),
      forgetIdle: s<{ handle: string }>(
        `DELETE FROM handles WHERE role = 'participant' AND coalesce(last_seen, first_seen) < ?
           AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.recipient = handles.handle AND d.${UNREAD_SQL})
         RETURNING handle`,
      ),
      // The primary key (recipient, seq) answers this with one seek per handle, whatever the table's size.
      lastSeqOf: s<{ last: number | null }>(`SELECT max(seq) AS last FROM deliveries WHERE recipient = ?`),
      unreadCounts: s<{ recipient: string; n: number }>(
        `SELECT recipient, count(*) AS n FROM deliveries WHERE ${UNREAD_SQL} GROUP BY recipient`,
      ),
      setNextSeq: s(`UPDATE handles SET next_seq = ? WHERE handle = ?`),
      deleteMessage: s(`DELETE FROM messages WHERE id = ?`),
      setRecipients: s(`UPDATE messages SET recipients = ? WHERE id = ?`),
      findBySenderId: s<MessageRow>(`SELECT * FROM messages WHERE sender = ? AND message_id = ?`),
      // DO NOTHING on a repeated (sender, message_id): the common path needs no SELECT first. The id
      // is NULL (max(id) + 1) but above a purged newest message (idFloor).
      insertMessage: s(`INSERT INTO messages (id, sender, message_id, kind, text, reply_to, recipients, retry_key, created_at, depth)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (sender, message_id) DO NOTHING`),
      newestMessage: s<{ id: number | null }>(`SELECT max(id) AS id FROM messages`),
      highWater: s<{ value: string }>(`SELECT value FROM meta WHERE key = '${HIGH_WATER_KEY}'`),
      // Only ever raised: the mark says the highest id given, whatever a purge leaves.
      raiseHighWater: s(`INSERT INTO meta (key, value) VALUES ('${HIGH_WATER_KEY}', CAST(@id AS TEXT))
                         ON CONFLICT (key) DO UPDATE SET value = excluded.value WHERE CAST(value AS INTEGER) < @id`),
      // Mail for another node, published from the outbox in id order (src/federation/nats-link.ts).
      insertOutboxMail: s(`INSERT INTO outbox (node, kind, message, created_at) VALUES (?, 'mail', ?, ?)`),
      // A receipt from the node a message went to: forward only, and the times a local receipt would set.
      remoteReceipt: s(`UPDATE deliveries SET state = @state,
                          delivered_at = CASE WHEN @state IN (${STATE_CODE.delivered}, ${STATE_CODE.read}, ${STATE_CODE.replied}) THEN coalesce(delivered_at, @at) ELSE delivered_at END,
                          read_at = CASE WHEN @state IN (${STATE_CODE.read}, ${STATE_CODE.replied}) THEN coalesce(read_at, @at) ELSE read_at END,
                          replied_at = CASE WHEN @state = ${STATE_CODE.replied} THEN coalesce(replied_at, @at) ELSE replied_at END,
                          expired_at = CASE WHEN @state = ${STATE_CODE.expired} THEN @at ELSE expired_at END
                        WHERE message = @id AND recipient = @to AND state < @state
                          AND NOT (@state = ${STATE_CODE.expired} AND state NOT IN (${STATE_CODE.accepted}, ${STATE_CODE.delivered}))`),
      remoteWoken: s(`UPDATE deliveries SET woken_at = @at, woken_by = coalesce(@how, 'typed') WHERE message = @id AND recipient = @to AND woken_at IS NULL`),
      insertDelivery: s(`INSERT INTO deliveries (message, recipient, seq, state, accepted_at, delivered_at)
                         VALUES (?, ?, ?, ?, ?, ?)`),
      // Mail from another node delivered as it is stored (its recipient hears pushes): the delivered
      // receipt for its sender's node, in the accept's transaction. What schema 5's insert trigger did
      // for every delivery row (schema 9 dropped it: local mail paid its call and had nothing to queue).
      queueDeliveredReceipt: s(`INSERT INTO outbox (node, kind, message, body, created_at)
                                SELECT substr(m.sender, instr(m.sender, '@') + 1), 'receipt', NULL,
                                       json_object('sender', substr(m.sender, 1, instr(m.sender, '@') - 1), 'messageId', m.message_id,
                                                   'to', @to, 'state', ${STATE_CODE.delivered}, 'woken', 0, 'at', @at),
                                       CAST(unixepoch('subsec') * 1000 AS INTEGER)
                                FROM messages m WHERE m.id = @id`),
      deliveriesOf: s<DeliveryRow>(`SELECT * FROM deliveries WHERE message = ? ORDER BY recipient`),
      deliveryFor: s<DeliveryRow>(`SELECT * FROM deliveries WHERE message = ? AND recipient = ?`),
      messageById: s<MessageRow>(`SELECT * FROM messages WHERE id = ?`),
      markReplied: s(`UPDATE deliveries SET state = ${STATE_CODE.replied}, replied_at = ?,
                        read_at = coalesce(read_at, ?), delivered_at = coalesce(delivered_at, ?)
                      WHERE message = ? AND recipient = ? AND state < ${STATE_CODE.replied}`),
      markRead: s(`UPDATE deliveries SET state = ${STATE_CODE.read}, read_at = ?, delivered_at = coalesce(delivered_at, ?)
                   WHERE message = ? AND recipient = ? AND state < ${STATE_CODE.read}`),
      markDelivered: s(`UPDATE deliveries SET state = ${STATE_CODE.delivered}, delivered_at = ?
                        WHERE message = ? AND recipient = ? AND state < ${STATE_CODE.delivered}`),
      markWoken: s(`UPDATE deliveries SET woken_at = ?, woken_by = ? WHERE message = ? AND recipient = ? AND woken_at IS NULL AND ${UNREAD_SQL}`),
      insertWake: s(`INSERT INTO wake_events (recipient, message, at, how) VALUES (?, ?, ?, ?)`),
      // Parked mail (for the operator's review) is not the row's to see until it is handed over.
      inbox: s<InboxRow>(`SELECT m.*, d.seq, d.state FROM deliveries d JOIN messages m ON m.id = d.message
                          WHERE d.recipient = ? AND d.seq > ? AND d.parked_at IS NULL ORDER BY d.seq LIMIT ?`),
      inboxUnread: s<InboxRow>(`SELECT m.*, d.seq, d.state FROM deliveries d JOIN messages m ON m.id = d.message
                                WHERE d.recipient = ? AND d.seq > ? AND d.${UNREAD_SQL} ORDER BY d.seq LIMIT ?`),
      historyAll: s<MessageRow>(`SELECT * FROM messages WHERE id < ? ORDER BY id DESC LIMIT ?`),
      historyPeer: s<MessageRow>(`SELECT * FROM messages m WHERE m.id < @before AND (m.sender = @peer OR EXISTS
                                    (SELECT 1 FROM deliveries d WHERE d.message = m.id AND d.recipient = @peer))
                                  ORDER BY m.id DESC LIMIT @limit`),
      expire: s<{ message: number; recipient: string; sender: string }>(
        `UPDATE deliveries SET state = ${STATE_CODE.expired}, expired_at = @at
         WHERE ${UNREAD_SQL} AND accepted_at < @cutoff
         RETURNING message, recipient, (SELECT sender FROM messages WHERE id = message) AS sender`,
      ),
      park: s<{ message: number }>(`UPDATE deliveries SET parked_at = ? WHERE recipient = ? AND ${UNREAD_SQL} RETURNING message`),
      parkedCounts: s<{ recipient: string; n: number }>(
        `SELECT recipient, count(*) AS n FROM deliveries WHERE parked_at IS NOT NULL AND state IN (${STATE_CODE.accepted}, ${STATE_CODE.delivered}) GROUP BY recipient ORDER BY recipient`,
      ),
      unpark: s<{ message: number }>(
        `UPDATE deliveries SET parked_at = NULL WHERE recipient = ? AND parked_at IS NOT NULL AND state IN (${STATE_CODE.accepted}, ${STATE_CODE.delivered}) RETURNING message`,
      ),
      discardParked: s<{ message: number; sender: string }>(
        `UPDATE deliveries SET state = ${STATE_CODE.expired}, expired_at = @at, parked_at = NULL
         WHERE recipient = @recipient AND parked_at IS NOT NULL AND state IN (${STATE_CODE.accepted}, ${STATE_CODE.delivered})
         RETURNING message, (SELECT sender FROM messages WHERE id = message) AS sender`,
      ),
      unreadOf: s<{ n: number }>(`SELECT count(*) AS n FROM deliveries WHERE recipient = ? AND ${UNREAD_SQL}`),
      purge: s(`DELETE FROM messages WHERE created_at < ? AND NOT EXISTS
                  (SELECT 1 FROM deliveries d WHERE d.message = messages.id AND d.${UNREAD_SQL})`),
    });
  }

  private reloadCaches(): void {
    this.unread.clear();
    this.nextSeq.clear();
    this.roles.clear();
    this.lastSeen.clear();
    this.seqUnwritten.clear();
    for (const row of this.q.allHandles.all()) {
      this.nextSeq.set(row.handle, row.next_seq);
      this.roles.set(row.handle, row.role as SessionRole);
      this.lastSeen.set(row.handle, row.last_seen ?? 0);
    }
    // Commits of mail leave handles.next_seq behind (seqUnwritten): the deliveries say how far it went.
    for (const [handle, next] of this.nextSeq) {
      const last = this.q.lastSeqOf.get(handle)?.last ?? null;
      if (last !== null && last >= next) {
        this.nextSeq.set(handle, last + 1);
        this.seqUnwritten.add(handle);
      }
    }
    for (const row of this.q.unreadCounts.all()) this.unread.set(row.recipient, row.n);
    this.idFloor = this.readIdFloor();
  }

  /** The high-water mark when it is above every stored message, else 0 (see idFloor). */
  private readIdFloor(): number {
    const high = Number(this.q.highWater.get()?.value ?? 0);
    return high > (this.q.newestMessage.get()?.id ?? 0) ? high : 0;
  }

  setMaxUnread(n: number): void {
    this.maxUnread = n;
  }

  /**
   * Records a handle as known, so mail to it is kept while it is offline, and as used now. The
   * use is written at most once an hour per handle: a hello must not cost a commit each time.
   */
  rememberHandle(handle: string, role: SessionRole): void {
    const at = this.now();
    // A row's handle stays a row's: a later tokenless visitor must not demote it.
    const current = this.roles.get(handle);
    if (current === role || current === 'row') {
      if (at - (this.lastSeen.get(handle) ?? 0) >= LAST_SEEN_GRANULARITY_MS) {
        this.q.touchHandle.run(at, handle);
        this.lastSeen.set(handle, at);
      }
      return;
    }
    const row = this.q.insertHandle.get({ handle, role, at }) as { next_seq: number } | undefined;
    this.roles.set(handle, role);
    this.lastSeen.set(handle, at);
    if (!this.nextSeq.has(handle)) this.nextSeq.set(handle, row?.next_seq ?? 1);
  }

  isKnown(handle: string): boolean {
    return this.roles.has(handle);
  }

  roleOf(handle: string): SessionRole | undefined {
    return this.roles.get(handle);
  }

  /** The operator gives a row's handle back: tokenless clients may take it again. */
  releaseRow(handle: string): boolean {
    if (this.roles.get(handle) !== 'row') return false;
    this.q.releaseRow.run(this.now(), handle);
    this.roles.set(handle, 'participant');
    return true;
  }

  /**
   * Forgets tokenless handles unused for `ttlMs` that hold no unread mail (`keep` says which are
   * online now). Rows and the operator are never forgotten. Returns the handles forgotten.
   */
  forgetIdleParticipants(ttlMs: number, keep: (handle: string) => boolean): string[] {
    const at = this.now();
    const forgotten = this.db.transaction(() => this.forgetIdleRows(ttlMs, keep, at))();
    this.dropForgotten(forgotten);
    return forgotten;
  }

  /** Inside a transaction: deletes the idle tokenless handles' rows; the caches follow after the commit. */
  private forgetIdleRows(ttlMs: number, keep: (handle: string) => boolean, at: number): string[] {
    const cutoff = at - ttlMs;
    for (const [handle, role] of this.roles) {
      if (role !== 'participant') continue;
      // Online handles count as used now; recent uses not yet written are written, so the DELETE spares them.
      const seen = keep(handle) ? at : (this.lastSeen.get(handle) ?? 0);
      if (seen >= cutoff) this.q.touchHandle.run(seen, handle);
    }
    return this.q.forgetIdle.all(cutoff).map((row) => row.handle);
  }

  private dropForgotten(handles: readonly string[]): void {
    for (const handle of handles) {
      this.roles.delete(handle);
      this.lastSeen.delete(handle);
      this.nextSeq.delete(handle);
      this.seqUnwritten.delete(handle);
      this.unread.delete(handle);
    }
  }

  knownHandles(): Array<{ handle: string; role: SessionRole; unread: number }> {
    return [...this.roles].map(([handle, role]) => ({ handle, role, unread: this.unread.get(handle) ?? 0 }));
  }

  /** The highest sequence given to this recipient so far (0 if none): a cursor for "newer than now". */
  lastSeq(handle: string): number {
    return (this.nextSeq.get(handle) ?? 1) - 1;
  }

  unreadCount(handle: string): number {
    return this.unread.get(handle) ?? 0;
  }

  /**
   * Group commit: every request in one transaction; outcomes in request order. Throws when the
   * commit fails (disk full, locked, I/O error): then nothing of the batch is stored, the caches
   * are as before (changes are staged until the commit returned), and nobody may be told "accepted".
   */
  acceptBatch(requests: readonly AcceptRequest[]): AcceptOutcome[] {
    const at = this.now();
    const staged = this.staged;
    staged.seq.clear();
    staged.unread.clear();
    staged.idFloor = this.idFloor;
    // Inside a caller's transaction (federation's apply) this is a savepoint, and no commit of its own.
    const commits = !this.db.inTransaction;
    const outcomes = this.acceptTransaction.immediate(requests, at, staged) as AcceptOutcome[];
    if (commits && this.fullSync) this.wal.coveredByFullCommit();
    for (const [to, next] of staged.seq) {
      this.nextSeq.set(to, next);
      this.seqUnwritten.add(to);
    }
    for (const [to, n] of staged.unread) this.unread.set(to, n);
    this.idFloor = staged.idFloor;
    return outcomes;
  }

  /** One new message inside the batch's transaction; counters move in `staged` only. */
  private acceptOne(r: AcceptRequest, at: number, staged: Staged): AcceptOutcome {
    for (const to of r.to) {
      if (!this.roles.has(to)) return { ok: false, error: swbError('UNKNOWN_PEER', `No session named ${to} is known to this hub.`, { to }) };
    }
    const full = this.skippedFull(r, staged);
    const depth = r.fromRemote ? 0 : this.budget.depthOf(r.sender, r.replyTo);
    const recipientsJson = JSON.stringify(r.to);
    // No hash of the content: a retry is caught by the unique key and compared with the row (same-message.ts).
    const asked = requestedKey(r.requestedTo, r.to, recipientsJson);
    const info = this.q.insertMessage.run(staged.idFloor > 0 ? staged.idFloor + 1 : null, r.sender, r.messageId, r.kind, r.text, r.replyTo, recipientsJson, asked, at, depth);
    if (info.changes === 0) return this.repeated(r);
    const id = Number(info.lastInsertRowid);
    // Refusals are decided after the insert (a retry of a stored message must get its receipt,
    // even if the inbox is full or the budget spent now); a refused new message is removed again in
    // the same transaction.
    const notFull = without(r.to, full);
    const budget = r.fromRemote ? null : this.budget.decide(r.sender, notFull, r.optional, depth, at);
    // Most sends skip nobody: no array made for them.
    const skipped = full.length === 0 && !budget?.skipped.length ? NO_SKIPS : [...full, ...(budget?.skipped ?? [])];
    const to = budget && budget.skipped.length > 0 ? without(notFull, budget.skipped) : notFull;
    const refusal = r.fromRemote ? null : (budget?.refusal ?? this.refusal(r, to, staged) ?? (to.length === 0 && skipped.length > 0 ? skipped[0]!.error : null));
    if (refusal) {
      // Its id was never told: the next message may take it (above the floor still, if there is one).
      this.q.deleteMessage.run(id);
      return { ok: false, error: refusal };
    }
    // Stored above the floor: max(id) + 1 is never a given id again.
    staged.idFloor = 0;
    if (skipped.length > 0) this.q.setRecipients.run(JSON.stringify(to), id);
    if (budget) this.budget.apply(r.sender, budget);
    const recipients: SendResult['recipients'] = [];
    // Receipts go back only to a sender on another node (handle@node), as schema 5's triggers decide.
    const remoteSender = r.sender.includes('@');
    for (const recipient of to) {
      const seq = staged.seq.get(recipient) ?? this.nextSeq.get(recipient) ?? 1;
      const delivered = r.live.has(recipient);
      this.q.insertDelivery.run(id, recipient, seq, delivered ? STATE_CODE.delivered : STATE_CODE.accepted, at, delivered ? at : null);
      if (delivered && remoteSender) this.q.queueDeliveredReceipt.run({ id, to: recipient, at });
      staged.seq.set(recipient, seq + 1);
      staged.unread.set(recipient, this.stagedUnread(recipient, staged) + 1);
      recipients.push({ to: recipient, seq, state: delivered ? 'delivered' : 'accepted' });
    }
    // One envelope per other node, whatever the number of its recipients (they share the message id there).
    // (Most mail names no other node: then no set is made.)
    let nodes: Set<string> | undefined;
    for (const recipient of to) {
      const at_ = recipient.indexOf('@');
      if (at_ > 0) (nodes ??= new Set()).add(recipient.slice(at_ + 1));
    }
    for (const node of nodes ?? []) this.q.insertOutboxMail.run(node, id, at);
    let repliedTo: { id: number; recipient: string; sender: string } | null = null;
    if (r.replyTo !== null) {
      const wasUnread = this.isUnread(r.replyTo, r.sender);
      if (this.q.markReplied.run(at, at, at, r.replyTo, r.sender).changes > 0) {
        // Read here, inside the transaction: after the commit a failed read would lose the receipt push.
        repliedTo = { id: r.replyTo, recipient: r.sender, sender: this.q.messageById.get(r.replyTo)?.sender ?? '' };
        if (wasUnread) staged.unread.set(r.sender, Math.max(0, this.stagedUnread(r.sender, staged) - 1));
      }
    }
    const message: MailItem = {
      id,
      messageId: r.messageId,
      from: r.sender,
      to,
      kind: r.kind,
      text: r.text,
      replyTo: r.replyTo,
      createdAt: at,
    };
    const result: SendResult = { id, messageId: r.messageId, duplicate: false, recipients };
    if (skipped.length > 0) {
      result.skipped = skipped.map((x) => ({ to: x.to, code: x.error.code, message: x.error.message, ...(x.error.details ? { details: x.error.details } : {}) }));
    }
    return { ok: true, result, message, repliedTo };
  }

  /** Broadcast recipients whose inbox is full: skipped, each with the refusal it would have had. */
  private skippedFull(r: AcceptRequest, staged: Staged): ReadonlyArray<{ to: string; error: SwbErrorValue }> {
    if (!r.optional || r.optional.size === 0 || this.maxUnread <= 0) return NO_SKIPS;
    return r.to.filter((to) => r.optional!.has(to) && this.stagedUnread(to, staged) >= this.maxUnread).map((to) => ({ to, error: this.queueFull(to) }));
  }

  private queueFull(to: string): SwbErrorValue {
    return swbError('QUEUE_FULL', `${to} already has ${this.maxUnread} unread messages; try again once it reads some.`, { to, limit: this.maxUnread });
  }

  /**
   * A receipt another node sent for mail this store sent there (`to` is `handle@node`). Runs inside
   * the caller's transaction; a receipt never moves a delivery back. Returns what to publish once
   * committed; `read` is 1 when the delivery stopped being unread, for `adjustUnread` after the commit.
   */
  applyRemoteReceipt(r: { sender: string; messageId: string; to: string; state: number; woken: boolean; how?: 'typed' | 'hook' | null; at: number }): { changes: StateChange[]; read: number } {
    const message = this.q.findBySenderId.get(r.sender, r.messageId);
    if (!message) return { changes: [], read: 0 };
    const changes: StateChange[] = [];
    const params = { id: message.id, to: r.to, state: r.state, at: r.at, how: r.how ?? null };
    const wasUnread = this.isUnread(message.id, r.to);
    if (r.woken && this.q.remoteWoken.run(params).changes > 0) changes.push({ id: message.id, sender: r.sender, to: r.to, state: 'woken', at: r.at });
    let read = 0;
    if (r.state > 0 && this.q.remoteReceipt.run(params).changes > 0) {
      changes.push({ id: message.id, sender: r.sender, to: r.to, state: stateName(r.state), at: r.at });
      if (wasUnread && r.state !== STATE_CODE.delivered) read = 1;
    }
    return { changes, read };
  }

  /** After a committed transaction of remote receipts: `read` deliveries per handle are no longer unread. */
  adjustUnread(read: ReadonlyMap<string, number>): void {
    for (const [h, n] of read) this.unread.set(h, Math.max(0, (this.unread.get(h) ?? 0) - n));
  }

  /** Re-reads every cache from disk: after a transaction around its writes (a gate's batch) failed to commit. */
  resyncCaches(): void {
    this.reloadCaches();
  }

  /** True when `sender` already stored a message with this id (a retry). */
  hasMessage(sender: string, messageId: string): boolean {
    return this.q.findBySenderId.get(sender, messageId) !== undefined;
  }

  private stagedUnread(handle: string, staged: Staged): number {
    return staged.unread.get(handle) ?? this.unread.get(handle) ?? 0;
  }

  /** A (sender, messageId) seen before: the same message is a retry, anything else a conflict. */
  private repeated(r: AcceptRequest): AcceptOutcome {
    const existing = this.q.findBySenderId.get(r.sender, r.messageId)!;
    if (!sameMessage(existing, r.requestedTo, r.kind, r.replyTo, r.text)) {
      return {
        ok: false,
        error: swbError('MESSAGE_ID_CONFLICT', `Message id ${r.messageId} was already used by ${r.sender} for a different message.`, {
          id: existing.id,
        }),
      };
    }
    const deliveries = this.q.deliveriesOf.all(existing.id);
    return {
      ok: true,
      result: {
        id: existing.id,
        messageId: existing.message_id,
        duplicate: true,
        recipients: deliveries.map((d) => ({ to: d.recipient, seq: d.seq, state: stateName(d.state) })),
      },
      message: null,
      repliedTo: null,
    };
  }

  /** Reasons to refuse a new message: a bad thread or a full inbox (of the recipients it still has). */
  private refusal(r: AcceptRequest, to: readonly string[], staged: Staged): SwbErrorValue | null {
    if (r.replyTo !== null && !this.q.deliveryFor.get(r.replyTo, r.sender)) {
      return swbError('INVALID_REPLY', `Message ${r.replyTo} was not sent to ${r.sender}, so it cannot be replied to.`, { replyTo: r.replyTo });
    }
    if (this.maxUnread > 0) {
      const full = to.find((h) => this.stagedUnread(h, staged) >= this.maxUnread);
      if (full) return this.queueFull(full);
    }
    return null;
  }

  private isUnread(message: number, recipient: string): boolean {
    const d = this.q.deliveryFor.get(message, recipient);
    return d !== undefined && d.parked_at === null && (d.state === STATE_CODE.accepted || d.state === STATE_CODE.delivered);
  }

  /** A recipient's mail with sequence above `after`, oldest first; unread ones are marked delivered unless peeking. */
  list(
    recipient: string,
    opts: { after?: number; unreadOnly?: boolean; limit?: number; peek?: boolean; maxBytes?: number },
  ): { items: MailItem[]; changes: StateChange[]; more: boolean } {
    const stmt = opts.unreadOnly ? this.q.inboxUnread : this.q.inbox;
    const limit = opts.limit ?? 200;
    const { rows, more } = takeWithin(stmt.iterate(recipient, opts.after ?? 0, limit + 1), limit, opts.maxBytes, (r) => toMailItem(r, r.seq, r.state));
    const at = this.now();
    const changes: StateChange[] = [];
    // A peek (e.g. `swb ask` watching for one reply) shows nothing to a human: not "delivered".
    // Only what is returned is marked: a page cut to fit a frame leaves the rest accepted.
    const pending = opts.peek ? [] : rows.filter((r) => r.state === STATE_CODE.accepted);
    if (pending.length > 0) {
      this.db.transaction(() => {
        for (const r of pending) {
          if (this.q.markDelivered.run(at, r.id, recipient).changes > 0) {
            changes.push({ id: r.id, sender: r.sender, to: recipient, state: 'delivered', at });
          }
        }
      })();
      for (const r of pending) r.state = STATE_CODE.delivered;
    }
    return { items: rows.map((r) => toMailItem(r, r.seq, r.state)), changes, more };
  }

  /** Marks messages read for this recipient; ids that are not theirs are reported, not fatal. */
  markRead(recipient: string, ids: readonly number[]): { changes: StateChange[]; notFound: number[] } {
    const at = this.now();
    const changes: StateChange[] = [];
    const notFound: number[] = [];
    let nowRead = 0;
    this.db.transaction(() => {
      for (const id of ids) {
        const d = this.q.deliveryFor.get(id, recipient);
        if (!d) {
          notFound.push(id);
          continue;
        }
        const wasUnread = d.parked_at === null && (d.state === STATE_CODE.accepted || d.state === STATE_CODE.delivered);
        if (this.q.markRead.run(at, at, id, recipient).changes > 0) {
          const sender = this.q.messageById.get(id)!.sender;
          changes.push({ id, sender, to: recipient, state: 'read', at });
          if (wasUnread) nowRead += 1;
        }
      }
    })();
    // After the commit: a failed transaction leaves the count as it was.
    if (nowRead > 0) this.unread.set(recipient, Math.max(0, (this.unread.get(recipient) ?? 0) - nowRead));
    return { changes, notFound };
  }

  /**
   * A row came back as a fresh conversation that never saw its unread mail: that mail is parked for
   * the operator (not unread for the row, not woken for, not expired) until re-delivered or discarded.
   */
  parkUnread(recipient: string): number {
    const parked = this.q.park.all(this.now(), recipient).length;
    if (parked > 0) this.unread.set(recipient, 0);
    return parked;
  }

  /** Recipients with parked mail, and how much. */
  parkedMail(): Array<{ recipient: string; count: number }> {
    return this.q.parkedCounts.all().map((r) => ({ recipient: r.recipient, count: r.n }));
  }

  /** The operator's review: parked mail is unread for the row again (and woken for as usual). */
  redeliverParked(recipient: string): number {
    const n = this.db.transaction(() => this.q.unpark.all(recipient).length)();
    this.unread.set(recipient, this.q.unreadOf.get(recipient)?.n ?? 0);
    return n;
  }

  /** The operator's review: parked mail will never reach the row; its receipts say expired. */
  discardParked(recipient: string): StateChange[] {
    const at = this.now();
    return this.q.discardParked.all({ at, recipient }).map((r) => ({ id: r.message, sender: r.sender, to: recipient, state: 'expired' as const, at }));
  }

  /**
   * The recipient was told of these messages: the wake controller typed a nudge ('typed'), or the
   * agent's own hook told it at the end of a turn ('hook'). An event beside the receipts.
   */
  recordWake(recipient: string, ids: readonly number[], how: 'typed' | 'hook' = 'typed'): StateChange[] {
    const at = this.now();
    const changes: StateChange[] = [];
    this.db.transaction(() => {
      for (const id of ids) {
        const msg = this.q.messageById.get(id);
        if (!msg || !this.q.deliveryFor.get(id, recipient)) continue;
        this.q.insertWake.run(recipient, id, at, how);
        if (this.q.markWoken.run(at, how, id, recipient).changes > 0) changes.push({ id, sender: msg.sender, to: recipient, state: 'woken', at });
      }
    })();
    return changes;
  }

  message(id: number): MailItem | undefined {
    const row = this.q.messageById.get(id);
    return row ? toMailItem(row) : undefined;
  }

  receipts(id: number): ReceiptResult | undefined {
    const row = this.q.messageById.get(id);
    if (!row) return undefined;
    const recipients: RecipientReceipt[] = this.q.deliveriesOf.all(id).map((d) => ({
      to: d.recipient,
      seq: d.seq,
      state: stateName(d.state),
      acceptedAt: d.accepted_at,
      deliveredAt: d.delivered_at,
      wokenAt: d.woken_at,
      wokenBy: d.woken_by === 'hook' ? 'hook' : d.woken_at !== null ? 'typed' : null,
      readAt: d.read_at,
      repliedAt: d.replied_at,
    }));
    return { id, messageId: row.message_id, from: row.sender, kind: row.kind as MessageKind, createdAt: row.created_at, recipients };
  }

  /** A page of all mail, newest first (operator's mail view): paged, never loaded whole. */
  history(opts: { before?: number; limit?: number; peer?: string; maxBytes?: number }): { items: MailItem[]; more: boolean } {
    const before = opts.before ?? Number.MAX_SAFE_INTEGER;
    const limit = opts.limit ?? 100;
    const rows = opts.peer ? this.q.historyPeer.iterate({ before, peer: opts.peer, limit: limit + 1 }) : this.q.historyAll.iterate(before, limit + 1);
    const page = takeWithin(rows, limit, opts.maxBytes, (r) => toMailItem(r));
    return { items: page.rows.map((r) => toMailItem(r)), more: page.more };
  }

  /** Expiry then retention, per the hub's settings; returns the receipts that changed. */
  sweep(opts: { expiryMs: number; retentionMs: number; forget?: { ttlMs: number; keep: (handle: string) => boolean } }): {
    changes: StateChange[];
    forgotten: string[];
  } {
    const at = this.now();
    const changes: StateChange[] = [];
    let forgotten: string[] = [];
    let seqsWritten: string[] = [];
    let idFloor = this.idFloor;
    // One transaction: expiry, retention and forgetting stand or fall together, and the caches are
    // only touched after the commit (a failure leaves both disk and caches as they were).
    this.db.transaction(() => {
      if (opts.expiryMs > 0) {
        for (const row of this.q.expire.all({ at, cutoff: at - opts.expiryMs })) {
          changes.push({ id: row.message, sender: row.sender, to: row.recipient, state: 'expired', at });
        }
      }
      if (opts.retentionMs > 0) {
        // The purge may delete a handle's newest deliveries: its next sequence must be on disk first.
        seqsWritten = this.writeNextSeqs();
        // And the newest messages: the highest id given is then kept in meta (schema 10, idFloor).
        const newest = this.q.newestMessage.get()?.id ?? 0;
        if (this.q.purge.run(at - opts.retentionMs).changes > 0 && (this.q.newestMessage.get()?.id ?? 0) < newest) {
          this.q.raiseHighWater.run({ id: newest });
          idFloor = Math.max(idFloor, newest);
        }
      }
      if (opts.forget && opts.forget.ttlMs > 0) forgotten = this.forgetIdleRows(opts.forget.ttlMs, opts.forget.keep, at);
    })();
    for (const c of changes) this.unread.set(c.to, Math.max(0, (this.unread.get(c.to) ?? 0) - 1));
    for (const h of seqsWritten) this.seqUnwritten.delete(h);
    this.idFloor = idFloor;
    this.dropForgotten(forgotten);
    return { changes, forgotten };
  }

  /** Inside a transaction: every next sequence the cache holds ahead of disk, written; returns those handles. */
  private writeNextSeqs(): string[] {
    const written: string[] = [];
    for (const h of this.seqUnwritten) {
      const next = this.nextSeq.get(h);
      if (next === undefined) continue;
      this.q.setNextSeq.run(next, h);
      written.push(h);
    }
    return written;
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}

/** `to` less the recipients skipped. */
function without(to: readonly string[], skipped: ReadonlyArray<{ to: string }>): string[] {
  if (skipped.length === 0) return [...to];
  const gone = new Set(skipped.map((x) => x.to));
  return to.filter((h) => !gone.has(h));
}

/**
 * Up to `limit` rows whose items fit in `maxBytes` of JSON (at least one, so a page always moves
 * on), and whether more remain. Reads rows one at a time: a page cut short loads no more.
 */
function takeWithin<R>(rows: IterableIterator<R>, limit: number, maxBytes: number | undefined, item: (row: R) => unknown): { rows: R[]; more: boolean } {
  const out: R[] = [];
  let bytes = 0;
  for (const row of rows) {
    if (out.length === limit) return { rows: out, more: true };
    if (maxBytes !== undefined) {
      bytes += Buffer.byteLength(JSON.stringify(item(row))) + 1;
      if (bytes > maxBytes && out.length > 0) return { rows: out, more: true };
    }
    out.push(row);
  }
  return { rows: out, more: false };
}

function toMailItem(row: MessageRow, seq?: number, state?: number): MailItem {
  const item: MailItem = {
    id: row.id,
    messageId: row.message_id,
    from: row.sender,
    to: JSON.parse(row.recipients) as string[],
    kind: row.kind as MessageKind,
    text: row.text,
    replyTo: row.reply_to,
    createdAt: row.created_at,
  };
  if (seq !== undefined) item.seq = seq;
  if (state !== undefined) item.state = stateName(state);
  return item;
}
