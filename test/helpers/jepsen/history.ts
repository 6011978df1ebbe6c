// The Jepsen-style test's history (every operation with its outcome and times) and the checker
// that judges it against what mail.db holds after the run. Pure functions over plain data, so the
// checker's verdict can be read, and re-run, without the processes that produced it.
import { ERROR_CODES, rpcNumberFor, type ErrorCode } from '../../../src/protocol/error-codes.js';

export const RECEIPT_ORDER = ['accepted', 'delivered', 'read', 'replied'] as const;
export type ObservedState = (typeof RECEIPT_ORDER)[number] | 'expired';

/** Codes that say "this request is wrong and always will be": a sender stops retrying on these. */
export const PERMANENT_CODES: ReadonlySet<string> = new Set([
  'BAD_FRAME',
  'FRAME_TOO_LARGE',
  'BAD_REQUEST',
  'UNKNOWN_METHOD',
  'UNKNOWN_PEER',
  'AMBIGUOUS_TARGET',
  'MESSAGE_TOO_LARGE',
  'MESSAGE_ID_CONFLICT',
  'INVALID_REPLY',
  'NOT_FOUND',
  'EXPIRED',
]);

export interface PlannedMessage {
  sender: string;
  /** The sender's sequence number for it (1, 2, ...): it is sent only after n-1 got a definite answer. */
  n: number;
  messageId: string;
  to: string[];
  text: string;
  kind: string;
  replyTo: number | null;
}

/** One operation as the client saw it: invoked, then ok / error / indeterminate at completion. */
export interface Op {
  process: string;
  method: string;
  /** Connection serial (all connections of the run are numbered). */
  conn: number;
  invokedAt: number;
  completedAt: number;
  outcome: 'ok' | 'error' | 'indeterminate';
  code?: string | undefined;
  rpcCode?: number | undefined;
  errorMessage?: string;
  reason?: string;
  /** mail.send only. */
  messageId?: string;
  attempt?: number;
  id?: number;
  duplicate?: boolean;
}

/** A receipt state seen for (message id, recipient); `exact` when the hub reported it, else a lower bound implied by an ok answer. */
export interface Observation {
  id: number;
  to: string;
  state: ObservedState;
  exact: boolean;
  invokedAt: number;
  completedAt: number;
  source: string;
  process: string;
}

export interface StoredMessage {
  id: number;
  sender: string;
  message_id: string;
  text: string;
  kind: string;
  reply_to: number | null;
  recipients: string;
}

export interface StoredDelivery {
  message: number;
  recipient: string;
  seq: number;
  state: number;
}

export interface CheckInput {
  planned: PlannedMessage[];
  ops: Op[];
  observations: Observation[];
  messages: StoredMessage[];
  deliveries: StoredDelivery[];
  /** Handles whose mail this workload sent (stored messages from anyone else are not judged). */
  workloadSenders: ReadonlySet<string>;
}

export interface Verdict {
  /** (1) acknowledged messages missing, stored more than once, with the wrong recipients or id. */
  lost: string[];
  /** (2) a messageId stored twice. */
  duplicates: string[];
  /** (3) a receipt seen to move backwards (also against the final state in mail.db). */
  regressions: string[];
  /** (4) per (sender, recipient): sequence numbers not increasing in acceptance order. */
  reordered: string[];
  /** (6) error answers without a code from error-codes.ts, or with the wrong JSON-RPC number. */
  badErrorCodes: string[];
  /** Stored messages nobody sent, or stored although every answer to them was a definite error. */
  phantoms: string[];
  /** Valid sends refused with a permanent error (this workload only sends valid mail). */
  refusedForGood: string[];
  stats: {
    planned: number;
    sendAttempts: number;
    accepted: number;
    retries: number;
    indeterminateSends: number;
    storedUnacknowledged: number;
    duplicateAnswers: number;
    errorsByCode: Record<string, number>;
    otherOps: number;
    observations: number;
  };
}

const STATE_BY_CODE = ['accepted', 'delivered', 'read', 'replied', 'expired'] as const;

function rank(state: ObservedState): number {
  // expired leaves "unread" sideways; it may follow accepted/delivered only, so rank it after them.
  return state === 'expired' ? 2 : RECEIPT_ORDER.indexOf(state);
}

