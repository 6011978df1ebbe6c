// The hub: owns the workspace lock, the socket, the sessions and the store, and routes mail.
// Start it with Hub.start(); it refuses (HUB_RUNNING) when another live hub holds the lock, and
// only after winning the lock does it dare remove a stale socket left by a dead hub.
import { createServer, type Server, type Socket } from 'node:net';
import { randomBytes } from 'node:crypto';
import { chmodSync, unlinkSync, writeFileSync, renameSync } from 'node:fs';
import { dirname } from 'node:path';
import { SwbError, swbError, type SwbErrorValue } from '../protocol/error-codes.js';
import { BROADCAST, OPERATOR } from '../protocol/handle.js';
import { DEFAULT_LIMITS, type HubLimits } from '../protocol/limits.js';
import type { MailItem, PeerChanged, PeerInfo, ReceiptChanged, RowExplainResult, SendParams, SendResult, SessionRole } from '../protocol/methods.js';
import type { DecodedFrame } from '../protocol/ndjson-decoder.js';
import { classifyLine, failure, notification, success, type RpcId } from '../protocol/rpc.js';
import { MailStore, type AcceptOutcome, type AcceptRequest, type StateChange } from '../store/mail-store.js';
import { Emitter } from '../util/event.js';
import { DisposableStore, toDisposable } from '../util/lifecycle.js';
import { GroupCommitter } from './group-commit.js';
import { HubConnection } from './hub-connection.js';
import { handleIntercomEnvelope } from './intercom-dialect.js';
import { ensurePrivateDir, isOwnSocket } from './private-dir.js';
import { RateLimiter } from './rate-limiter.js';
import { dispatchRpc } from './rpc-handlers.js';
import type { RuntimePaths } from './runtime-paths.js';
import { SessionRegistry } from './session-registry.js';
import { tryAcquireWorkspaceLock } from './workspace-lock.js';
import { MailWaiters } from './mail-waiters.js';

export interface HubOptions {
  paths: RuntimePaths;
  limits?: Partial<HubLimits>;
  now?: () => number;
  log?: (line: string) => void;
  /** Embedded in a dashboard that runs rows: it will not stop on a `hub.shutdown` request. */
  embedded?: boolean;
}

/** Answers `rows.explain` (the dashboard that embeds the hub registers one; a headless hub has none). */
export type ExplainProvider = (row: string, verbose: boolean) => { ok: RowExplainResult } | { error: SwbErrorValue };

export class Hub {
  readonly limits: HubLimits;
  readonly sessions: SessionRegistry<HubConnection>;
  readonly store: MailStore;
  readonly waiters: MailWaiters;
  readonly now: () => number;
  private readonly committer: GroupCommitter;
  private readonly rate: RateLimiter;
  private readonly connections = new Set<HubConnection>();
  private readonly lifetime = new DisposableStore();
  private server: Server | null = null;
  private explainProvider: ExplainProvider | null = null;
  private stopping: Promise<void> | null = null;

  private readonly mailEmitter = new Emitter<MailItem>();
  private readonly receiptEmitter = new Emitter<ReceiptChanged & { from: string }>();
  private readonly peerEmitter = new Emitter<PeerChanged>();
  private readonly refusedEmitter = new Emitter<{ sender: string; to: readonly string[]; error: SwbErrorValue }>();
  /** A send was refused (QUEUE_FULL, UNKNOWN_PEER, RATE_LIMITED, ...): nothing was stored. */
  readonly onRefused = this.refusedEmitter.event;
  /** Every accepted message (the embedded TUI's notifications and wake controller listen here). */
  readonly onMail = this.mailEmitter.event;
  readonly onReceipt = this.receiptEmitter.event;
  readonly onPeer = this.peerEmitter.event;
  private readonly stoppedEmitter = new Emitter<void>();
  readonly onStopped = this.stoppedEmitter.event;

