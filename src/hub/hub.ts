// The hub: owns the workspace lock, the socket, the sessions and the store, and routes mail.
// Start it with Hub.start(); it refuses (HUB_RUNNING) when another live hub holds the lock, and
// only after winning the lock does it dare remove a stale socket left by a dead hub.
import { createServer, type Server, type Socket as NetSocket } from 'node:net';
import { randomBytes } from 'node:crypto';
import { chmodSync, unlinkSync, writeFileSync, renameSync } from 'node:fs';
import { dirname } from 'node:path';
import { SwbError, swbError, type SwbErrorValue } from '../protocol/error-codes.js';
import { BROADCAST, OPERATOR } from '../protocol/handle.js';
import { DEFAULT_LIMITS, type HubLimits } from '../protocol/limits.js';
import type { MailItem, PeerChanged, PeerInfo, ReceiptChanged, RowExplainResult, SendParams, SendResult, SessionRole } from '../protocol/methods.js';
import type { DecodedFrame } from '../protocol/ndjson-decoder.js';
import { classifyLine, notification, success } from '../protocol/rpc.js';
import { MailStore, type AcceptOutcome, type AcceptRequest, type StateChange, type StoreOptions } from '../store/mail-store.js';
import type { HeldPair } from '../store/reply-budget.js';
import { Emitter } from '../util/event.js';
import { DisposableStore, toDisposable } from '../util/lifecycle.js';
import { isCorruptError, isStoreFailure, setAsideDamaged, storeErrorValue } from '../store/store-error.js';
import { GroupCommitter } from './group-commit.js';
import { HubConnection } from './hub-connection.js';
import { operatorRefusal, peerOf } from './peer-guard.js';
import { StoreGate } from './store-gate.js';
import { handleIntercomEnvelope, intercomMailEnvelope } from './intercom-dialect.js';
import { checkDirectoryChain, myUid } from '../util/private-path.js';
import { ensurePrivateDir, isOwnSocket } from './private-dir.js';
import type { ServerControl } from './server-control.js';
import { HookDelivery } from './hook-delivery.js';
import { buildSendRequest } from './send-request.js';
import { EventStream } from './event-stream.js';
import { RateLimiter } from './rate-limiter.js';
import { dispatchRpc } from './rpc-handlers.js';
import type { RuntimePaths } from './runtime-paths.js';
import { SessionRegistry } from './session-registry.js';
import { tryAcquireWorkspaceLock } from './workspace-lock.js';
import { MailWaiters } from './mail-waiters.js';
import { ResourceService } from './resource-service.js';
import type { FederationSettings } from '../config/federation-config.js';
import type { FederationLink, LinkStatus } from '../federation/nats-link.js';
import { ALL_NODES, isRemoteAddress, parseRemoteAddress, remoteAddress } from '../protocol/remote-address.js';
import { MAX_REMOTE_TEXT_JSON } from '../federation/envelope.js';

export interface HubOptions {
  paths: RuntimePaths;
  limits?: Partial<HubLimits>;
  now?: () => number;
  log?: (line: string) => void;
  /** Embedded in a dashboard that runs rows: it will not stop on a `hub.shutdown` request. */
  embedded?: boolean;
  /** Opens the store (default MailStore.open). Fault-injection tests wrap the database here. */
  openStore?: (file: string, options: StoreOptions) => MailStore;
  /** Joins other machines' servers through NATS JetStream (src/federation/); absent: this node only. */
  federation?: FederationSettings;
}

/**
 * A send the reply budget stopped: a pair of rows that used up its budget (nothing more passes
 * between them until the operator acts), or a reply chain among rows too deep.
 */
export type BudgetHeld =
  | { kind: 'pair'; sender: string; a: string; b: string; used: number; limit: number }
  | { kind: 'depth'; sender: string; depth: number; limit: number };

/** Answers `rows.explain` (the dashboard that embeds the hub registers one; a headless hub has none). */
export type ExplainProvider = (row: string, verbose: boolean) => { ok: RowExplainResult } | { error: SwbErrorValue };