export function checkHistory(input: CheckInput): Verdict {
  const { planned, ops, observations, messages, deliveries } = input;
  const sends = ops.filter((o) => o.method === 'mail.send');
  const byMessageId = new Map<string, Op[]>();
  for (const s of sends) {
    if (!byMessageId.has(s.messageId!)) byMessageId.set(s.messageId!, []);
    byMessageId.get(s.messageId!)!.push(s);
  }
  const storedByKey = new Map<string, StoredMessage[]>();
  for (const m of messages) {
    const key = `${m.sender}\u0000${m.message_id}`;
    if (!storedByKey.has(key)) storedByKey.set(key, []);
    storedByKey.get(key)!.push(m);
  }
  const deliveriesOf = new Map<number, StoredDelivery[]>();
  for (const d of deliveries) {
    if (!deliveriesOf.has(d.message)) deliveriesOf.set(d.message, []);
    deliveriesOf.get(d.message)!.push(d);
  }

  const lost: string[] = [];
  const phantoms: string[] = [];
  const refusedForGood: string[] = [];
  let accepted = 0;
  let storedUnacknowledged = 0;
  const plannedById = new Map(planned.map((p) => [p.messageId, p]));
  for (const p of planned) {
    const attempts = byMessageId.get(p.messageId) ?? [];
    const oks = attempts.filter((a) => a.outcome === 'ok');
    const stored = storedByKey.get(`${p.sender}\u0000${p.messageId}`) ?? [];
    for (const a of attempts) {
      if (a.outcome === 'error' && PERMANENT_CODES.has(a.code ?? '')) {
        refusedForGood.push(`${p.messageId} attempt ${a.attempt}: ${a.code} (${a.errorMessage})`);
      }
    }
    if (oks.length === 0) {
      if (stored.length > 0) {
        storedUnacknowledged += 1;
        if (attempts.length > 0 && attempts.every((a) => a.outcome === 'error')) {
          phantoms.push(`${p.messageId} is stored (id ${stored[0]!.id}) but every answer was an error: ${attempts.map((a) => a.code).join(', ')}`);
        }
      }
      continue;
    }
    accepted += 1;
    if (stored.length !== 1) {
      lost.push(`${p.messageId} was accepted (id ${oks[0]!.id}) but mail.db holds ${stored.length} copies`);
      continue;
    }
    const row = stored[0]!;
    const ids = [...new Set(oks.map((o) => o.id))];
    if (ids.length !== 1 || ids[0] !== row.id) lost.push(`${p.messageId}: ok answers named ids ${ids.join(', ')}, mail.db has id ${row.id}`);
    if (row.text !== p.text) lost.push(`${p.messageId}: stored text ${JSON.stringify(row.text)} is not the text sent`);
    const ds = deliveriesOf.get(row.id) ?? [];
    const got = ds.map((d) => d.recipient).sort();
    const want = [...new Set(p.to)].sort();
    if (got.join(',') !== want.join(',')) lost.push(`${p.messageId} (id ${row.id}): deliveries to [${got.join(',')}], sent to [${want.join(',')}]`);
  }

  for (const m of messages) {
    if (!input.workloadSenders.has(m.sender)) continue;
    const p = plannedById.get(m.message_id);
    if (!p || p.sender !== m.sender) phantoms.push(`stored message ${m.id} (${m.sender}/${m.message_id}) was never sent by this workload`);
    else if (m.text !== p.text) phantoms.push(`stored message ${m.id} (${m.message_id}) has text nobody sent`);
  }

  // (2) A messageId stored twice (the workload's ids are globally unique: they start with the sender).
  const duplicates: string[] = [];
  const countByMessageId = new Map<string, number[]>();
  for (const m of messages) {
    if (!countByMessageId.has(m.message_id)) countByMessageId.set(m.message_id, []);
    countByMessageId.get(m.message_id)!.push(m.id);
  }
  for (const [mid, idList] of countByMessageId) if (idList.length > 1) duplicates.push(`${mid} stored ${idList.length} times: ids ${idList.join(', ')}`);

  // (3) Receipts never move backwards. An observation B must rank at least as high as any A that
  // completed before B was invoked (concurrent ones may be ordered either way); the final state in
  // mail.db comes after everything.
  const regressions: string[] = [];
  const obsByKey = new Map<string, Observation[]>();
  for (const o of observations) {
    const key = `${o.id}\u0000${o.to}`;
    if (!obsByKey.has(key)) obsByKey.set(key, []);
    obsByKey.get(key)!.push(o);
  }
  const finalState = new Map<string, ObservedState>();
  for (const d of deliveries) finalState.set(`${d.message}\u0000${d.recipient}`, STATE_BY_CODE[d.state] ?? 'accepted');
  for (const [key, list] of obsByKey) {
    const byCompletion = [...list].sort((a, b) => a.completedAt - b.completedAt);
    for (const b of list) {
      if (!b.exact) continue;
      for (const a of byCompletion) {
        if (a.completedAt >= b.invokedAt) break;
        if (rank(a.state) > rank(b.state)) {
          regressions.push(
            `message ${b.id} → ${b.to}: ${a.state} (${a.source} by ${a.process}, done ${a.completedAt.toFixed(0)} ms) then ${b.state} (${b.source} by ${b.process}, asked ${b.invokedAt.toFixed(0)} ms)`,
          );
          break;
        }
      }
    }
    const final = finalState.get(key);
    const highest = byCompletion.reduce((m, o) => (rank(o.state) > rank(m.state) ? o : m), byCompletion[0]!);
    if (final === undefined) {
      regressions.push(`message ${highest.id} → ${highest.to}: seen ${highest.state} (${highest.source}), no delivery in mail.db at the end`);
    } else if (rank(final) < rank(highest.state)) {
      regressions.push(`message ${highest.id} → ${highest.to}: seen ${highest.state} (${highest.source} by ${highest.process}), ${final} in mail.db at the end`);
    }
  }

  // (4) Per (sender, recipient), seq grows in the order the sender's messages were first accepted.
  const reordered: string[] = [];
  const seqOf = new Map<string, number>();
  for (const d of deliveries) seqOf.set(`${d.message}\u0000${d.recipient}`, d.seq);
  const firstOk = new Map<string, Op>();
  for (const s of sends) {
    if (s.outcome !== 'ok') continue;
    const prev = firstOk.get(s.messageId!);
    if (!prev || s.completedAt < prev.completedAt) firstOk.set(s.messageId!, s);
  }
  const perSender = new Map<string, PlannedMessage[]>();
  for (const p of planned) {
    if (!firstOk.has(p.messageId)) continue;
    if (!perSender.has(p.sender)) perSender.set(p.sender, []);
    perSender.get(p.sender)!.push(p);
  }
  for (const [sender, list] of perSender) {
    list.sort((a, b) => firstOk.get(a.messageId)!.completedAt - firstOk.get(b.messageId)!.completedAt);
    for (let i = 1; i < list.length; i++) {
      if (list[i]!.n < list[i - 1]!.n) reordered.push(`${sender}: ${list[i]!.messageId} was first accepted after ${list[i - 1]!.messageId} (the workload sends in order)`);
    }
    const last = new Map<string, { seq: number; messageId: string }>();
    for (const p of list) {
      const id = firstOk.get(p.messageId)!.id!;
      for (const to of new Set(p.to)) {
        const seq = seqOf.get(`${id}\u0000${to}`);
        if (seq === undefined) continue; // reported as lost above
        const prev = last.get(to);
        if (prev && seq <= prev.seq) reordered.push(`${sender} → ${to}: ${p.messageId} has seq ${seq}, after ${prev.messageId} with seq ${prev.seq}`);
        last.set(to, { seq, messageId: p.messageId });
      }
    }
  }

  // (6) Every error answer carries a code from error-codes.ts, with its documented JSON-RPC number.
  const badErrorCodes: string[] = [];
  const errorsByCode: Record<string, number> = {};
  for (const o of ops) {
    if (o.outcome !== 'error') continue;
    const code = o.code ?? '(none)';
    errorsByCode[code] = (errorsByCode[code] ?? 0) + 1;
    if (!(ERROR_CODES as readonly string[]).includes(code)) {
      badErrorCodes.push(`${o.process} ${o.method}: error without a known code: ${code} ${JSON.stringify(o.errorMessage)}`);
    } else if (o.rpcCode !== rpcNumberFor(code as ErrorCode)) {
      badErrorCodes.push(`${o.process} ${o.method}: ${code} came with JSON-RPC code ${o.rpcCode}, expected ${rpcNumberFor(code as ErrorCode)}`);
    }
  }

  const perMessage = [...byMessageId.values()];
  return {
    lost,
    duplicates,
    regressions,
    reordered,
    badErrorCodes,
    phantoms,
    refusedForGood,
    stats: {
      planned: planned.length,
      sendAttempts: sends.length,
      accepted,
      retries: perMessage.reduce((n, list) => n + Math.max(0, list.length - 1), 0),
      indeterminateSends: sends.filter((s) => s.outcome === 'indeterminate').length,
      storedUnacknowledged,
      duplicateAnswers: sends.filter((s) => s.outcome === 'ok' && s.duplicate).length,
      errorsByCode,
      otherOps: ops.length - sends.length,
      observations: observations.length,
    },
  };
}
