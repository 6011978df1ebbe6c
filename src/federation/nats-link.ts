// This node's link to the others through NATS JetStream. Mail for another node is committed to
// the outbox first (the sender hears "accepted" then); the publisher sends the outbox in id order
// with each row's dedup id (Nats-Msg-Id) and removes a row only once the stream acknowledged it.
// Everything addressed to this node is read by one durable consumer, applied to the store in one
// transaction per batch, pushed to its sessions at once, and acknowledged only once that commit is
// on disk (synced on the thread pool: store/wal-sync.ts). With NATS unreachable the outbox
// simply grows ("queued: link down since ..."), and empties in order when the link is back.
// One file over 450 lines because the publisher, the consumer and the link state share one
// connection's life (connect, lose, reconnect, close): split, each would re-implement that cycle.
//
// Stream SWB_MAIL keeps subjects swb.<origin>.<destination>.<m|r> as a work queue: an envelope is
// removed once its destination acknowledged it, and kept up to RETENTION_MS (14 days) for a node
// that is down. Permissions (docs/federation/nats-server.conf) let a node publish only under
// swb.<itself>.>, and the receiver checks the origin against the subject as well.
import { readFileSync, statSync, type Stats } from 'node:fs';
import { connect, credsAuthenticator, type ConnectionOptions, type NatsConnection } from '@nats-io/transport-node';
import { AckPolicy, DeliverPolicy, RetentionPolicy, StorageType, jetstream, jetstreamManager, type JetStreamClient, type JsMsg } from '@nats-io/jetstream';
import { SwbError } from '../protocol/error-codes.js';
import { systemClock } from '../util/clock.js';
import { TimerSlot } from '../util/timer-slot.js';
import type { FederationStore, IncomingResult } from './federation-store.js';
import { groupIntoEnvelopes } from './federation-store.js';
import { dedupId, inboundFilter, mailSubject, readEnvelope, STREAM, SUBJECT_ROOT, type Envelope } from './envelope.js';
import type { FederationSettings } from '../config/federation-config.js';
import { natsExtraCa } from './nats-extra-ca.js';
import { Presence, PRESENCE_BEAT_MS, type PresencePeer, type RemotePeer } from './presence.js';

const RETENTION_MS = 14 * 86_400_000;
const DEDUP_WINDOW_MS = 2 * 60_000;
const PUBLISH_BATCH = 512;
/** Envelopes applied in one commit (each holds up to MAX_ITEMS items). */
const APPLY_BATCH = 64;
/** An envelope larger than this is refused on receipt (16 KiB of text is swb's default limit). */
const MAX_ENVELOPE_BYTES = 1 << 20;
const FIRST_CONNECT_MS = 3000;
/**
 * How long an applied batch's acknowledgement may wait for the hub's next group commit to put it on
 * disk (store/wal-sync.ts) before it takes an fsync of its own: while local mail flows, no second
 * fsync of the WAL runs beside the one a local send waits for. The stream keeps custody meanwhile.
 */
const ACK_SYNC_GRACE_MS = 5;

export interface LinkHost {
  store: FederationStore;
  /** Runs a store call the way the hub does (queued behind another process's lock). */
  runStore<T>(fn: () => T): Promise<T>;
  /** A local session mail may be stored for. */
  known(handle: string): boolean;
  /** A local session that hears pushed mail now. */
  live(handle: string): boolean;
  /** What a batch from other nodes stored and changed, for the hub to push and publish. */
  onIncoming(result: IncomingResult): void;
  /** Remote presence changed (peers lists, the composer's completion). */
  onPresence(): void;
  localPeers(): PresencePeer[];
  now(): number;
  log(line: string): void;
}

/** How long one attempt to connect may take (nats.js waits 20 s by default). */
const CONNECT_TIMEOUT_MS = 5000;

export interface LinkStatus {
  node: string;
  url: string;
  state: 'connecting' | 'up' | 'down';
  /** Since when the link is in this state. */
  since: number;
  queued: number;
  oldestQueuedAt: number | null;
  /** The last thing that went wrong, for the operator. */
  problem: string | null;
}

