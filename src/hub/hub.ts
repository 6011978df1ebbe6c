// The hub: the workspace's mail server, as a lifecycle. Start it with Hub.start(); it refuses
// (HUB_RUNNING) when another live hub holds the lock, and only after winning the lock does it dare
// remove a stale socket left by a dead hub. It opens the store, makes the parts by job and wires
// them — the mail core (mail-core.ts), the sessions (hub-sessions.ts), the send pipeline
// (send-pipeline.ts), the fan-out (fan-out.ts), the listener (hub-listener.ts) — links other nodes
// when federated, sweeps hourly, and stops them all in reverse. Everything that serves a request
// takes the parts as `core` (hub-core.ts), never the Hub.
import { randomBytes } from 'node:crypto';
import { dirname } from 'node:path';
import { SwbError } from '../protocol/error-codes.js';
import { OPERATOR } from '../protocol/handle.js';
import { DEFAULT_LIMITS, type HubLimits } from '../protocol/limits.js';
import { MailStore, type StoreOptions } from '../store/mail-store.js';
import { systemClock, type Clock } from '../util/clock.js';
import { Emitter } from '../util/event.js';
import { DisposableStore, toDisposable } from '../util/lifecycle.js';
import { checkDirectoryChain, myUid } from '../util/private-path.js';
import { TimerSlot } from '../util/timer-slot.js';
import type { FederationSettings } from '../config/federation-config.js';
import type { FederationLink } from '../federation/nats-link.js';
import { EventStream } from './event-stream.js';
import { FanOut } from './fan-out.js';
import { dispatchFrame } from './frame-dispatch.js';
import type { HubConnection } from './hub-connection.js';
import type { HubCore } from './hub-core.js';
import { HubListener } from './hub-listener.js';
import { HubSessions } from './hub-sessions.js';
import { HookDelivery } from './hook-delivery.js';
import { MailCore } from './mail-core.js';
import { MailWaiters } from './mail-waiters.js';
import { ensurePrivateDir } from './private-dir.js';
import { ResourceService } from './resource-service.js';
import type { RuntimePaths } from './runtime-paths.js';
import { SendPipeline } from './send-pipeline.js';
import { ServerSeat } from './server-control.js';
import { SessionRegistry } from './session-registry.js';
import { StoreGate } from './store-gate.js';
import { tryAcquireWorkspaceLock, type WorkspaceLock } from './workspace-lock.js';

// The dashboard (src/app/) names these types by the hub; they live with the part that makes them.
export type { BudgetHeld } from './send-pipeline.js';
export type { ExplainProvider } from './server-control.js';

/** How often the hub sweeps (expiry, retention, unused handles), after the sweep it makes at start. */
const SWEEP_EVERY_MS = 60 * 60 * 1000;

export interface HubOptions {
  paths: RuntimePaths;
  limits?: Partial<HubLimits>;
  /** What the hub stamps on its records (mail, sessions, tickets); default Date.now. */
  now?: () => number;
  /** What times its rules — the sweep, waits, deadlines, lock probes (default: the system clock). */
  clock?: Clock;
  log?: (line: string) => void;
  /** Embedded in a dashboard that runs rows: it will not stop on a `hub.shutdown` request. */
  embedded?: boolean;
  /** Opens the store (default MailStore.open). Fault-injection tests wrap the database here. */
  openStore?: (file: string, options: StoreOptions) => MailStore;
  /** Joins other machines' servers through NATS JetStream (src/federation/); absent: this node only. */
  federation?: FederationSettings;
  /**
   * The workspace's lock, already taken with takeHubLock (the workspace server takes it before it
   * listens for clients). The hub owns it from here: it lets it go when it stops or fails to
   * start. Absent: the hub takes it itself.
   */
  lock?: WorkspaceLock;
}

/** The federation's code, loaded only when the hub is federated. */
interface FederationModules {
  settings: FederationSettings;
  nats: typeof import('../federation/nats-link.js');
  store: typeof import('../federation/federation-store.js');
}

