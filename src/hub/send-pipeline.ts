// The send pipeline: every `mail.send` (a client's, the operator's, an Intercom chat) from its params
// to "accepted". Recipients on other nodes are routed (`handle@node`, `all@*`), the request is built
// and admitted (limits, `@all`, the sender's rate: send-request.ts), sends of one turn are committed
// together (group-commit.ts), and only after the commit returned is the message handed to the
// fan-out and the federation's outbox kicked. A refusal is reported once, here: the reply budget's
// holds to the operator, every refusal to the server's notifications. This is the hot path of a mail
// accept: one object per send and no await beyond the commit's.
import { swbError, type SwbErrorValue } from '../protocol/error-codes.js';
import { BROADCAST } from '../protocol/handle.js';
import type { HubLimits } from '../protocol/limits.js';
import type { SendParams, SendResult } from '../protocol/methods.js';
import type { AcceptOutcome, AcceptRequest, MailStore } from '../store/mail-store.js';
import { MAX_REMOTE_TEXT_JSON } from '../federation/envelope.js';
import type { FederationLink } from '../federation/nats-link.js';
import { ALL_NODES, isRemoteAddress, parseRemoteAddress, remoteAddress } from '../protocol/remote-address.js';
import { Emitter } from '../util/event.js';
import type { FanOut } from './fan-out.js';
import { toPromise, type Continuation } from './continuation.js';
import { GroupCommitter } from './group-commit.js';
import type { HubSessions } from './hub-sessions.js';
import type { MailCore } from './mail-core.js';
import { RateLimiter } from './rate-limiter.js';
import { buildSendRequest, type SendContext } from './send-request.js';

/**
 * A send the reply budget stopped: a pair of rows that used up its budget (nothing more passes
 * between them until the operator acts), or a reply chain among rows too deep.
 */
export type BudgetHeld =
  | { kind: 'pair'; sender: string; a: string; b: string; used: number; limit: number }
  | { kind: 'depth'; sender: string; depth: number; limit: number };

/** Tokenless participants together may send this many times one sender's rate. */
const PARTICIPANTS_RATE_FACTOR = 4;
/** What a send is answered: its receipt, or the typed refusal (nothing stored). */
export type SendAnswer = { ok: SendResult } | { error: SwbErrorValue };

const NOT_STORED = 'The message could not be stored; nothing was accepted, retry with the same id';

export interface SendPipelineDeps {
  store: MailStore;
  mail: MailCore;
  sessions: HubSessions;
  fanOut: FanOut;
  federation: FederationLink | null;
  limits: HubLimits;
  now: () => number;
  log(line: string): void;
}

export class SendPipeline {
  private readonly rate: RateLimiter;
  /** Tokenless participants share one bucket too, so rotating handles does not multiply the rate. */
  private readonly participantRate: RateLimiter;
  private readonly committer: GroupCommitter;
  /** What building a request asks of sessions and rates: made once, not per send. */
  private readonly context: SendContext;
  private readonly refusedEmitter = new Emitter<{ sender: string; to: readonly string[]; error: SwbErrorValue }>();
  /** A send was refused (QUEUE_FULL, UNKNOWN_PEER, RATE_LIMITED, ...): nothing was stored. */
  readonly onRefused = this.refusedEmitter.event;
  private readonly heldEmitter = new Emitter<BudgetHeld>();
  /** A send ran into the reply budget (a pair held, or a reply chain too deep). */
  readonly onHeld = this.heldEmitter.event;

  constructor(private readonly deps: SendPipelineDeps) {
    const { limits, now, store, mail, sessions } = deps;
    this.rate = new RateLimiter(limits.ratePerSecond, now);
    this.participantRate = new RateLimiter(limits.ratePerSecond * PARTICIPANTS_RATE_FACTOR, now);
    this.committer = new GroupCommitter(
      store,
      mail.gate,
      (req, outcome) => this.afterCommit(req, outcome),
      (err) => mail.storeFailure(err, NOT_STORED),
    );
    this.context = {
      limits,
      onlineHandles: () => sessions.onlineHandles(),
      hearsPushes: (h) => sessions.hearsPushes(h),
      rateWait: (s) => this.rateWait(s),
      isStored: (s, id) => this.isStored(s, id),
    };
  }