export class FederationLink {
  private nc: NatsConnection | null = null;
  private js: JetStreamClient | null = null;
  private presence: Presence | null = null;
  private state: LinkStatus['state'] = 'connecting';
  private since: number;
  private problem: string | null = null;
  private stopped = false;
  private wake: (() => void) | null = null;
  private kicked = false;
  private lastOut = new Map<string, number>();
  private readonly inbox: JsMsg[] = [];
  private applying = false;
  private applyScheduled = false;
  /** The presence beat every PRESENCE_BEAT_MS while up (it does not hold the event loop). */
  private readonly beatTimer = new TimerSlot();
  /** A beat soon after local sessions changed, coalesced. */
  private readonly beatSoon = new TimerSlot();
  private queuedCache = { count: 0, oldestAt: null as number | null };
  private ready: Promise<void> | null = null;
  private auth: Partial<ConnectionOptions> = {};
  /** The consumer's message stream now (stopped to read anew after NATS lost its store). */
  private consuming: { stop(): void } | null = null;

  private constructor(
    private readonly settings: FederationSettings,
    private readonly host: LinkHost,
  ) {
    this.since = host.now();
  }

  /** The link, not yet connected: `begin` connects it. Mail may be queued for it at once. */
  static create(settings: FederationSettings, host: LinkHost): FederationLink {
    return new FederationLink(settings, host);
  }

  /**
   * Connects. If NATS answers within a few seconds the node name is claimed now, and a rival's
   * live claim fails the start with NODE_COLLISION; otherwise the link keeps trying in the
   * background (mail queues meanwhile) and claims the name once connected.
   */
  async begin(): Promise<void> {
    // Unreadable credentials are the operator's to fix: say so now, do not retry them forever.
    this.auth = this.authOptions();
    this.lastOut = await this.host.runStore(() => this.host.store.lastPublished());
    await this.refreshQueued();
    this.ready = this.connectAndRun();
    const first = await Promise.race([this.ready.then(() => 'done' as const), delay(FIRST_CONNECT_MS).then(() => 'slow' as const)]);
    if (first === 'done' && this.problem?.startsWith('NODE_COLLISION')) {
      await this.stop();
      throw new SwbError('NODE_COLLISION', this.problem.slice('NODE_COLLISION: '.length));
    }
  }

  private async connectAndRun(): Promise<void> {
    const options: ConnectionOptions = {
      servers: this.settings.url.split(',').map((s) => s.trim()),
      name: `swb-${this.settings.node}`,
      // Replies (publish acks, pulled messages) come to this node's own prefix: the permissions
      // may then deny every other node's inboxes.
      inboxPrefix: `_INBOX_swb_${this.settings.node}`,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 500,
      // A first connect that fails is retried here (below), not inside the client: so each
      // failure's reason (refused, a TLS handshake, a bad password) reaches `swb status`.
      waitOnFirstConnect: false,
      // A server that takes the TCP connection but never finishes the handshake counts as down.
      timeout: CONNECT_TIMEOUT_MS,
      ...this.auth,
    };
    try {
      this.nc = await connect(options);
    } catch (err) {
      this.fail(`cannot connect to ${this.settings.url}: ${messageOf(err)}`);
      if (!this.stopped) {
        await delay(1000);
        return this.connectAndRun();
      }
      return;
    }
    if (this.stopped) return void (await this.nc.close());
    try {
      this.js = jetstream(this.nc);
      await this.ensureStream();
      this.presence = await Presence.open(this.nc, this.settings.node, this.host.store.epoch, this.host.now);
      const rival = await this.presence.claim();
      if (rival) {
        this.problem = `NODE_COLLISION: another swb server (store ${rival.epoch}) holds node name ${this.settings.node} on ${this.settings.url} (seen ${Math.round(rival.ageMs / 1000)} s ago); pick another federation.node`;
        this.host.log(this.problem);
        await this.nc.close();
        return;
      }
      await this.beat();
      await this.presence.watch(() => this.host.onPresence());
    } catch (err) {
      this.fail(`setting up JetStream on ${this.settings.url}: ${messageOf(err)}`);
      await this.nc.close().catch(() => undefined);
      if (!this.stopped) {
        await delay(1000);
        return this.connectAndRun();
      }
      return;
    }
    this.setState('up');
    void this.watchStatus(this.nc);
    void this.publishLoop();
    void this.consumeLoop();
    this.beatTimer.set(this.beatOnSchedule, PRESENCE_BEAT_MS);
  }