export class Hub {
  readonly store: MailStore;
  /** Every store call passes it: another process's lock queues calls instead of freezing the loop. */
  readonly gate: StoreGate;
  /** What the method handlers, the Intercom dialect and the operator port work with. */
  readonly core: HubCore;
  private readonly listener: HubListener;
  private readonly lifetime = new DisposableStore();
  /** The NATS link to other nodes (null: not federated). */
  private readonly federation: FederationLink | null;
  private stopping: Promise<void> | null = null;
  private readonly stoppedEmitter = new Emitter<void>();
  readonly onStopped = this.stoppedEmitter.event;

  static async start(options: HubOptions): Promise<Hub> {
    const { paths } = options;
    const lock = options.lock ?? takeHubLock(paths);
    let hub: Hub | undefined;
    try {
      const federation = options.federation ? await loadFederation(options.federation) : null;
      const limits = { ...DEFAULT_LIMITS, ...options.limits };
      const open = options.openStore ?? ((file: string, o: StoreOptions) => MailStore.open(file, o));
      const replyBudget = { perPair: limits.automaticReplies, maxDepth: limits.maxReplyDepth, countParticipants: limits.budgetParticipants };
      const store = open(paths.dbFile, { maxUnread: limits.maxUnread, replyBudget, ...(options.now ? { now: options.now } : {}) });
      hub = new Hub(options, limits, store, lock, federation);
      // The link exists before the socket listens: a client that connects at once (a script
      // restarted with the server) must find mail for handle@node queued, not FEDERATION_OFF.
      hub.lifetime.add(await hub.listener.listen());
      await hub.federation?.begin();
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
    lock: { dispose(): void },
    federation: FederationModules | null,
  ) {
    const { paths } = options;
    const now = options.now ?? Date.now;
    const clock = options.clock ?? systemClock;
    const log = (line: string): void => options.log?.(line);
    this.store = store;
    this.lifetime.add(lock);
    // A batch whose commit failed leaves the store's caches ahead of the disk: they are read again.
    const gate = (this.gate = new StoreGate(limits.storeLockWaitMs, clock, store.db, () => store.resyncCaches()));
    const registry = new SessionRegistry<HubConnection>(randomBytes(24).toString('base64url'), (h) => store.roleOf(h) === 'row');
    const connections = new Set<HubConnection>();
    const waiters = new MailWaiters(clock);
    const events = new EventStream();
    // Made first, used once started: its host's callbacks reach the parts made below.
    const link = (this.federation = federation ? this.link(federation, store, now, log) : null);
    const fanOut = new FanOut({ connections, sessions: registry, waiters, events, federation: link });
    const mail = new MailCore({ store, gate, fanOut, limits, dbFile: paths.dbFile, log });
    const sessions = new HubSessions({ registry, store, mail, fanOut, federation: link, limits, now, socketPath: paths.socketPath, log });
    const sends = new SendPipeline({ store, mail, sessions, fanOut, federation: link, limits, now, log });
    const hooks = new HookDelivery({
      unread: (handle) => {
        const { items, maxSeq } = mail.unreadMail(handle);
        return { ids: items.map((m) => m.id), maxSeq };
      },
      record: (handle, ids, told) => mail.recordWake(handle, ids, 'hook', told),
    });
    this.lifetime.add(toDisposable(() => store.close()));
    this.lifetime.add(toDisposable(() => gate.dispose()));
    this.lifetime.add(waiters);
    const resources = this.lifetime.add(new ResourceService({ db: store.db, gate, now, clock, events, maxWaitMs: () => limits.maxWaitMs, log }));
    this.lifetime.add(fanOut.onPeer((p) => resources.peerChanged(p)));
    this.core = {
      limits,
      mail,
      sessions,
      sends,
      fanOut,
      waiters,
      events,
      hooks,
      resources,
      server: new ServerSeat(paths.workspaceId, options.embedded === true),
      federationStatus: async () => (link ? link.status() : null),
      stop: () => this.stop(),
      log,
    };
    this.listener = new HubListener({
      socketPath: paths.socketPath,
      operatorTokenFile: paths.operatorTokenFile,
      operatorToken: registry.operatorToken,
      limits,
      connections,
      clock,
      onFrame: (conn, frame) => dispatchFrame(this.core, conn, frame),
      onClosed: (conn) => {
        events.unsubscribe(conn);
        waiters.cancelConnection(conn);
        resources.connectionClosed(conn);
        sessions.connectionClosed(conn);
      },
    });
    store.rememberHandle(OPERATOR, 'operator');
    this.sweep();
    const sweeper = this.lifetime.add(new TimerSlot(clock));
    const sweepHourly = (): void => {
      sweeper.set(sweepHourly, SWEEP_EVERY_MS);
      this.sweep();
    };
    sweeper.set(sweepHourly, SWEEP_EVERY_MS);
    if (link) {
      this.lifetime.add(fanOut.onPeer((p) => p.role !== 'remote' && link.peersChanged()));
      log(`federation: node ${federation!.settings.node} on ${federation!.settings.url}`);
    }
  }

  /** The link to other nodes; mail may queue for it at once, and its `begin` connects (failing the start on NODE_COLLISION). */
  private link({ settings, nats, store: fed }: FederationModules, store: MailStore, now: () => number, log: (line: string) => void): FederationLink {
    return nats.FederationLink.create(settings, {
      store: new fed.FederationStore(store, settings.node),
      runStore: (fn) => this.gate.run(fn),
      known: (h) => {
        const role = store.roleOf(h);
        return role !== undefined && role !== 'remote';
      },
      live: (h) => this.core.sessions.hearsPushes(h),
      onIncoming: (result) => {
        for (const { request, outcome } of result.accepted) this.core.sends.afterCommit(request, outcome);
        this.core.fanOut.publishChanges(result.changes);
      },
      onPresence: () => this.core.fanOut.remotePresence(),
      localPeers: () =>
        this.core.sessions
          .peers()
          .filter((p) => p.role !== 'remote')
          .map((p) => ({ handle: p.handle, online: p.online })),
      now,
      log,
    });
  }

  get paths(): RuntimePaths {
    return this.options.paths;
  }

  /** Hourly: expiry, retention, and tokenless handles nobody used for participantTtlHours. */
  sweep(): void {
    const { mail, sessions } = this.core;
    mail.sweep((h) => sessions.isOnline(h));
  }

  /** Stops accepting, closes every connection, releases the socket, the store and the lock. */
  stop(): Promise<void> {
    if (this.stopping) return this.stopping;
    this.listener.stopAccepting();
    this.stopping = (async () => {
      await this.federation?.stop();
      await this.listener.close();
      this.lifetime.dispose();
      this.stoppedEmitter.fire();
    })();
    return this.stopping;
  }
}

/**
 * Makes the workspace's private directories and takes its lock: what a hub needs before it may
 * touch the socket or the store. HUB_RUNNING when another live hub (or server) holds the lock.
 */
export function takeHubLock(paths: RuntimePaths): WorkspaceLock {
  ensurePrivateDir(paths.runDir, trustedRootOf(paths.runDir));
  ensurePrivateDir(paths.dataDir, trustedRootOf(paths.dataDir));
  if (paths.socketDir !== paths.runDir) ensurePrivateDir(paths.socketDir, dirname(dirname(paths.socketDir)));
  // What every client will check above the socket, checked before listening: a hub no client
  // would talk to must not start (e.g. under a 0777 TMPDIR without the sticky bit).
  checkDirectoryChain(paths.socketDir, myUid(), 'The hub will not listen there: no client would trust it.');
  const lock = tryAcquireWorkspaceLock(paths.lockFile);
  if (!lock) throw new SwbError('HUB_RUNNING', `A hub is already running for workspace ${paths.workspaceId}.`);
  return lock;
}

async function loadFederation(settings: FederationSettings): Promise<FederationModules> {
  const [nats, store] = await Promise.all([import('../federation/nats-link.js'), import('../federation/federation-store.js')]);
  return { settings, nats, store };
}

/** The directory above `switchboard-<uid>/<ws>` or `run/<ws>`: the part we did not create. */
function trustedRootOf(dir: string): string {
  return dirname(dirname(dir));
}