  /** Batch sizes of the group commit, for the benchmark and tests. */
  get commitStats(): { batches: number; committed: number } {
    return { batches: this.committer.batches, committed: this.committer.committed };
  }

  /** Every send, with its refusal reported (the dashboard shows rows' refused mail to the operator). */
  send(sender: string, params: SendParams): Promise<SendAnswer> {
    return toPromise((c) => this.sendThen(sender, params, c));
  }

  /**
   * `send` with its answer handed to `then` (continuation.ts): a local send's from the commit's own
   * loop, with no promise on the way (issue #33); a refusal before the commit, at once.
   */
  sendThen(sender: string, params: SendParams, then: Continuation<SendAnswer>): void {
    let now: SendAnswer | undefined;
    try {
      // Mail that names no other node (most of it) has nothing to route: one look at its recipients.
      if (!params.to.some(isRemoteAddress)) now = this.commit(sender, params, params, then);
      else {
        const routed = this.routeAcrossNodes(params);
        if ('error' in routed) now = this.reported(sender, params, routed);
        else if (!routed.ok.to.some(isRemoteAddress)) now = this.commit(sender, params, routed.ok, then);
        else {
          this.sendRemote(sender, params, routed.ok).then(
            (answer) => then.resume(answer),
            (err: unknown) => then.fail(err),
          );
          return;
        }
      }
    } catch (err) {
      return then.fail(err);
    }
    if (now !== undefined) then.resume(now);
  }

  /** Runs after the commit returned (a local send's, or mail from another node): push, wake, tell. */
  afterCommit(request: AcceptRequest, outcome: AcceptOutcome): void {
    // Mail for other nodes (and receipts of theirs the commit queued) wait in the outbox.
    if (outcome.ok) this.deps.federation?.kick();
    if (!outcome.ok || !outcome.message) return;
    try {
      this.deps.fanOut.mailCommitted(request, outcome);
    } catch (err) {
      // The message is committed; a failure to push it must not undo or hide that.
      this.deps.log(`after commit of #${outcome.message.id}: ${err instanceof Error ? err.stack : String(err)}`);
    }
  }

  /** A send ran into the reply budget: the operator is told which pair waits for them, once per hold. */
  private reportHeld(sender: string, code: string, details: Record<string, unknown> | undefined): void {
    if (code !== 'REPLY_BUDGET' || !details) return;
    const pair = details.pair;
    if (Array.isArray(pair) && pair.length === 2) {
      if (details.newlyHeld !== true) return; // already held and announced
      this.heldEmitter.fire({ kind: 'pair', sender, a: String(pair[0]), b: String(pair[1]), used: Number(details.used), limit: Number(details.limit) });
    } else if (details.reason === 'depth') {
      this.heldEmitter.fire({ kind: 'depth', sender, depth: Number(details.depth), limit: Number(details.limit) });
    }
  }

  /**
   * The request (limits, recipients, rate), then the group commit, which answers `then` from its
   * loop; a refusal before the commit is returned instead (reported).
   */
  private commit(sender: string, params: SendParams, sent: SendParams, then: Continuation<SendAnswer>): SendAnswer | undefined {
    const built = buildSendRequest(sender, sent, this.context);
    if ('error' in built) return this.reported(sender, params, built);
    this.committer.submitThen(built.request, new ReportedSend(this, sender, params, then));
    return undefined;
  }