  private authOptions(): Partial<ConnectionOptions> {
    const s = this.settings;
    const out: Partial<ConnectionOptions> = {};
    if (s.credentials) out.authenticator = credsAuthenticator(readSecret(s.credentials, 'federation.credentials'));
    if (s.user && s.passwordFile) {
      out.user = s.user;
      out.pass = readSecret(s.passwordFile, 'federation.passwordFile').toString('utf8').trim();
    }
    // The operator's NODE_EXTRA_CA_CERTS, which the server's node was started without (nats-extra-ca.ts),
    // for TLS only: with any tls option, the NATS client refuses a server that offers no TLS.
    const tlsUrl = /(^|,)\s*tls:\/\//.test(s.url);
    const extraCa = (s.tls || tlsUrl) && !s.tls?.ca ? natsExtraCa(process.env, (line) => this.host.log(`federation: ${line}`)) : undefined;
    if (s.tls) {
      // Read here, not by the NATS client on each connect: a missing file or a private key that
      // others may read refuses the start with a sentence, like the password and .creds files.
      out.tls = {
        ...(s.tls.ca ? { ca: readPublic(s.tls.ca, 'federation.tls.ca').toString('utf8') } : {}),
        ...(extraCa ? { ca: extraCa } : {}),
        ...(s.tls.cert ? { cert: readPublic(s.tls.cert, 'federation.tls.cert').toString('utf8') } : {}),
        ...(s.tls.key ? { key: readSecret(s.tls.key, 'federation.tls.key').toString('utf8') } : {}),
      };
    } else if (extraCa) {
      out.tls = { ca: extraCa };
    }
    return out;
  }

  private async ensureStream(): Promise<void> {
    const jsm = await jetstreamManager(this.nc!);
    const info = await jsm.streams.info(STREAM).catch(() => null);
    if (!info) {
      await jsm.streams.add({
        name: STREAM,
        subjects: [`${SUBJECT_ROOT}.*.*.*`],
        retention: RetentionPolicy.Workqueue,
        storage: StorageType.File,
        max_age: RETENTION_MS * 1e6,
        duplicate_window: DEDUP_WINDOW_MS * 1e6,
      });
    }
    const durable = consumerName(this.settings.node);
    const existing = await jsm.consumers.info(STREAM, durable).catch(() => null);
    if (!existing) {
      await jsm.consumers.add(STREAM, {
        durable_name: durable,
        filter_subject: inboundFilter(this.settings.node),
        ack_policy: AckPolicy.Explicit,
        deliver_policy: DeliverPolicy.All,
        // A receiver that died holding envelopes gets them again after this long.
        ack_wait: 10e9,
        max_ack_pending: 8192,
        max_deliver: -1,
      });
    }
  }

  private async watchStatus(nc: NatsConnection): Promise<void> {
    for await (const s of nc.status()) {
      if (s.type === 'disconnect') this.setState('down', `lost ${this.settings.url}`);
      else if (s.type === 'reconnect') {
        this.setState('up');
        // A NATS server that came back without its store has no stream, consumer or presence
        // bucket: make them again, and read from the consumer anew.
        void this.setUpAgain();
        this.kick();
      }
    }
  }

  private async setUpAgain(): Promise<void> {
    try {
      await this.ensureStream();
      const presence = await Presence.open(this.nc!, this.settings.node, this.host.store.epoch, this.host.now);
      const rival = await presence.claim();
      if (rival) this.fail(`another swb server (store ${rival.epoch}) took node name ${this.settings.node} while the link was down`);
      this.presence?.stop();
      this.presence = presence;
      await this.beat();
      await presence.watch(() => this.host.onPresence());
      this.consuming?.stop();
      this.kick();
    } catch (err) {
      this.fail(`setting up JetStream again: ${messageOf(err)}`);
    }
  }

  private setState(state: LinkStatus['state'], problem?: string): void {
    if (state !== this.state) {
      this.state = state;
      this.since = this.host.now();
      this.host.log(`federation: link ${state}${problem ? ` (${problem})` : ''}`);
    }
    if (problem) this.problem = problem;
  }

  /** Something went wrong (said in the log once, and in `swb status`); the connection's state is NATS's to say. */
  private fail(problem: string): void {
    if (this.problem !== problem) this.host.log(`federation: ${problem}`);
    this.problem = problem;
  }

  /** New outbox rows (a commit, a receipt): publish soon. */
  kick(): void {
    this.kicked = true;
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }

  private async waitForWork(): Promise<void> {
    if (this.kicked) return;
    await new Promise<void>((resolve) => {
      const timer = systemClock.setTimer(resolve, 1000);
      this.wake = () => {
        timer.dispose();
        resolve();
      };
    });
  }

