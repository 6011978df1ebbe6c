// The store's side of mail across machines, kept here beside the envelopes it reads and writes
// (it imports them; the store below knows nothing of federation): the outbox read in order and
// emptied as NATS acknowledges it, and envelopes from other nodes applied in one transaction with
// the chain positions they advance. Custody: a message is only removed from the outbox once the
// stream holds it, and an envelope is only acknowledged to the stream once this commit is on disk;
// a crash anywhere in between repeats work, and the chain (seq/prev per origin) makes a repeat a
// no-op and a gap wait.
import type { Statement } from 'better-sqlite3';
import type { Envelope, Item, MailBody, ReceiptBody } from './envelope.js';
import { ENVELOPE_VERSION, MAX_ENVELOPE_JSON, MAX_ITEMS } from './envelope.js';
import type { AcceptOutcome, AcceptRequest, MailStore, MessageRow, StateChange } from '../store/mail-store.js';
import { STATE_CODE } from '../store/receipt-state.js';
import { toWellFormed } from '../text/well-formed.js';
import { commitWithoutSync } from '../store/open-database.js';
import type { WalSync } from '../store/wal-sync.js';

/** An outbox row with its envelope built; `prev` is filled in by the publisher in id order. */
export interface OutboxEntry {
  id: number;
  node: string;
  kind: 'mail' | 'receipt';
  body: MailBody | ReceiptBody;
  createdAt: number;
}

export type Verdict = 'applied' | 'duplicate' | 'gap';

/** Deliveries of a chain's first run (not at its start) before it is taken as the start. */
export const FIRST_RUN_PATIENCE = 5;
/**
 * Deliveries of a run past a gap before the gap is given up on. The stream redelivers a run
 * every half second while it waits, so this is some thirty seconds: far longer than any reorder
 * of a live link; what is still missing then was lost by NATS itself (a server that lost its
 * store), and waiting longer would only stop everything behind it.
 */
export const GAP_PATIENCE = 60;

export interface IncomingResult {
  verdicts: Verdict[];
  /** Mail stored now, for the hub to push and wake as it does after a local commit. */
  accepted: Array<{ request: AcceptRequest; outcome: AcceptOutcome }>;
  /** Receipt changes of this node's own messages, to publish to their senders. */
  changes: StateChange[];
  /** Runs of outbox ids given up on (GAP_PATIENCE): lost before they reached this node. */
  skipped: Array<{ origin: string; after: number; upTo: number }>;
}

export class FederationStore {
  private readonly q: ReturnType<FederationStore['prepare']>;
  /** This store's epoch (migration 5 drew it): part of every dedup id this node publishes. */
  readonly epoch: string;
  /** Makes what `applyIncoming` committed durable, off the event loop (the store's: its FULL commits cover it too). */
  private readonly wal: WalSync;

  constructor(
    private readonly mail: MailStore,
    /** This node's name. */
    readonly node: string,
  ) {
    this.q = this.prepare();
    this.wal = mail.wal;
    this.epoch = this.q.epoch.get()!.value;
  }

  private prepare() {
    const db = this.mail.db;
    const s = <T = unknown>(sql: string) => db.prepare(sql) as Statement<unknown[], T>;
    return {
      epoch: s<{ value: string }>(`SELECT value FROM meta WHERE key = 'epoch'`),
      pending: s<{ id: number; node: string; kind: string; message: number | null; body: string | null; created_at: number }>(
        `SELECT id, node, kind, message, body, created_at FROM outbox ORDER BY id LIMIT ?`,
      ),
      message: s<MessageRow>(`SELECT * FROM messages WHERE id = ?`),
      deleteUpTo: s(`DELETE FROM outbox WHERE node = ? AND id <= ?`),
      deleteOne: s(`DELETE FROM outbox WHERE id = ?`),
      lastOut: s<{ node: string; last_id: number }>(`SELECT node, last_id FROM link_out`),
      setLastOut: s(`INSERT INTO link_out (node, last_id) VALUES (?, ?) ON CONFLICT (node) DO UPDATE SET last_id = excluded.last_id`),
      queued: s<{ n: number; oldest: number | null }>(`SELECT count(*) AS n, min(created_at) AS oldest FROM outbox`),
      lastIn: s<{ last_seq: number }>(`SELECT last_seq FROM link_in WHERE origin = ? AND epoch = ?`),
      setLastIn: s(`INSERT INTO link_in (origin, epoch, last_seq) VALUES (?, ?, ?) ON CONFLICT (origin, epoch) DO UPDATE SET last_seq = excluded.last_seq`),
      byOrigin: s<{ id: number }>(`SELECT id FROM messages WHERE sender = ? AND message_id = ?`),
      expiredReceipt: s(`INSERT INTO outbox (node, kind, message, body, created_at) VALUES (?, 'receipt', NULL, ?, ?)`),
    };
  }

  /** The last outbox id published to each node (the `prev` of the next envelope to it). */
  lastPublished(): Map<string, number> {
    return new Map(this.q.lastOut.all().map((r) => [r.node, r.last_id]));
  }