  /** Mail for other nodes: its text's size there, and its recipients remembered before the commit. */
  private async sendRemote(sender: string, params: SendParams, sent: SendParams): Promise<SendAnswer> {
    const remote = sent.to.filter(isRemoteAddress);
    const json = Buffer.byteLength(JSON.stringify(sent.text), 'utf8');
    if (json > MAX_REMOTE_TEXT_JSON) {
      const error = swbError('MESSAGE_TOO_LARGE', `Mail to another node carries at most ${MAX_REMOTE_TEXT_JSON} bytes of text as JSON; this is ${json}.`, { limit: MAX_REMOTE_TEXT_JSON });
      return this.reported(sender, params, { error });
    }
    const { store, mail } = this.deps;
    try {
      await mail.gate.run(() => {
        for (const h of remote) store.rememberHandle(h, 'remote');
      });
    } catch (err) {
      return this.reported(sender, params, { error: mail.storeFailure(err, NOT_STORED) });
    }
    return toPromise((c) => {
      const refused = this.commit(sender, params, sent, c);
      if (refused !== undefined) c.resume(refused);
    });
  }

  /** A send's answer, its refusal (or the recipients it skipped) told to the listeners first. */
  reported(sender: string, params: SendParams, answer: SendAnswer): SendAnswer {
    if ('error' in answer) {
      this.refusedEmitter.fire({ sender, to: params.to, error: answer.error });
      this.reportHeld(sender, answer.error.code, answer.error.details);
    } else {
      for (const s of answer.ok.skipped ?? []) this.reportHeld(sender, s.code, s.details);
    }
    return answer;
  }

  /**
   * Recipients on other nodes (some recipient names one): `handle@node` stays as it is (this node's
   * own name is dropped), `all@*` becomes every online session the other nodes announce (and `all` here).
   */
  private routeAcrossNodes(sent: SendParams): { ok: SendParams } | { error: SwbErrorValue } {
    const { federation } = this.deps;
    const to: string[] = [];
    for (const target of sent.to) {
      if (!target.includes('@')) {
        to.push(target);
        continue;
      }
      const a = parseRemoteAddress(target);
      if (!a) return { error: swbError('BAD_REQUEST', `${target} is not an address: use handle@node (a node name is 1-64 of A-Z a-z 0-9 _ -).`, { to: target }) };
      if (!federation) return { error: swbError('FEDERATION_OFF', `${target} is on another node, and this server is not federated: set "federation": {"url": "nats://HOST:4222", "node": "NAME"} in the config, or start it with --federate URL --node NAME.`, { to: target }) };
      if (a.node === ALL_NODES) {
        if (a.handle !== BROADCAST) return { error: swbError('BAD_REQUEST', `${target}: only all@* reaches every node.`, { to: target }) };
        to.push(BROADCAST);
        for (const p of federation.remotePeers()) if (p.online) to.push(remoteAddress(p.handle, p.node));
      } else if (a.node === federation.node) to.push(a.handle);
      else to.push(target);
    }
    return { ok: { ...sent, to: [...new Set(to)] } };
  }

  /** Milliseconds until `sender` may send again (0: now): its own bucket, and tokenless senders' shared one. */
  private rateWait(sender: string): number {
    const own = this.rate.take(sender);
    if (own > 0 || this.deps.store.roleOf(sender) !== 'participant') return own;
    return this.participantRate.take('participants');
  }

  private isStored(sender: string, messageId: string): boolean {
    try {
      return this.deps.store.hasMessage(sender, messageId);
    } catch {
      return false;
    }
  }
}

/** A local send at the group commit: its outcome reported and answered, in the commit's loop. */
class ReportedSend implements Continuation<AcceptOutcome> {
  constructor(
    private readonly pipeline: SendPipeline,
    private readonly sender: string,
    private readonly params: SendParams,
    private readonly then: Continuation<SendAnswer>,
  ) {}

  resume(outcome: AcceptOutcome): void {
    this.then.resume(this.pipeline.reported(this.sender, this.params, outcome.ok ? { ok: outcome.result } : { error: outcome.error }));
  }

  fail(err: unknown): void {
    this.then.fail(err);
  }
}