export class Hub {
  readonly limits: HubLimits;
  readonly sessions: SessionRegistry<HubConnection>;
  readonly store: MailStore;
  readonly waiters: MailWaiters;
  readonly now: () => number;
  private readonly committer: GroupCommitter;
  /** Every store call passes it: another process's lock queues calls instead of freezing the loop. */
  readonly gate: StoreGate;
  /** Agents' end-of-turn hooks asking whether their row has mail (delivery without typing). */
  readonly hooks: HookDelivery;
  /** Reservations between agents (issue #35). */
  readonly resources: ResourceService;
  /** `swb events` subscribers; the embedding server publishes row events here too. */
  readonly events = new EventStream();
  private readonly rate: RateLimiter;
  /** Tokenless participants share one bucket too, so rotating handles does not multiply the rate. */
  private readonly participantRate: RateLimiter;
  private readonly newHandleRate: RateLimiter;
  private readonly connections = new Set<HubConnection>();
  private unfinishedBytes = 0;
  private readonly stalled = new Set<HubConnection>();
  /** Where a damaged mail.db was copied (once per run), for the operator's recovery. */
  private damagedCopy: string | null = null;
  private readonly lifetime = new DisposableStore();
  private server: Server | null = null;
  private explainProvider: ExplainProvider | null = null;
  /** The workspace server that embeds this hub answers `server.*` (null: a headless hub). */
  serverControl: ServerControl | null = null;
  /** The embedding server is stopping (ending its rows): a successor asking it to step down may wait. */
  serverStopping = false;
  private stopping: Promise<void> | null = null;
  /** The NATS link to other nodes (null: not federated). Loaded only when configured. */
  federation: FederationLink | null = null;

  private readonly mailEmitter = new Emitter<MailItem>();
  private readonly receiptEmitter = new Emitter<ReceiptChanged & { from: string }>();
  private readonly peerEmitter = new Emitter<PeerChanged>();
  private readonly refusedEmitter = new Emitter<{ sender: string; to: readonly string[]; error: SwbErrorValue }>();
  /** A send was refused (QUEUE_FULL, UNKNOWN_PEER, RATE_LIMITED, ...): nothing was stored. */
  readonly onRefused = this.refusedEmitter.event;
  private readonly unreadChangedEmitter = new Emitter<string>();
  /** A handle's unread mail changed without new mail or a receipt (parked mail re-delivered). */
  readonly onUnreadChanged = this.unreadChangedEmitter.event;
  /** Every accepted message (the embedded TUI's notifications and wake controller listen here). */
  readonly onMail = this.mailEmitter.event;
  readonly onReceipt = this.receiptEmitter.event;
  readonly onPeer = this.peerEmitter.event;
  private readonly heldEmitter = new Emitter<BudgetHeld>();
  /** A send ran into the reply budget (a pair held, or a reply chain too deep). */
  readonly onHeld = this.heldEmitter.event;
  private readonly stoppedEmitter = new Emitter<void>();
  readonly onStopped = this.stoppedEmitter.event;

  static async start(options: HubOptions): Promise<Hub> {
    const { paths } = options;
    ensurePrivateDir(paths.runDir, trustedRootOf(paths.runDir));
    ensurePrivateDir(paths.dataDir, trustedRootOf(paths.dataDir));
    if (paths.socketDir !== paths.runDir) ensurePrivateDir(paths.socketDir, dirname(dirname(paths.socketDir)));
    // What every client will check above the socket, checked before listening: a hub no client
    // would talk to must not start (e.g. under a 0777 TMPDIR without the sticky bit).
    checkDirectoryChain(paths.socketDir, myUid(), 'The hub will not listen there: no client would trust it.');
    const lock = tryAcquireWorkspaceLock(paths.lockFile);
    if (!lock) throw new SwbError('HUB_RUNNING', `A hub is already running for workspace ${paths.workspaceId}.`);
    let hub: Hub | undefined;
    try {
      const limits = { ...DEFAULT_LIMITS, ...options.limits };
      const open = options.openStore ?? ((file: string, o: StoreOptions) => MailStore.open(file, o));
      const replyBudget = { perPair: limits.automaticReplies, maxDepth: limits.maxReplyDepth, countParticipants: limits.budgetParticipants };
      const store = open(paths.dbFile, { maxUnread: limits.maxUnread, replyBudget, ...(options.now ? { now: options.now } : {}) });
      hub = new Hub(options, limits, store);
      hub.lifetime.add(lock);
      // The link exists before the socket listens: a client that connects at once (a script
      // restarted with the server) must find mail for handle@node queued, not FEDERATION_OFF.
      const link = options.federation ? await hub.federate(options.federation) : undefined;
      await hub.listen();
      await link?.begin();
      return hub;
    } catch (err) {
      if (hub) await hub.stop();
      else lock.dispose();
      throw err;
    }
  }