  /** Up to `limit` outbox rows in id order, each with its envelope body. */
  pending(limit: number): OutboxEntry[] {
    const out: OutboxEntry[] = [];
    for (const row of this.q.pending.all(limit)) {
      if (row.kind === 'receipt') {
        // Written by SQL (json_object): woken is 0/1 there.
        const { how, ...b } = JSON.parse(row.body!) as Omit<ReceiptBody, 't' | 'woken'> & { woken: unknown };
        const body: ReceiptBody = { t: 'receipt', ...b, woken: b.woken === true || b.woken === 1, ...(how ? { how } : {}) };
        out.push({ id: row.id, node: row.node, kind: 'receipt', body, createdAt: row.created_at });
        continue;
      }
      const m = row.message === null ? undefined : this.q.message.get(row.message);
      // The message was purged (retention) before it could go: nothing left to send.
      if (!m) {
        this.q.deleteOne.run(row.id);
        continue;
      }
      out.push({ id: row.id, node: row.node, kind: 'mail', body: this.mailBody(m, row.node), createdAt: row.created_at });
    }
    return out;
  }

  private mailBody(m: MessageRow, node: string): MailBody {
    const suffix = `@${node}`;
    const to = (JSON.parse(m.recipients) as string[]).filter((h) => h.endsWith(suffix)).map((h) => h.slice(0, -suffix.length));
    let replyTo: MailBody['replyTo'] = null;
    if (m.reply_to !== null) {
      const original = this.q.message.get(m.reply_to);
      // Only a message that came from that node can be named there.
      if (original?.sender.endsWith(suffix)) replyTo = { sender: original.sender.slice(0, -suffix.length), messageId: original.message_id };
    }
    return { t: 'mail', from: m.sender, messageId: m.message_id, to, kind: m.kind as MailBody['kind'], text: m.text, replyTo, createdAt: m.created_at };
  }

  /**
   * The stream holds these (a prefix of what `pending` gave, in order): they leave the outbox.
   * Committed without waiting for the disk (synchronous = NORMAL, for this one commit): the WAL
   * keeps it in order behind every earlier commit, and if a power cut loses it, those envelopes
   * are only published again and dropped as duplicates by their receivers. Custody never rests on it.
   */
  published(upToPerNode: ReadonlyMap<string, number>): void {
    const db = this.mail.db;
    commitWithoutSync(db, () =>
      db.transaction(() => {
        for (const [node, id] of upToPerNode) {
          this.q.deleteUpTo.run(node, id);
          this.q.setLastOut.run(node, id);
        }
      })(),
    );
  }

  /** What waits for the link: mail and receipts in the outbox, and since when. */
  queued(): { count: number; oldestAt: number | null } {
    const all = this.q.queued.get()!;
    return { count: all.n, oldestAt: all.oldest };
  }

  /**
   * Applies envelopes from other nodes (in stream order) in ONE transaction. Each gets a verdict:
   * applied (stored now), duplicate (seen before: acknowledge and drop) or gap (an earlier one
   * from that origin is missing: leave it unacknowledged, it comes again). Throws if the commit
   * fails; then nothing was applied and nothing may be acknowledged.
   * The commit does not wait for the disk (the stream keeps custody until the acknowledgement):
   * await `durable()` before acknowledging any verdict or publishing what it queued.
   * `known(handle)`: a local session that may get mail; `live(handle)`: it hears pushes now.
   */
  applyIncoming(
    envelopes: readonly Envelope[],
    known: (handle: string) => boolean,
    live: (handle: string) => boolean,
    now: number,
    /** How often the stream delivered each envelope (1 = the first time); absent: the first time. */
    deliveries: readonly number[] = [],
  ): IncomingResult {
    const verdicts: Verdict[] = [];
    const skipped: IncomingResult['skipped'] = [];
    const requests: AcceptRequest[] = [];
    const changes: StateChange[] = [];
    /** Deliveries of this node's mail the receipts took out of unread, per recipient there. */
    const read = new Map<string, number>();
    const run = this.mail.db.transaction(() => {
      const last = new Map<string, number>();
      envelopes.forEach((e, i) => {
        const key = `${e.origin}\0${e.epoch}`;
        const seen = last.has(key) ? last.get(key) : this.q.lastIn.get(e.origin, e.epoch)?.last_seq;
        if (seen !== undefined && e.seq <= seen) return void verdicts.push('duplicate');
        // A run starting past what we have waits for the one before it; an overlapping run
        // (published again, grouped otherwise) adds only what is new. A chain this store never
        // saw starts at prev 0; one whose start is not here (this store is newer than the chain)
        // starts wherever its first run is, once that run came FIRST_RUN_PATIENCE times without
        // an earlier one turning up.
        const tries = deliveries[i] ?? 1;
        if (seen !== undefined ? e.prev > seen && tries < GAP_PATIENCE : e.prev !== 0 && tries < FIRST_RUN_PATIENCE) return void verdicts.push('gap');
        if (seen !== undefined && e.prev > seen) skipped.push({ origin: e.origin, after: seen, upTo: e.prev });
        last.set(key, e.seq);
        verdicts.push('applied');
        for (const item of e.items) {
          if (seen !== undefined && item.id <= seen) continue;
          if (item.t === 'mail') {
            const request = this.remoteRequest(e.origin, item, known, live, now);
            if (request) requests.push(request);
          } else {
            const to = `${item.to}@${e.origin}`;
            const applied = this.mail.applyRemoteReceipt({ sender: item.sender, messageId: item.messageId, to, state: item.state, woken: item.woken, how: item.how ?? null, at: item.at });
            changes.push(...applied.changes);
            if (applied.read > 0) read.set(to, (read.get(to) ?? 0) + applied.read);
          }
        }
      });
      for (const [key, seq] of last) {
        const [origin, epoch] = key.split('\0') as [string, string];
        this.q.setLastIn.run(origin, epoch, seq);
      }
      return requests.length > 0 ? this.mail.acceptBatch(requests) : [];
    });
    let outcomes: AcceptOutcome[];
    try {
      outcomes = this.wal.commitUnsynced(this.mail.db, () => run.immediate());
    } catch (err) {
      this.mail.resyncCaches();
      throw err;
    }
    this.mail.adjustUnread(read);
    return { verdicts, accepted: requests.map((request, i) => ({ request, outcome: outcomes[i]! })), changes, skipped };
  }

