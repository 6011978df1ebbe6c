// The Jepsen-style test's clients: senders that mail numbered messages one after another (each
// retried with the same messageId, on a new connection, until a definite answer or the end of the
// run), and readers that list, read, reply to and look up receipts of their mail. Every operation
// goes into the history with its outcome and times; every receipt state seen, into observations.
//
// The short pauses here (think time, a back-off after a refused connect) shape the load; nothing
// here waits for a condition of the test with a sleep.
import { DeadlineConnection, type Outcome } from './deadline-client.js';
import { PERMANENT_CODES, type Observation, type ObservedState, type Op, type PlannedMessage } from './history.js';

export interface WorkloadContext {
  socketPath: string;
  /** ms since the start of the run (monotonic). */
  clock: () => number;
  /** Client-side deadline for a connect and for each request. */
  deadlineMs: number;
  running: () => boolean;
  history: History;
}

export class History {
  readonly ops: Op[] = [];
  readonly observations: Observation[] = [];
  readonly planned: PlannedMessage[] = [];
  readonly connectFailures = new Map<string, number>();
  connections = 0;
  /** Accepted messages per recipient (id), for readers to look up receipts of mail not listed yet. */
  readonly acceptedTo = new Map<string, number[]>();

  observe(o: Observation): void {
    this.observations.push(o);
  }
}

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** One handle's connection: connect + hello on demand, dropped after anything indeterminate. */
export class Session {
  private conn: DeadlineConnection | null = null;
  private connSerial = 0;

  constructor(
    readonly handle: string,
    private readonly ctx: WorkloadContext,
    private readonly random: () => number,
  ) {}

  /** A connection that said hello, or null once the run is over. */
  async connected(): Promise<DeadlineConnection | null> {
    const { ctx } = this;
    while (ctx.running()) {
      if (this.conn && !this.conn.closed) return this.conn;
      this.conn = null;
      const c = await DeadlineConnection.connect(ctx.socketPath, ctx.deadlineMs);
      if (!c.ok) {
        ctx.history.connectFailures.set(c.reason, (ctx.history.connectFailures.get(c.reason) ?? 0) + 1);
        await pause(20 + this.random() * 40);
        continue;
      }
      this.connSerial = ++ctx.history.connections;
      const hello = await this.record(c.conn, 'hello', { version: 1, session: this.handle, client: 'jepsen' }, {});
      if (hello.kind === 'ok') {
        this.conn = c.conn;
        return c.conn;
      }
      c.conn.destroy();
      // SESSION_COLLISION: the hub has not yet seen our previous connection close.
      await pause(20 + this.random() * 40);
    }
    return null;
  }

  /** Calls `method` on the current connection and records the operation. */
  async call(method: string, params: Record<string, unknown>, extra: Partial<Op> = {}): Promise<Outcome> {
    const conn = await this.connected();
    if (!conn) return { kind: 'indeterminate', reason: 'closed' };
    const out = await this.record(conn, method, params, extra);
    if (out.kind === 'indeterminate') this.drop();
    return out;
  }

  private async record(conn: DeadlineConnection, method: string, params: Record<string, unknown>, extra: Partial<Op>): Promise<Outcome> {
    const invokedAt = this.ctx.clock();
    const out = await conn.request(method, params, this.ctx.deadlineMs);
    const op: Op = { process: this.handle, method, conn: this.connSerial, invokedAt, completedAt: this.ctx.clock(), outcome: out.kind, ...extra };
    if (out.kind === 'error') {
      op.code = out.code;
      op.rpcCode = out.rpcCode;
      op.errorMessage = out.message;
    } else if (out.kind === 'indeterminate') {
      op.reason = out.reason;
    } else if (method === 'mail.send') {
      op.id = out.result?.id;
      op.duplicate = out.result?.duplicate;
    }
    this.ctx.history.ops.push(op);
    return out;
  }

  drop(): void {
    this.conn?.destroy();
    this.conn = null;
  }
}

/**
 * Sends one planned message until a definite answer: ok, or a permanent refusal. Lost answers and
 * transient errors (INTERNAL, RATE_LIMITED, QUEUE_FULL, ...) are retried with the same messageId;
 * a lost answer on a new connection. Returns 'ended' when the run ends first.
 */