  private constructor(
    private readonly options: HubOptions,
    limits: HubLimits,
    store: MailStore,
  ) {
    this.limits = limits;
    this.store = store;
    this.now = options.now ?? Date.now;
    this.sessions = new SessionRegistry(randomBytes(24).toString('base64url'), (h) => store.roleOf(h) === 'row');
    this.rate = new RateLimiter(limits.ratePerSecond, this.now);
    this.participantRate = new RateLimiter(limits.ratePerSecond * PARTICIPANTS_RATE_FACTOR, this.now);
    // A minute's worth at once: a burst of scripts starting together is fine, a stream of junk names is not.
    this.newHandleRate = new RateLimiter(limits.newHandlesPerMinute / 60, this.now, 60);
    this.waiters = new MailWaiters();
    // A batch whose commit failed leaves the store's caches ahead of the disk: they are read again.
    this.gate = new StoreGate(limits.storeLockWaitMs, Date.now, store.db, () => store.resyncCaches());
    this.committer = new GroupCommitter(
      store,
      this.gate,
      (req, outcome) => this.afterCommit(req, outcome),
      (err) => this.storeFailure(err, 'The message could not be stored; nothing was accepted, retry with the same id'),
    );
    this.hooks = new HookDelivery({
      unread: (handle) => {
        if (store.unreadCount(handle) === 0) return { ids: [], maxSeq: 0 };
        const { items } = store.list(handle, { unreadOnly: true, peek: true, limit: 1000 });
        return { ids: items.map((m) => m.id), maxSeq: Math.max(0, ...items.map((m) => m.seq ?? 0)) };
      },
      record: (handle, ids) => this.gate.run(() => store.recordWake(handle, ids, 'hook')),
      publish: (changes) => this.publishChanges(changes),
    });
    this.lifetime.add(
      this.onMail((m) => this.events.publish({ kind: 'mail', at: m.createdAt, id: m.id, from: m.from, to: m.to, mailKind: m.kind, replyTo: m.replyTo }, [m.from, ...m.to])),
    );
    this.lifetime.add(this.onReceipt((r) => this.events.publish({ kind: 'receipt', at: r.at, id: r.id, from: r.from, to: r.to, state: r.state }, [r.to, r.from])));
    this.lifetime.add(toDisposable(() => store.close()));
    this.lifetime.add(toDisposable(() => this.gate.dispose()));
    this.lifetime.add(this.waiters);
    this.resources = this.lifetime.add(
      new ResourceService({ db: store.db, gate: this.gate, now: this.now, events: this.events, maxWaitMs: () => this.limits.maxWaitMs, log: (l) => this.log(l) }),
    );
    this.lifetime.add(this.onPeer((p) => this.resources.peerChanged(p)));
    store.rememberHandle(OPERATOR, 'operator');
    this.sweep();
    const sweeper = setInterval(() => this.sweep(), 60 * 60 * 1000);
    sweeper.unref();
    this.lifetime.add(toDisposable(() => clearInterval(sweeper)));
  }

  /**
   * Makes the federation link (loading the NATS client only now); mail may queue for it at once.
   * Its `begin` connects, and fails the start on NODE_COLLISION.
   */
  private async federate(settings: FederationSettings): Promise<FederationLink> {
    const [{ FederationLink }, { FederationStore }] = await Promise.all([import('../federation/nats-link.js'), import('../federation/federation-store.js')]);
    const store = new FederationStore(this.store, settings.node);
    const link = FederationLink.create(settings, {
      store,
      runStore: (fn) => this.gate.run(fn),
      known: (h) => {
        const role = this.store.roleOf(h);
        return role !== undefined && role !== 'remote';
      },
      live: (h) => {
        for (const c of this.sessions.connectionsOf(h)) if (c.subscription !== 'none') return true;
        return false;
      },
      onIncoming: (result) => {
        for (const { request, outcome } of result.accepted) this.afterCommit(request, outcome);
        this.publishChanges(result.changes);
      },
      onPresence: () => this.peerEmitter.fire({ handle: '', online: true, role: 'remote' }),
      localPeers: () => this.peers().filter((p) => p.role !== 'remote').map((p) => ({ handle: p.handle, online: p.online })),
      now: this.now,
      log: (line) => this.log(line),
    });
    this.federation = link;
    this.lifetime.add(this.onPeer((p) => p.role !== 'remote' && link.peersChanged()));
    this.log(`federation: node ${settings.node} on ${settings.url}`);
    return link;
  }

  get embedded(): boolean {
    return this.options.embedded === true;
  }

  get paths(): RuntimePaths {
    return this.options.paths;
  }

  get operatorToken(): string {
    return this.sessions.operatorToken;
  }

  get commitStats(): { batches: number; committed: number } {
    return { batches: this.committer.batches, committed: this.committer.committed };
  }