  /**
   * Resolves once everything `applyIncoming` committed is on disk (at once when it is); rejects
   * when the fsync failed. `graceMs`: a local group commit within that time covers it instead.
   */
  durable(graceMs = 0): Promise<void> {
    return this.wal.durable(graceMs);
  }

  /** The request that stores a remote message here; unknown recipients get an expired receipt back. */
  private remoteRequest(origin: string, e: MailBody, known: (handle: string) => boolean, live: (handle: string) => boolean, now: number): AcceptRequest | null {
    const sender = `${e.from}@${origin}`;
    const to = [...new Set(e.to)].filter((h) => known(h));
    for (const h of e.to) {
      if (to.includes(h)) continue;
      const body: Omit<ReceiptBody, 't'> = { sender: e.from, messageId: e.messageId, to: h, state: STATE_CODE.expired, woken: false, at: now };
      this.q.expiredReceipt.run(origin, JSON.stringify(body), now);
    }
    if (to.length === 0) return null;
    // Replies name their sender as a remote session here, so they can be answered back.
    this.mail.rememberHandle(sender, 'remote');
    const replyTo = e.replyTo ? (this.q.byOrigin.get(e.replyTo.sender, e.replyTo.messageId)?.id ?? null) : null;
    return {
      sender,
      to,
      requestedTo: e.to,
      // As a local send is: no lone surrogates reach the store (sanitize does the rest on screen).
      text: toWellFormed(e.text),
      kind: e.kind,
      replyTo,
      messageId: e.messageId,
      live: new Set(to.filter((h) => live(h))),
      fromRemote: true,
    };
  }

  /** An outbox row whose message is gone: dropped from the queue. */
  dropEntry(id: number): void {
    this.q.deleteOne.run(id);
  }
}

/** An envelope to publish: its node, the envelope, and its JSON. */
export interface OutgoingEnvelope {
  node: string;
  envelope: Envelope;
  json: string;
}

/**
 * Groups outbox entries (in id order) into envelopes per destination node, each a run of that
 * node's chain: at most MAX_ITEMS items and about MAX_ENVELOPE_JSON bytes. `lastOut` is the last id
 * published to each node (the first envelope's prev); envelopes come out in the order of their
 * first entry, and per node in chain order.
 */
export function groupIntoEnvelopes(entries: readonly OutboxEntry[], lastOut: ReadonlyMap<string, number>, origin: string, epoch: string): OutgoingEnvelope[] {
  const out: OutgoingEnvelope[] = [];
  const open = new Map<string, { envelope: Envelope; bytes: number; at: number }>();
  for (const e of entries) {
    const item = { ...e.body, id: e.id } as Item;
    // Bytes, as NATS counts its payload (text in CJK is three bytes a character).
    const size = Buffer.byteLength(JSON.stringify(item), 'utf8');
    const cur = open.get(e.node);
    if (cur && cur.envelope.items.length < MAX_ITEMS && cur.bytes + size <= MAX_ENVELOPE_JSON) {
      cur.envelope.items.push(item);
      cur.envelope.seq = e.id;
      cur.bytes += size + 1;
      continue;
    }
    const prev = cur ? cur.envelope.seq : (lastOut.get(e.node) ?? 0);
    const envelope: Envelope = { v: ENVELOPE_VERSION, origin, epoch, seq: e.id, prev, items: [item] };
    open.set(e.node, { envelope, bytes: size + 200, at: out.length });
    out.push({ node: e.node, envelope, json: '' });
  }
  for (const o of out) o.json = JSON.stringify(o.envelope);
  return out;
}