export async function sendUntilDefinite(session: Session, p: PlannedMessage, ctx: WorkloadContext, random: () => number): Promise<'ok' | 'refused' | 'ended'> {
  const params: Record<string, unknown> = { to: p.to, text: p.text, kind: p.kind, messageId: p.messageId };
  if (p.replyTo !== null) params.replyTo = p.replyTo;
  for (let attempt = 1; ctx.running(); attempt++) {
    if (!(await session.connected())) break;
    const invokedAt = ctx.clock();
    const out = await session.call('mail.send', params, { messageId: p.messageId, attempt });
    if (out.kind === 'ok') {
      const result = out.result as { id: number; recipients: Array<{ to: string; state: ObservedState }> };
      const completedAt = ctx.clock();
      for (const r of result.recipients) {
        ctx.history.observe({ id: result.id, to: r.to, state: r.state, exact: true, invokedAt, completedAt, source: 'mail.send', process: p.sender });
        if (!ctx.history.acceptedTo.has(r.to)) ctx.history.acceptedTo.set(r.to, []);
        ctx.history.acceptedTo.get(r.to)!.push(result.id);
      }
      if (p.replyTo !== null) {
        ctx.history.observe({ id: p.replyTo, to: p.sender, state: 'replied', exact: false, invokedAt, completedAt, source: 'reply accepted', process: p.sender });
      }
      return 'ok';
    }
    if (out.kind === 'indeterminate') continue;
    if (PERMANENT_CODES.has(out.code ?? '')) return 'refused';
    if (out.code === 'UNAUTHENTICATED' || out.code === 'SESSION_COLLISION') session.drop();
    const retryAfter = typeof out.details?.retryAfterMs === 'number' ? out.details.retryAfterMs : 0;
    await pause(Math.min(1000, retryAfter) + 10 + random() * 40);
  }
  return 'ended';
}

export interface SenderOptions {
  handle: string;
  recipients: readonly string[];
  /** Plans the messages (recipients, kind, padding): its own stream, so plans do not depend on timing. */
  planRandom: () => number;
  timingRandom: () => number;
  thinkMs: [number, number];
}

export async function runSender(ctx: WorkloadContext, o: SenderOptions): Promise<void> {
  const session = new Session(o.handle, ctx, o.timingRandom);
  try {
    for (let n = 1; ctx.running(); n++) {
      const to = o.recipients.filter(() => o.planRandom() < 0.5);
      if (to.length === 0) to.push(o.recipients[Math.floor(o.planRandom() * o.recipients.length)]!);
      const kind = o.planRandom() < 0.8 ? 'msg' : 'task';
      const messageId = `${o.handle}-${String(n).padStart(6, '0')}`;
      const text = `${messageId} from ${o.handle} to ${to.join(',')} ${'.'.repeat(Math.floor(o.planRandom() * 200))}`;
      const p: PlannedMessage = { sender: o.handle, n, messageId, to, text, kind, replyTo: null };
      ctx.history.planned.push(p);
      const r = await sendUntilDefinite(session, p, ctx, o.timingRandom);
      if (r === 'ended') break;
      await pause(o.thinkMs[0] + o.timingRandom() * (o.thinkMs[1] - o.thinkMs[0]));
    }
  } finally {
    session.drop();
  }
}

export interface ReaderOptions {
  handle: string;
  /** An already connected session (it said hello before the senders started, so it is known). */
  session: Session;
  random: () => number;
  pauseMs: [number, number];
  replyProbability: number;
}

interface Received {
  id: number;
  from: string;
  seq: number;
  messageId: string;
}