  static async start(options: HubOptions): Promise<Hub> {
    const { paths } = options;
    ensurePrivateDir(paths.runDir, trustedRootOf(paths.runDir));
    ensurePrivateDir(paths.dataDir, trustedRootOf(paths.dataDir));
    if (paths.socketDir !== paths.runDir) ensurePrivateDir(paths.socketDir, dirname(dirname(paths.socketDir)));
    const lock = tryAcquireWorkspaceLock(paths.lockFile);
    if (!lock) throw new SwbError('HUB_RUNNING', `A hub is already running for workspace ${paths.workspaceId}.`);
    let hub: Hub | undefined;
    try {
      const limits = { ...DEFAULT_LIMITS, ...options.limits };
      const store = MailStore.open(paths.dbFile, { maxUnread: limits.maxUnread, ...(options.now ? { now: options.now } : {}) });
      hub = new Hub(options, limits, store);
      hub.lifetime.add(lock);
      await hub.listen();
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
    this.sessions = new SessionRegistry(randomBytes(24).toString('base64url'));
    this.rate = new RateLimiter(limits.ratePerSecond, this.now);
    this.waiters = new MailWaiters();
    this.committer = new GroupCommitter(store, (req, outcome) => this.afterCommit(req, outcome));
    this.lifetime.add(toDisposable(() => store.close()));
    this.lifetime.add(this.waiters);
    store.rememberHandle(OPERATOR, 'operator');
    this.sweep();
    const sweeper = setInterval(() => this.sweep(), 60 * 60 * 1000);
    sweeper.unref();
    this.lifetime.add(toDisposable(() => clearInterval(sweeper)));
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
      server.listen(socketPath, () => {
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

  private accept(socket: Socket): void {
    const conn = new HubConnection(
      socket,
      this.limits.maxPendingWriteBytes,
      this.limits.maxFrameBytes,
      (c, frame) => this.onFrame(c, frame),
      (c) => this.onClose(c),
    );
    this.connections.add(conn);
    if (this.stopping) conn.destroy();
  }

  private onFrame(conn: HubConnection, frame: DecodedFrame): void {
    if (frame.kind === 'error') {
      this.replyError(conn, null, frame.error);
      return;
    }
    const msg = classifyLine(frame.text);
    if (msg.kind === 'intercom') {
      if (conn.dialect === 'rpc') {
        this.replyError(conn, null, swbError('BAD_FRAME', 'This connection speaks JSON-RPC; an Intercom envelope is not allowed here.'));
        return;
      }
      conn.dialect = 'intercom';
      handleIntercomEnvelope(this, conn, msg.envelope);
      return;
    }
    if (conn.dialect === 'intercom') {
      conn.write({ type: 'error', payload: { code: 'BAD_FRAME', message: 'This connection speaks the Intercom dialect.' } });
      return;
    }
    conn.dialect = 'rpc';
    switch (msg.kind) {
      case 'invalid':
        this.replyError(conn, msg.id, msg.error);
        return;
      case 'notification':
      case 'response':
        return; // clients send no notifications we act on; stray responses are ignored
      case 'request': {
        const { id, method, params } = msg.message;
        conn.beginRequest();
        dispatchRpc(this, conn, method, params ?? {}).then(
          (result) => {
            conn.endRequest();
            if ('error' in result) this.replyError(conn, id, result.error);
            else conn.write(success(id, result.ok));
          },
          (err: unknown) => {
            conn.endRequest();
            this.log(`internal error in ${method}: ${err instanceof Error ? err.stack : String(err)}`);
            this.replyError(conn, id, swbError('INTERNAL', 'The hub failed to handle this request; see the hub log.'));
          },
        );
      }
    }
  }

  replyError(conn: HubConnection, id: RpcId | null, error: SwbErrorValue): void {
    if (conn.dialect === 'intercom') conn.write({ type: 'error', payload: { code: error.code, message: error.message } });
    else conn.write(failure(id, error));
  }

  private onClose(conn: HubConnection): void {
    this.connections.delete(conn);
    this.waiters.cancelConnection(conn);
    if (conn.identity && this.sessions.release(conn, conn.identity.handle)) {
      this.announcePeer(conn.identity.handle, false, conn.identity.role);
    }
  }

  /** Completes a hello: claims the handle, remembers it, announces it. */
  claimSession(conn: HubConnection, session: string | undefined, token: string | undefined): SwbErrorValue | null {
    if (conn.identity) return swbError('BAD_REQUEST', `This connection is already ${conn.identity.handle}.`);
    const claim = this.sessions.claim(conn, session, token);
    if (!claim.ok) return claim.error;
    conn.identity = claim.identity;
    const wasKnown = this.store.isKnown(claim.identity.handle);
    this.store.rememberHandle(claim.identity.handle, claim.identity.role);
    if (!wasKnown || [...this.sessions.connectionsOf(claim.identity.handle)].length === 1) {
      this.announcePeer(claim.identity.handle, true, claim.identity.role);
    }
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
    return this.store
      .knownHandles()
      .map(({ handle, role, unread }) => ({ handle, role, unread, online: this.sessions.isOnline(handle) }))
      .sort((a, b) => a.handle.localeCompare(b.handle));
  }

  /** Registers a row of the embedded TUI (or, over the socket, of an operator client). */
  registerRow(handle: string): { ok: true; token: string } | { ok: false; error: SwbErrorValue } {
    const r = this.sessions.registerRow(handle);
    if (r.ok) this.store.rememberHandle(handle, 'row');
    return r;
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

  /** The whole send pipeline up to the commit: limits, recipients, rate, then group commit. */
  /** Every send, with its refusal reported (the dashboard shows rows' refused mail to the operator). */
  async send(sender: string, params: SendParams): Promise<{ ok: SendResult } | { error: SwbErrorValue }> {
    const outcome = await this.sendUnreported(sender, params);
    if ('error' in outcome) this.refusedEmitter.fire({ sender, to: params.to, error: outcome.error });
    return outcome;
  }

  private async sendUnreported(sender: string, params: SendParams): Promise<{ ok: SendResult } | { error: SwbErrorValue }> {
    const bytes = Buffer.byteLength(params.text, 'utf8');
    if (bytes > this.limits.maxMessageBytes) {
      return {
        error: swbError('MESSAGE_TOO_LARGE', `The message is ${bytes} bytes; the limit is ${this.limits.maxMessageBytes}.`, {
          limit: this.limits.maxMessageBytes,
        }),
      };
    }
    if (params.text.length === 0) return { error: swbError('BAD_REQUEST', 'A message needs some text.') };
    const requestedTo = [...new Set(params.to)];
    if (requestedTo.length > this.limits.maxRecipients) {
      return { error: swbError('BAD_REQUEST', `At most ${this.limits.maxRecipients} recipients per message.`) };
    }
    const to: string[] = [];
    for (const target of requestedTo) {
      if (target === BROADCAST || target === '*') {
        // Broadcast reaches live sessions only (mail for offline rows would pile up unread).
        for (const h of this.sessions.onlineHandles()) if (h !== sender && !to.includes(h)) to.push(h);
      } else if (!to.includes(target)) {
        to.push(target);
      }
    }
    const wait = this.rate.take(sender);
    if (wait > 0) {
      return {
        error: swbError('RATE_LIMITED', `${sender} is sending faster than ${this.limits.ratePerSecond} messages a second; retry in ${wait} ms.`, {
          retryAfterMs: wait,
        }),
      };
    }
    const live = new Set<string>();
    for (const h of to) {
      for (const c of this.sessions.connectionsOf(h)) if (c.subscription !== 'none') live.add(h);
    }
    const request: AcceptRequest = {
      sender,
      to,
      requestedTo: requestedTo.map((t) => (t === '*' ? BROADCAST : t)),
      text: params.text,
      kind: params.kind ?? 'msg',
      replyTo: params.replyTo ?? null,
      messageId: params.messageId ?? randomBytes(9).toString('base64url'),
      live,
    };
    const outcome = await this.committer.submit(request);
    return outcome.ok ? { ok: outcome.result } : { error: outcome.error };
  }

  /** Runs after the commit returned: push to recipients, wake waiters, tell the sender. */
  private afterCommit(request: AcceptRequest, outcome: AcceptOutcome): void {
    if (!outcome.ok || !outcome.message) return;
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
        { id: outcome.repliedTo.id, sender: this.store.message(outcome.repliedTo.id)?.from ?? '', to: request.sender, state: 'replied', at: message.createdAt },
      ]);
    }
  }

  private pushMail(conn: HubConnection, item: MailItem): void {
    if (conn.dialect === 'intercom') {
      conn.write({
        id: String(item.id),
        type: 'chat',
        from_session: item.from,
        to_session: item.to.length === 1 ? item.to[0] : BROADCAST,
        channel: item.kind,
        reply_to: item.replyTo === null ? null : String(item.replyTo),
        payload: { text: item.text, kind: item.kind, messageId: item.messageId },
        timestamp: new Date(item.createdAt).toISOString(),
      });
    } else {
      conn.write(notification('mail.arrived', { message: item }));
    }
  }

  /** Pushes receipt changes to each message's sender (and operators watching everything). */
  publishChanges(changes: readonly StateChange[]): void {
    for (const ch of changes) {
      const event: ReceiptChanged = { id: ch.id, to: ch.to, state: ch.state, at: ch.at };
      this.receiptEmitter.fire({ ...event, from: ch.sender });
      const targets = new Set<HubConnection>();
      for (const c of this.sessions.connectionsOf(ch.sender)) if (c.subscription !== 'none' && c.dialect === 'rpc') targets.add(c);
      for (const c of this.connections) if (c.subscription === 'all' && c.identity?.role === 'operator') targets.add(c);
      for (const c of targets) c.write(notification('receipt.changed', event));
    }
  }

  private sweep(): void {
    try {
      const changes = this.store.sweep({
        expiryMs: this.limits.expiryHours * 3600_000,
        retentionMs: this.limits.retentionDays * 86_400_000,
      });
      this.publishChanges(changes);
    } catch (err) {
      this.log(`sweep failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  log(line: string): void {
    this.options.log?.(line);
  }

  /** Stops accepting, closes every connection, releases the socket, the store and the lock. */
  stop(): Promise<void> {
    if (this.stopping) return this.stopping;
    this.stopping = (async () => {
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

/** The directory above `switchboard-<uid>/<ws>` or `run/<ws>`: the part we did not create. */
function trustedRootOf(dir: string): string {
  return dirname(dirname(dir));
}