  private async listen(): Promise<void> {
    const { socketPath, operatorTokenFile } = this.options.paths;
    // We hold the lock, so no live hub can own this socket: a leftover file is stale.
    if (isOwnSocket(socketPath)) unlinkSync(socketPath);
    const server = createServer({ allowHalfOpen: false }, (socket) => this.accept(socket));
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      // A burst of clients (every row's CLI at once) queues in the backlog instead of seeing EAGAIN.
      server.listen({ path: socketPath, backlog: Math.min(4096, Math.max(511, this.limits.maxConnections)) }, () => {
        server.off('error', reject);
        resolve();
      });
    });
    chmodSync(socketPath, 0o600);
    this.lifetime.add(
      toDisposable(() => {
        try {
          if (isOwnSocket(socketPath)) unlinkSync(socketPath);
        } catch {
          // already gone
        }
      }),
    );
    // Publish the operator token for trusted local tools (same uid, 0600, written atomically).
    const tmp = `${operatorTokenFile}.${process.pid}.tmp`;
    writeFileSync(tmp, this.sessions.operatorToken, { mode: 0o600 });
    renameSync(tmp, operatorTokenFile);
  }

  private accept(socket: NetSocket): void {
    if (this.stopping) {
      socket.destroy();
      return;
    }
    if (this.connections.size >= this.limits.maxConnections) {
      // Answered, not dropped: the client learns the hub is alive and full, not that there is none.
      const busy = swbError('HUB_BUSY', `The hub has ${this.connections.size} connections, its limit; try again shortly.`);
      socket.on('error', () => socket.destroy());
      socket.end(`${JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message: busy.message, data: { code: busy.code } } })}\n`);
      setTimeout(() => socket.destroy(), 1000).unref();
      return;
    }
    const peer = peerOf(socket);
    if (peer && peer.uid !== myUid() && peer.uid !== 0) {
      // The socket is 0600 in a 0700 dir, so this takes a misconfigured system; refuse it anyway.
      socket.destroy();
      return;
    }
    const conn = new HubConnection(socket, this.limits, {
      onFrame: (c, frame) => this.onFrame(c, frame),
      onClose: (c) => this.onClose(c),
      onUnfinished: (c, delta) => this.onUnfinished(c, delta),
      onStalled: (c, stalled) => this.onStalled(c, stalled),
    });
    conn.peer = peer;
    this.connections.add(conn);
  }

  /** Unfinished frames of all connections together stay under a cap; the one that passes it goes. */
  private onUnfinished(conn: HubConnection, delta: number): void {
    this.unfinishedBytes += delta;
    if (delta > 0 && this.unfinishedBytes > this.limits.maxUnfinishedBytes) {
      conn.closeWithError(
        swbError('HUB_BUSY', `The hub holds ${this.unfinishedBytes} bytes of unfinished frames, over its limit of ${this.limits.maxUnfinishedBytes}; this connection was closed.`),
      );
    }
  }

  /**
   * Connections with answers piling up unread hold up to maxPendingWriteBytes each until their
   * stall timeout; past maxStalledConnections of them at once, the newest is closed at once, so
   * many such clients together cannot fill the hub's memory either.
   */
  private onStalled(conn: HubConnection, stalled: boolean): void {
    if (!stalled) {
      this.stalled.delete(conn);
      return;
    }
    this.stalled.add(conn);
    if (this.stalled.size > this.limits.maxStalledConnections) {
      conn.closeWithError(swbError('HUB_BUSY', `Too many connections leave their answers unread (${this.stalled.size}); this one was closed.`));
      conn.destroy();
    }
  }

  /** One decoded frame. Nothing a client sends, and no store failure, may throw out of here. */
  private onFrame(conn: HubConnection, frame: DecodedFrame): void {
    try {
      this.handleFrame(conn, frame);
    } catch (err) {
      this.log(`internal error handling a frame: ${err instanceof Error ? err.stack : String(err)}`);
      conn.writeError(null, this.failureOf(err, 'The hub failed to handle a frame'));
    }
  }

  private handleFrame(conn: HubConnection, frame: DecodedFrame): void {
    if (frame.kind === 'error') {
      conn.writeError(null, frame.error);
      return;
    }
    const msg = classifyLine(frame.text);
    if (msg.kind === 'intercom') {
      if (conn.dialect === 'rpc') {
        conn.writeError(null, swbError('BAD_FRAME', 'This connection speaks JSON-RPC; an Intercom envelope is not allowed here.'));
        return;
      }
      conn.dialect = 'intercom';
      const work = handleIntercomEnvelope(this, conn, msg.envelope);
      if (work) conn.hold(work);
      return;
    }
    if (conn.dialect === 'intercom') {
      conn.write({ type: 'error', payload: { code: 'BAD_FRAME', message: 'This connection speaks the Intercom dialect.' } });
      return;
    }
    conn.dialect = 'rpc';
    switch (msg.kind) {
      case 'invalid':
        conn.writeError(msg.id, msg.error);
        return;
      case 'notification':
      case 'response':
        return; // clients send no notifications we act on; stray responses are ignored
      case 'request': {
        const { id, method, params } = msg.message;
        const reserve = replyReservation(method, this.limits);
        conn.beginRequest(reserve);
        const work = dispatchRpc(this, conn, method, params ?? {}).then(
          (result) => {
            conn.endRequest(reserve);
            if ('error' in result) conn.writeError(id, result.error);
            else conn.write(success(id, result.ok));
          },
          (err: unknown) => {
            conn.endRequest(reserve);
            if (!isStoreFailure(err)) this.log(`internal error in ${method}: ${err instanceof Error ? err.stack : String(err)}`);
            conn.writeError(id, this.failureOf(err, `The hub could not complete ${method}`));
          },
        );
        // What follows a hello on the wire speaks as the session it claims: wait for it.
        if (method === 'hello') conn.hold(work);
      }
    }
  }

  /** The typed answer for an exception: a store failure says what and where; anything else is INTERNAL. */
  failureOf(err: unknown, context: string): SwbErrorValue {
    if (isStoreFailure(err)) return this.storeFailure(err, context);
    return swbError('INTERNAL', `${context}; see the hub log.`);
  }

  /** A store failure as a typed error; a damaged file is copied aside (once) so the operator can recover it. */
  storeFailure(err: unknown, context: string): SwbErrorValue {
    if (isCorruptError(err) && this.damagedCopy === null) {
      this.damagedCopy = setAsideDamaged(this.options.paths.dbFile);
      this.log(`mail.db is damaged (${(err as Error).message}); copy set aside at ${this.damagedCopy ?? '(copy failed)'}`);
    }
    return storeErrorValue(err, this.options.paths.dbFile, context, this.damagedCopy);
  }

  private onClose(conn: HubConnection): void {
    this.connections.delete(conn);
    this.events.unsubscribe(conn);
    this.stalled.delete(conn);
    this.waiters.cancelConnection(conn);
    this.resources.connectionClosed(conn);
    if (conn.identity && this.sessions.release(conn, conn.identity.handle)) {
      this.announcePeer(conn.identity.handle, false, conn.identity.role);
    }
  }

  /**
   * Completes a hello: claims the handle, remembers it in the store, announces it. The connection
   * is bound to the handle only once all of that succeeded; a failure leaves it unbound.
   */
  async claimSession(conn: HubConnection, session: string | undefined, token: string | undefined): Promise<SwbErrorValue | null> {
    if (conn.identity) return swbError('BAD_REQUEST', `This connection is already ${conn.identity.handle}.`);
    const claim = this.sessions.claim(conn, session, token);
    if (!claim.ok) return claim.error;
    const { handle, role } = claim.identity;
    if (role === 'operator') {
      const why = operatorRefusal(conn.peer, this.options.paths.socketPath);
      if (why) {
        this.sessions.release(conn, handle);
        return swbError('UNAUTHENTICATED', `The operator identity is refused: ${why}. Agents in rows speak as their row.`);
      }
    }
    const unbind = (error: SwbErrorValue): SwbErrorValue => {
      this.sessions.release(conn, handle);
      return error;
    };
    const wasKnown = this.store.isKnown(handle);
    if (!wasKnown && role === 'participant' && this.newHandleRate.take('new-handles') > 0) {
      return unbind(
        swbError('RATE_LIMITED', `Too many new session names (more than ${this.limits.newHandlesPerMinute} a minute); reuse a name or retry shortly.`, {
          retryAfterMs: 1000,
        }),
      );
    }
    try {
      await this.gate.run(() => this.store.rememberHandle(handle, role));
    } catch (err) {
      return unbind(this.storeFailure(err, `hello as ${handle} could not be recorded`));
    }
    if (conn.isClosed) return unbind(swbError('NO_HUB', 'The connection closed during hello.'));
    conn.identity = claim.identity;
    conn.identified();
    // A running row was online already; anyone else comes online with its first connection.
    const first = [...this.sessions.connectionsOf(handle)].length === 1;
    if (!wasKnown || (first && !(role === 'row' && this.sessions.isRowRunning(handle)))) this.announcePeer(handle, true, role);
    return null;
  }

  private announcePeer(handle: string, online: boolean, role: SessionRole): void {
    const change: PeerChanged = { handle, online, role };
    this.peerEmitter.fire(change);
    for (const c of this.connections) {
      if (c.subscription !== 'none' && c.identity && c.identity.handle !== handle && c.dialect === 'rpc') {
        c.write(notification('peer.changed', change));
      }
    }
  }

  peers(): PeerInfo[] {
    const held = new Map<string, string[]>();
    for (const p of this.heldPairs()) {
      held.set(p.a, [...(held.get(p.a) ?? []), p.b]);
      held.set(p.b, [...(held.get(p.b) ?? []), p.a]);
    }
    const remote = new Map((this.federation?.remotePeers() ?? []).map((p) => [remoteAddress(p.handle, p.node), p]));
    const peers = this.store.knownHandles().map(({ handle, role, unread }) => {
      const peer: PeerInfo = { handle, role, unread, online: this.sessions.isOnline(handle) };
      const with_ = held.get(handle);
      if (with_) peer.heldWith = with_;
      if (role === 'remote') {
        const there = remote.get(handle);
        remote.delete(handle);
        peer.online = there?.online ?? false;
        peer.node = handle.slice(handle.indexOf('@') + 1);
        if (there) peer.ageMs = there.ageMs;
      }
      return peer;
    });
    // Sessions other nodes announce that never mailed with this one.
    for (const [handle, p] of remote) peers.push({ handle, role: 'remote', unread: 0, online: p.online, node: p.node, ageMs: p.ageMs });
    return peers.sort((a, b) => (a.handle < b.handle ? -1 : a.handle > b.handle ? 1 : 0));
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
      return { ok: { granted, budget: this.limits.automaticReplies } };
    } catch (err) {
      return { error: this.storeFailure(err, `the budget of ${a} and ${b} could not be granted`) };
    }
  }

  /** A page of peers in handle order after `after`; `next` is the cursor when more remain. */
  peersPage(opts: { after?: string; limit?: number; onlineOnly?: boolean }): { peers: PeerInfo[]; next: string | null } {
    const limit = opts.limit ?? PEERS_PAGE;
    let all = this.peers();
    if (opts.onlineOnly) all = all.filter((p) => p.online);
    const start = opts.after === undefined ? 0 : all.findIndex((p) => p.handle > opts.after!);
    const page = start === -1 ? [] : all.slice(start, start + limit);
    const more = start !== -1 && start + limit < all.length;
    return { peers: page, next: more ? page[page.length - 1]!.handle : null };
  }

  /**
   * Registers a row of the embedded TUI (or, over the socket, of an operator client). A row that
   * registers again gets a new token; connections that proved the old one are closed.
   */
  registerRow(handle: string): { ok: true; token: string } | { ok: false; error: SwbErrorValue } {
    const r = this.mintRowToken(handle);
    if (!r.ok) return r;
    r.recorded.catch((err: unknown) => this.log(`row ${handle} could not be recorded: ${this.storeFailure(err, 'registerRow').message}`));
    return { ok: true, token: r.token };
  }

  /**
   * registerRow over the socket (an operator client): answered only once the store recorded the
   * handle as a row's, so mail to it is kept; a store failure undoes the registration.
   */
  async registerRowDurably(handle: string): Promise<{ ok: { handle: string; token: string } } | { error: SwbErrorValue }> {
    const r = this.mintRowToken(handle);
    if (!r.ok) return { error: r.error };
    try {
      await r.recorded;
    } catch (err) {
      this.revoke(this.sessions.unregisterRow(handle), handle, 'not registered after all');
      return { error: this.storeFailure(err, `row ${handle} could not be registered`) };
    }
    return { ok: { handle, token: r.token } };
  }

  /** A fresh token for a row (closing the connections of the old one), and the store write that remembers it. */
  private mintRowToken(handle: string): { ok: true; token: string; recorded: Promise<void> } | { ok: false; error: SwbErrorValue } {
    const r = this.sessions.registerRow(handle);
    if (!r.ok) return r;
    this.revoke(r.revoked, handle, 'registered again');
    return { ok: true, token: r.token, recorded: this.gate.run(() => this.store.rememberHandle(handle, 'row')) };
  }

  /** A row's process started or ended: a running row is online (it gets @all) with or without a connection. */
  setRowRunning(handle: string, running: boolean): void {
    if (this.sessions.setRowRunning(handle, running)) this.announcePeer(handle, running, 'row');
  }

  /** The operator gives a row's handle back: its token stops working and tokenless clients may take it. */
  async releaseRow(handle: string): Promise<{ ok: { released: boolean } } | { error: SwbErrorValue }> {
    // The store first: if it fails, the row keeps its token and its connections.
    let releasedInStore: boolean;
    try {
      releasedInStore = await this.gate.run(() => this.store.releaseRow(handle));
    } catch (err) {
      return { error: this.storeFailure(err, `${handle} could not be released`) };
    }
    const revoked = this.sessions.unregisterRow(handle);
    this.revoke(revoked, handle, 'released by the operator');
    return { ok: { released: releasedInStore || revoked.length > 0 } };
  }

  private revoke(conns: readonly HubConnection[], handle: string, why: string): void {
    for (const c of conns) {
      c.closeWithError(swbError('UNAUTHENTICATED', `Row ${handle} was ${why}; the token this connection used no longer works.`));
    }
    if (conns.length > 0 && !this.sessions.isOnline(handle)) this.announcePeer(handle, false, 'row');
  }

  /** The embedded dashboard answers `rows.explain` through this; null removes it. */
  setExplainProvider(provider: ExplainProvider | null): void {
    this.explainProvider = provider;
  }

  /** Why a row is in its state, from the dashboard running it (NOT_FOUND from a headless hub). */
  explainRow(row: string, verbose: boolean): { ok: RowExplainResult } | { error: SwbErrorValue } {
    if (!this.explainProvider) {
      return {
        error: swbError(
          'NOT_FOUND',
          `This hub runs headless (no swb dashboard), so it watches no rows and cannot explain ${row}; run swb explain against the workspace whose dashboard runs ${row}.`,
        ),
      };
    }
    return this.explainProvider(row, verbose);
  }

  /** Every send, with its refusal reported (the dashboard shows rows' refused mail to the operator). */
  async send(sender: string, params: SendParams): Promise<{ ok: SendResult } | { error: SwbErrorValue }> {
    const outcome = await this.sendUnreported(sender, params);
    if ('error' in outcome) {
      this.refusedEmitter.fire({ sender, to: params.to, error: outcome.error });
      this.reportHeld(sender, outcome.error.code, outcome.error.details);
    } else {
      for (const s of outcome.ok.skipped ?? []) this.reportHeld(sender, s.code, s.details);
    }
    return outcome;
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

  /** The whole send pipeline up to the commit: the request (limits, recipients, rate), then group commit. */
  private async sendUnreported(sender: string, original: SendParams): Promise<{ ok: SendResult } | { error: SwbErrorValue }> {
    const routed = this.routeAcrossNodes(original);
    if ('error' in routed) return routed;
    const sent = routed.ok;
    const remote = sent.to.filter((t) => isRemoteAddress(t));
    if (remote.length > 0) {
      const json = Buffer.byteLength(JSON.stringify(sent.text), 'utf8');
      if (json > MAX_REMOTE_TEXT_JSON) {
        return { error: swbError('MESSAGE_TOO_LARGE', `Mail to another node carries at most ${MAX_REMOTE_TEXT_JSON} bytes of text as JSON; this is ${json}.`, { limit: MAX_REMOTE_TEXT_JSON }) };
      }
      try {
        await this.gate.run(() => {
          for (const h of remote) this.store.rememberHandle(h, 'remote');
        });
      } catch (err) {
        return { error: this.storeFailure(err, 'The message could not be stored; nothing was accepted, retry with the same id') };
      }
    }
    const built = buildSendRequest(sender, sent, {
      limits: this.limits,
      onlineHandles: () => this.sessions.onlineHandles(),
      hearsPushes: (h) => {
        for (const c of this.sessions.connectionsOf(h)) if (c.subscription !== 'none') return true;
        return false;
      },
      rateWait: (s) => this.rateWait(s),
      isStored: (s, id) => this.isStored(s, id),
    });
    if ('error' in built) return built;
    const outcome = await this.committer.submit(built.request);
    return outcome.ok ? { ok: outcome.result } : { error: outcome.error };
  }

  /**
   * Recipients on other nodes: `handle@node` stays as it is (this node's own name is dropped),
   * `all@*` becomes every online session the other nodes announce (and `all` here).
   */
  private routeAcrossNodes(sent: SendParams): { ok: SendParams } | { error: SwbErrorValue } {
    if (!sent.to.some((t) => t.includes('@'))) return { ok: sent };
    const to: string[] = [];
    for (const target of sent.to) {
      if (!target.includes('@')) {
        to.push(target);
        continue;
      }
      const a = parseRemoteAddress(target);
      if (!a) return { error: swbError('BAD_REQUEST', `${target} is not an address: use handle@node (a node name is 1-64 of A-Z a-z 0-9 _ -).`, { to: target }) };
      if (!this.federation) return { error: swbError('FEDERATION_OFF', `${target} is on another node, and this server is not federated: set "federation": {"url": "nats://HOST:4222", "node": "NAME"} in the config, or start it with --federate URL --node NAME.`, { to: target }) };
      if (a.node === ALL_NODES) {
        if (a.handle !== BROADCAST) return { error: swbError('BAD_REQUEST', `${target}: only all@* reaches every node.`, { to: target }) };
        to.push(BROADCAST);
        for (const p of this.federation.remotePeers()) if (p.online) to.push(remoteAddress(p.handle, p.node));
      } else if (a.node === this.federation.node) to.push(a.handle);
      else to.push(target);
    }
    return { ok: { ...sent, to: [...new Set(to)] } };
  }

  /** Milliseconds until `sender` may send again (0: now): its own bucket, and tokenless senders' shared one. */
  private rateWait(sender: string): number {
    const own = this.rate.take(sender);
    if (own > 0 || this.store.roleOf(sender) !== 'participant') return own;
    return this.participantRate.take('participants');
  }

  private isStored(sender: string, messageId: string): boolean {
    try {
      return this.store.hasMessage(sender, messageId);
    } catch {
      return false;
    }
  }

  /** Runs after the commit returned: push to recipients, wake waiters, tell the sender. */
  private afterCommit(request: AcceptRequest, outcome: AcceptOutcome): void {
    // Mail for other nodes (and receipts of theirs the commit queued) wait in the outbox.
    if (outcome.ok) this.federation?.kick();
    if (!outcome.ok || !outcome.message) return;
    try {
      this.announceCommitted(request, outcome);
    } catch (err) {
      // The message is committed; a failure to push it must not undo or hide that.
      this.log(`after commit of #${outcome.message.id}: ${err instanceof Error ? err.stack : String(err)}`);
    }
  }

  private announceCommitted(request: AcceptRequest, outcome: AcceptOutcome & { ok: true }): void {
    if (!outcome.message) return;
    const message = outcome.message;
    this.mailEmitter.fire(message);
    for (const r of outcome.result.recipients) {
      const item: MailItem = { ...message, seq: r.seq, state: r.state };
      for (const c of this.sessions.connectionsOf(r.to)) {
        if (c.subscription === 'mine') this.pushMail(c, item);
      }
      this.waiters.notify(r.to);
    }
    for (const c of this.connections) {
      if (c.subscription === 'all' && c.identity?.role === 'operator') this.pushMail(c, message);
    }
    if (outcome.repliedTo) {
      this.publishChanges([
        { id: outcome.repliedTo.id, sender: outcome.repliedTo.sender, to: request.sender, state: 'replied', at: message.createdAt },
      ]);
    }
  }

  private pushMail(conn: HubConnection, item: MailItem): void {
    conn.write(conn.dialect === 'intercom' ? intercomMailEnvelope(item) : notification('mail.arrived', { message: item }));
  }


  /** Pushes receipt changes to each message's sender (and operators watching everything). */
  publishUnreadChanged(handle: string): void {
    this.unreadChangedEmitter.fire(handle);
  }

  publishChanges(changes: readonly StateChange[]): void {
    // A change of mail from another node queued its receipt for that node (a trigger did).
    if (this.federation && changes.some((ch) => ch.sender.includes('@'))) this.federation.kick();
    for (const ch of changes) {
      const event: ReceiptChanged = { id: ch.id, to: ch.to, state: ch.state, at: ch.at };
      this.receiptEmitter.fire({ ...event, from: ch.sender });
      const targets = new Set<HubConnection>();
      for (const c of this.sessions.connectionsOf(ch.sender)) if (c.subscription !== 'none' && c.dialect === 'rpc') targets.add(c);
      for (const c of this.connections) if (c.subscription === 'all' && c.identity?.role === 'operator') targets.add(c);
      for (const c of targets) c.write(notification('receipt.changed', event));
    }
  }

  /** Hourly: expiry, retention, and tokenless handles nobody used for participantTtlHours. */
  sweep(): void {
    this.gate
      .run(() =>
        this.store.sweep({
          expiryMs: this.limits.expiryHours * 3600_000,
          retentionMs: this.limits.retentionDays * 86_400_000,
          forget: { ttlMs: this.limits.participantTtlHours * 3600_000, keep: (h) => this.sessions.isOnline(h) },
        }),
      )
      .then(
        ({ changes }) => this.publishChanges(changes),
        (err: unknown) => this.log(`sweep failed: ${this.storeFailure(err, 'sweep').message}`),
      );
  }

  /** The link to other nodes, for `swb status` (null: not federated). */
  async federationStatus(): Promise<LinkStatus | null> {
    return this.federation ? this.federation.status() : null;
  }

  log(line: string): void {
    this.options.log?.(line);
  }

  /** Stops accepting, closes every connection, releases the socket, the store and the lock. */
  stop(): Promise<void> {
    if (this.stopping) return this.stopping;
    this.stopping = (async () => {
      await this.federation?.stop();
      for (const c of this.connections) c.destroy();
      if (this.server) {
        const server = this.server;
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
      this.lifetime.dispose();
      this.stoppedEmitter.fire();
    })();
    return this.stopping;
  }
}

/** Tokenless participants together may send this many times one sender's rate. */
const PARTICIPANTS_RATE_FACTOR = 4;
const PEERS_PAGE = 500;

/**
 * Methods whose answer is a page (up to maxReplyBytes) reserve that much while in flight; other
 * answers are a few KB and reserve nothing (at most MAX_IN_FLIGHT of them per connection).
 */
const PAGED_METHODS: ReadonlySet<string> = new Set(['mail.list', 'mail.wait', 'mail.history', 'peers.list', 'server.rows', 'server.review']);

function replyReservation(method: string, limits: HubLimits): number {
  return PAGED_METHODS.has(method) ? limits.maxReplyBytes : 0;
}


/** The directory above `switchboard-<uid>/<ws>` or `run/<ws>`: the part we did not create. */
function trustedRootOf(dir: string): string {
  return dirname(dirname(dir));
}