export async function runReader(ctx: WorkloadContext, o: ReaderOptions): Promise<void> {
  const { session, random, handle } = o;
  const received = new Map<number, Received>();
  const replied = new Set<number>();
  let replies = 0;
  let maxSeq = 0;
  try {
    while (ctx.running()) {
      const relist = random() < 0.25 && maxSeq > 0;
      const listParams = relist ? { after: Math.max(0, Math.floor(random() * maxSeq) - 10), limit: 20 } : { unreadOnly: true, limit: 50 };
      let invokedAt = ctx.clock();
      const list = await session.call('mail.list', listParams);
      if (list.kind === 'ok') {
        const completedAt = ctx.clock();
        const unread: Received[] = [];
        for (const m of list.result.messages as Array<{ id: number; from: string; seq: number; state: ObservedState; messageId: string }>) {
          ctx.history.observe({ id: m.id, to: handle, state: m.state, exact: true, invokedAt, completedAt, source: 'mail.list', process: handle });
          const r = { id: m.id, from: m.from, seq: m.seq, messageId: m.messageId };
          received.set(m.id, r);
          maxSeq = Math.max(maxSeq, m.seq);
          if (m.state === 'accepted' || m.state === 'delivered') unread.push(r);
        }
        const toRead = unread.filter(() => random() < 0.7);
        if (toRead.length > 0) {
          invokedAt = ctx.clock();
          const read = await session.call('mail.read', { ids: toRead.map((r) => r.id) });
          if (read.kind === 'ok') {
            const done = ctx.clock();
            for (const r of toRead) ctx.history.observe({ id: r.id, to: handle, state: 'read', exact: false, invokedAt, completedAt: done, source: 'mail.read ok', process: handle });
            for (const r of toRead) {
              if (!ctx.running() || replied.has(r.id) || random() >= o.replyProbability) continue;
              replied.add(r.id);
              replies += 1;
              const p: PlannedMessage = {
                sender: handle,
                n: replies,
                messageId: `${handle}-re-${String(replies).padStart(6, '0')}`,
                to: [r.from],
                text: `${handle} re ${r.messageId}`,
                kind: 'response',
                replyTo: r.id,
              };
              ctx.history.planned.push(p);
              await sendUntilDefinite(session, p, ctx, random);
            }
          }
        }
      }
      // Receipts: of mail already listed, and of mail accepted for us that we may not have listed yet.
      const pool = ctx.history.acceptedTo.get(handle) ?? [];
      const candidates: number[] = [];
      if (received.size > 0) candidates.push([...received.keys()][Math.floor(random() * received.size)]!);
      if (pool.length > 0) candidates.push(pool[Math.max(0, pool.length - 1 - Math.floor(random() * 20))]!);
      for (const id of candidates) {
        if (!ctx.running()) break;
        invokedAt = ctx.clock();
        const rec = await session.call('receipt.get', { id });
        if (rec.kind !== 'ok') continue;
        const completedAt = ctx.clock();
        for (const r of rec.result.recipients as Array<{ to: string; state: ObservedState }>) {
          ctx.history.observe({ id, to: r.to, state: r.state, exact: true, invokedAt, completedAt, source: 'receipt.get', process: handle });
        }
      }
      await pause(o.pauseMs[0] + random() * (o.pauseMs[1] - o.pauseMs[0]));
    }
  } finally {
    session.drop();
  }
}

/** One ping: a request the hub answers without touching mail.db, to see whether its event loop runs. */
export interface Ping {
  invokedAt: number;
  /** null: no answer within the deadline, or the connection closed first. */
  completedAt: number | null;
  /** When the request ended, answered or not (a ping cut off by a kill ends there). */
  endedAt: number;
  answer: string;
}

/**
 * Pings the hub every `everyMs` with a method it does not have (answered UNKNOWN_METHOD at once,
 * no store involved) on a connection that said hello as `handle`. A long answer time while the
 * hub runs (not SIGSTOPped, not killed) means its event loop was blocked.
 */
export async function runPinger(ctx: WorkloadContext, handle: string, everyMs: number, pings: Ping[]): Promise<void> {
  let conn: DeadlineConnection | null = null;
  try {
    while (ctx.running()) {
      if (!conn || conn.closed) {
        conn = null;
        const c = await DeadlineConnection.connect(ctx.socketPath, ctx.deadlineMs);
        if (c.ok) {
          const hello = await c.conn.request('hello', { version: 1, session: handle, client: 'jepsen-ping' }, ctx.deadlineMs);
          if (hello.kind === 'ok') conn = c.conn;
          else c.conn.destroy();
        }
        if (!conn) {
          await pause(everyMs);
          continue;
        }
      }
      const invokedAt = ctx.clock();
      const out = await conn.request('jepsen.ping', {}, ctx.deadlineMs);
      const answered = out.kind !== 'indeterminate';
      const endedAt = ctx.clock();
      pings.push({ invokedAt, completedAt: answered ? endedAt : null, endedAt, answer: out.kind === 'error' ? `${out.code}` : out.kind === 'ok' ? 'ok' : out.reason });
      await pause(everyMs);
    }
  } finally {
    conn?.destroy();
  }
}