  private async publishLoop(): Promise<void> {
    let failures = 0;
    while (!this.stopped) {
      await this.waitForWork();
      // Let the commits of this turn of the loop land first: one read of the outbox for all of them.
      await new Promise((r) => setImmediate(r));
      this.kicked = false;
      if (this.stopped) return;
      if (this.state !== 'up' || !this.js) continue;
      let entries;
      try {
        entries = await this.host.runStore(() => this.host.store.pending(PUBLISH_BATCH));
      } catch (err) {
        this.fail(`reading the outbox: ${messageOf(err)}`);
        continue;
      }
      if (entries.length === 0) {
        this.queuedCache = { count: 0, oldestAt: null };
        continue;
      }
      // Receipts an apply queued leave this machine only once that apply is on disk: published
      // and then lost to a power cut, their outbox ids would be drawn again for other mail.
      try {
        await this.host.store.durable();
      } catch (err) {
        this.fail(`syncing the outbox to disk: ${messageOf(err)}`);
        await delay(1000);
        this.kicked = true;
        continue;
      }
      const envelopes = groupIntoEnvelopes(entries, this.lastOut, this.settings.node, this.host.store.epoch);
      const results = await Promise.allSettled(
        envelopes.map((o) => this.js!.publish(mailSubject(this.settings.node, o.node), o.json, { msgID: dedupId(o.envelope), timeout: 5000 })),
      );
      // Per node, only the run of envelopes the stream holds leaves the outbox; the rest is sent
      // again, in order (the receiver takes only what is new from a run it partly has).
      const done = new Map<string, number>();
      const broken = new Set<string>();
      let failed: unknown = null;
      envelopes.forEach((o, i) => {
        const r = results[i]!;
        if (broken.has(o.node)) return;
        if (r.status === 'rejected') {
          failed = r.reason;
          broken.add(o.node);
        } else done.set(o.node, o.envelope.seq);
      });
      if (done.size > 0) {
        try {
          await this.host.runStore(() => this.host.store.published(done));
          for (const [node, id] of done) this.lastOut.set(node, id);
        } catch (err) {
          // Published but still in the outbox: sent again later, and dropped as a duplicate there.
          this.fail(`recording what was published: ${messageOf(err)}`);
        }
      }
      await this.refreshQueued();
      if (failed) {
        failures++;
        this.fail(`publishing: ${messageOf(failed)}`);
        await delay(Math.min(5000, 200 * failures));
        this.kicked = true;
      } else {
        if (failures > 0) this.problem = null;
        failures = 0;
        if (entries.length === PUBLISH_BATCH) this.kicked = true;
      }
    }
  }

  private async consumeLoop(): Promise<void> {
    while (!this.stopped && this.js) {
      try {
        const consumer = await this.js.consumers.get(STREAM, consumerName(this.settings.node));
        const messages = await consumer.consume({ max_messages: 2048 });
        this.consuming = messages;
        for await (const m of messages) {
          this.inbox.push(m);
          this.scheduleApply();
          if (this.stopped) break;
        }
      } catch (err) {
        if (this.stopped) return;
        this.fail(`reading from ${STREAM}: ${messageOf(err)}`);
        await delay(1000);
      }
    }
  }

  /**
   * Applies what arrived once the messages already read from the socket are all in: one commit
   * (one fsync) for a burst, not one per message.
   */
  private scheduleApply(): void {
    if (this.applyScheduled || this.applying) return;
    this.applyScheduled = true;
    setImmediate(() => {
      this.applyScheduled = false;
      void this.applyInbox();
    });
  }

  private async applyInbox(): Promise<void> {
    if (this.applying) return;
    this.applying = true;
    try {
      while (this.inbox.length > 0 && !this.stopped) await this.applyBatch(this.inbox.splice(0, APPLY_BATCH));
    } finally {
      this.applying = false;
    }
  }

  private async applyBatch(batch: JsMsg[]): Promise<void> {
    const envelopes: Envelope[] = [];
    const kept: JsMsg[] = [];
    for (const m of batch) {
      const read = readEnvelope(m.data, m.subject, this.settings.node, MAX_ENVELOPE_BYTES);
      if ('refused' in read) {
        this.host.log(`federation: refused an envelope on ${m.subject} (stream seq ${m.seq}): ${read.refused}`);
        m.term();
        continue;
      }
      envelopes.push(read.ok);
      kept.push(m);
    }
    if (envelopes.length === 0) return;
    let result: IncomingResult;
    try {
      const deliveries = kept.map((m) => m.info.deliveryCount);
      result = await this.host.runStore(() => this.host.store.applyIncoming(envelopes, this.host.known, this.host.live, this.host.now(), deliveries));
    } catch (err) {
      // Nothing was stored: nothing is acknowledged, all of it comes again.
      this.fail(`storing mail from other nodes: ${messageOf(err)}`);
      for (const m of kept) m.nak(2000);
      return;
    }
    for (const g of result.skipped) {
      this.host.log(`federation: gave up waiting for ${g.origin}'s outbox ids ${g.after + 1}..${g.upTo} (lost on the way: NATS lost them, or they were refused above); what came after is applied`);
    }
    // Pushed now: the commit is in this machine's page cache, where only a power cut (which takes
    // the sessions with it) could lose it, and the stream keeps custody until the acknowledgement.
    this.host.onIncoming(result);
    // Acknowledged once on disk, without holding up the next batch meanwhile.
    this.host.store.durable(ACK_SYNC_GRACE_MS).then(
      () => {
        // Receipts of what was just stored (delivered to a live session) wait in the outbox.
        this.kick();
        answer(() => result.verdicts.forEach((v, i) => (v === 'gap' ? kept[i]!.nak(500) : kept[i]!.ack())));
      },
      (err: unknown) => {
        // Stored but maybe not on disk: all of it comes again, and is acknowledged as a duplicate
        // once a sync succeeds.
        this.fail(`syncing mail from other nodes to disk: ${messageOf(err)}`);
        answer(() => kept.forEach((m) => m.nak(2000)));
      },
    );
  }

  private async beat(): Promise<void> {
    if (!this.presence || this.state === 'down') return;
    await this.presence.beat(this.host.localPeers());
  }

  private readonly beatOnSchedule = (): void => {
    this.beatTimer.set(this.beatOnSchedule, PRESENCE_BEAT_MS);
    void this.beat().catch(() => undefined);
  };

  /** Local sessions changed: tell the other nodes soon (coalesced). */
  peersChanged(): void {
    this.beatSoon.setIfIdle(() => void this.beat().catch(() => undefined), 250);
  }

  private async refreshQueued(): Promise<void> {
    try {
      const q = await this.host.runStore(() => this.host.store.queued());
      this.queuedCache = { count: q.count, oldestAt: q.oldestAt };
    } catch {
      // keep the last figure
    }
  }

  async status(): Promise<LinkStatus> {
    await this.refreshQueued();
    return {
      node: this.settings.node,
      url: this.settings.url,
      state: this.state,
      since: this.since,
      queued: this.queuedCache.count,
      oldestQueuedAt: this.queuedCache.oldestAt,
      problem: this.problem,
    };
  }

  remotePeers(): RemotePeer[] {
    return this.presence?.remotePeers() ?? [];
  }

  get node(): string {
    return this.settings.node;
  }

  async stop(): Promise<void> {
    const wasUp = this.state === 'up' && !this.stopped;
    this.stopped = true;
    this.kick();
    this.beatTimer.dispose();
    this.beatSoon.dispose();
    // Leaving on purpose: tell the others this node's sessions are offline now, not in 30 s.
    if (wasUp && this.presence) {
      const offline = this.host.localPeers().map((p) => ({ ...p, online: false }));
      await Promise.race([this.presence.beat(offline).catch(() => undefined), delay(500)]);
    }
    this.presence?.stop();
    this.consuming?.stop();
    await this.nc?.close().catch(() => undefined);
  }
}

export function consumerName(node: string): string {
  return `swb-${node}`;
}

/** A secret file: readable, and not readable by anyone but its owner (like swb's own token files). */
function readSecret(file: string, what: string): Buffer {
  const st = statFile(file, what);
  if ((st.mode & 0o077) !== 0) throw new SwbError('BAD_REQUEST', `${what}: ${file} may be read by others (mode ${(st.mode & 0o777).toString(8)}); chmod 600 it.`);
  return readFileSync(file);
}

/** A file anyone may read (a certificate), but it must be one. */
function readPublic(file: string, what: string): Buffer {
  statFile(file, what);
  try {
    return readFileSync(file);
  } catch (err) {
    throw new SwbError('BAD_REQUEST', `${what}: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? messageOf(err)}).`);
  }
}

function statFile(file: string, what: string): Stats {
  let st: Stats;
  try {
    st = statSync(file);
  } catch (err) {
    throw new SwbError('BAD_REQUEST', `${what}: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? messageOf(err)}).`);
  }
  if (!st.isFile()) throw new SwbError('BAD_REQUEST', `${what}: ${file} is not a file.`);
  return st;
}

/** Acks and naks on a connection that closed meanwhile (the link stopped): the stream redelivers those. */
function answer(step: () => void): void {
  try {
    step();
  } catch {
    // unanswered: redelivered after ack_wait, and then a duplicate here
  }
}

/** A wait that does not hold the event loop (the clock's timers never do): a stopping server may exit in it. */
function delay(ms: number): Promise<void> {
  return new Promise((r) => systemClock.setTimer(r, ms));
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
