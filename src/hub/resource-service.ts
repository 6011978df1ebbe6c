// The hub's side of reservations (issue #35): runs the coordinator's operations through the store
// gate (each one transaction, group-committed with the others of its turn, committed before anyone
// is answered), publishes their events once they committed, and keeps what only a live hub knows —
// which connection waits for which ticket.
//
// Waiting across reconnects: a waiting client long-polls in rounds (resource.request, then
// resource.wait with the ticket). A ticket is bound to the connection that last asked about it.
// When that connection closes, a queued ticket (or a grant its holder never heard of) gets a grace
// of RECONNECT_GRACE_MS to be asked about again from a new connection — `swb run` does so after a
// hub restart — and is cancelled ("abandoned") if nobody does. Meanwhile it keeps its place in the
// queues but holds nobody up: the tickets behind it may be granted past it, and once its client is
// back it is first again. So a waiter that was SIGKILLed costs the others nothing, and one that lost
// its connection for a moment loses nothing. A hub that starts gives every such ticket in the store
// the same grace (restart recovery: order and holders as they were).
//
// Evidence: a held ticket with a launch-ledger entry is watched while the client that launched it
// is connected (it releases the ticket itself); once that connection is gone — or at hub start — a
// timer checks /proc (pid + start time, process group) every EVIDENCE_CHECK_MS and releases the
// ticket when its process tree is gone. The timer runs only while such tickets exist: there is no
// way to be told when a process that is not our child ends, and a hub with no such ticket should
// not wake up for nothing. A connection closing is checked at once, so a killed `swb run` whose
// command died with it hands over without waiting for the timer.
import { swbError, type SwbErrorValue } from '../protocol/error-codes.js';
import type { PeerChanged } from '../protocol/methods.js';
import type { ResourceStatus, TicketView } from '../protocol/resource-name.js';
import { launchEvidence } from '../resources/process-evidence.js';
import { inspectLaunch, type InspectedLaunch } from '../resources/launch-check.js';
import { ResourceCoordinator, TIMEOUT_WHY, type Outcome, type PolicyChange, type ResourceEvent } from '../resources/resource-coordinator.js';
import type { Actor } from '../resources/ticket-authority.js';
import { ResourceStore } from '../store/resource-store.js';
import type { SqliteDatabase } from '../store/open-database.js';
import { systemClock, type Clock } from '../util/clock.js';
import { Emitter } from '../util/event.js';
import type { Disposable } from '../util/lifecycle.js';
import { TimerSlot } from '../util/timer-slot.js';
import type { EventStream } from './event-stream.js';
import type { HubConnection } from './hub-connection.js';
import type { StoreGate } from './store-gate.js';

/** How long a waiting client may be away (a reconnect, a hub restart) before its request is dropped. */
export const RECONNECT_GRACE_MS = 10_000;
/** How often /proc is read for launches whose client went away. */
export const EVIDENCE_CHECK_MS = 200;

export interface ResourceServiceDeps {
  db: SqliteDatabase;
  gate: StoreGate;
  /** What tickets and their deadlines are stamped with. */
  now: () => number;
  /** What times the waits: a long poll's round, the orphans' grace, the evidence checks (default: the system clock). */
  clock?: Clock;
  events: EventStream;
  /** Longest round of a long poll (the hub's maxWaitMs). */
  maxWaitMs: () => number;
  log: (line: string) => void;
}

type Result<T> = { ok: T } | { error: SwbErrorValue };

interface Waiter {
  conn: HubConnection;
  done: () => void;
}

export class ResourceService implements Disposable {
  readonly coordinator: ResourceCoordinator;
  /** A long poll parked on each ticket (at most one; a newer one ends the older round). */
  private readonly waiters = new Map<number, Waiter>();
  /** The connection that last asked about each queued (or not yet told) ticket. */
  private readonly bound = new Map<number, HubConnection>();
  /** Tickets whose client went away: cancelled at this time unless asked about again. */
  private readonly orphans = new Map<number, number>();
  /** Held tickets whose launching client is connected (it will release them itself). */
  private readonly launchers = new Map<number, HubConnection>();
  /** Held tickets with nobody to release them: their evidence decides. */
  private readonly unwatched = new Set<number>();
  /** Reservation events published so far (a waiter compares it to know whether it may have missed one). */
  private eventCount = 0;
  private readonly committed = new Emitter<ResourceEvent>();
  /** Each reservation event once it committed (in-process listeners: the dashboard's resource board). */
  readonly onEvent = this.committed.event;
  /** Operations waiting for this turn's batch. */
  private readonly queued: Array<() => void> = [];
  private readonly clock: Clock;
  /** When the earliest orphan's grace ends. */
  private readonly orphanTimer: TimerSlot;
  /** The next /proc check, pending while some held ticket has nobody to release it. */
  private readonly evidenceTimer: TimerSlot;
  private disposed = false;

  constructor(private readonly deps: ResourceServiceDeps) {
    this.clock = deps.clock ?? systemClock;
    this.orphanTimer = new TimerSlot(this.clock);
    this.evidenceTimer = new TimerSlot(this.clock);
    this.coordinator = new ResourceCoordinator(
      new ResourceStore(deps.db),
      deps.now,
      (t) => this.waiters.has(t),
      (t) => this.orphans.has(t),
    );
    this.recover();
  }

  /** Restart recovery: unanswered requests get the reconnect grace, launches are checked at once. */
  private recover(): void {
    const at = this.deps.now();
    for (const t of this.coordinator.openTickets()) {
      if (t.state === 'queued' || (t.state === 'granted' && t.toldAt === null)) this.orphans.set(t.id, at + RECONNECT_GRACE_MS);
      else if (t.state === 'held' && t.launch) this.unwatched.add(t.id);
    }
    this.scheduleOrphans();
    this.checkEvidence();
    // Queued tickets whose deadline passed while no hub ran, or that capacity now allows.
    this.op(() => this.coordinator.sweep()).catch((err: unknown) => this.deps.log(`resources: sweep at start failed: ${String(err)}`));
  }

  /** A new ticket; `waitMs` is how long it may stay queued in all (the wait itself is resource.wait's). */
  async request(
    conn: HubConnection,
    actor: Actor,
    resources: string[],
    reason: string | null,
    waitMs: number | undefined,
    gated?: { pid: number; command: string | undefined },
  ): Promise<Result<TicketView>> {
    let launch: InspectedLaunch | undefined;
    if (gated) {
      const inspected = inspectLaunch(gated.pid, conn.peer);
      if ('error' in inspected) return inspected;
      launch = { ...inspected.ok, ...(gated.command !== undefined ? { command: gated.command } : {}) };
    }
    const out = await this.op(() => this.coordinator.request(actor, resources, reason, waitMs, launch));
    if ('error' in out) return out;
    this.bind(out.ok.ticket, conn);
    if (launch) this.watchLaunch(out.ok.ticket, conn);
    // Answered at once, granted or not: a client that has to wait says who holds what before it
    // waits (swb run prints it), and knows its ticket should the connection drop during the wait.
    return this.answer(out.ok);
  }

  /**
   * A round of waiting for a ticket: answered once it leaves `queued`, or when the round (or the
   * ticket's own wait) ends. Each pass notes the event count before it looks, and parks only if no
   * event came since: a grant committed between the look and the park is never slept through.
   */
  async wait(conn: HubConnection, actor: Actor, ticket: number, waitMs: number | undefined): Promise<Result<TicketView>> {
    // Back before the look, so that the look's sweep may grant it (an absent ticket is passed over).
    // Only the holder's own connection takes the ticket on: the operator looking at it does not.
    const wasAway = this.orphans.get(ticket);
    const record = this.coordinator.ticketRecord(ticket);
    const own = record?.holder === actor.handle;
    if (own) this.bind(ticket, conn);
    if (own && record?.launch) this.watchLaunch(ticket, conn);
    const roundEnd = this.clock.now() + Math.min(waitMs ?? Infinity, this.deps.maxWaitMs());
    for (;;) {
      const seen = this.eventCount;
      // Not batched: a waiter woken by its grant answers in this turn (a look writes only when the
      // clock timed something out).
      const out = await this.op(() => this.coordinator.look(actor, ticket), false);
      if ('error' in out) {
        if (own) this.unbind(ticket);
        if (wasAway !== undefined) this.orphans.set(ticket, wasAway);
        return out;
      }
      const view = out.ok;
      // A closed connection's ticket stays as connectionClosed left it (away, with its grace).
      if (conn.isClosed) return this.answer(view);
      if (view.state !== 'queued') {
        if (own && view.state !== 'granted' && view.state !== 'held') this.unbind(ticket);
        return this.answer(view);
      }
      const untilDeadline = view.deadline === null ? Infinity : view.deadline - this.deps.now() + DEADLINE_SLACK_MS;
      const left = Math.min(roundEnd - this.clock.now(), untilDeadline);
      if (left <= 0 || !Number.isFinite(left)) return this.answer(view);
      if (this.eventCount === seen) await this.park(ticket, conn, left);
    }
  }

  async launched(conn: HubConnection, actor: Actor, ticket: number, pid: number, command: string | undefined): Promise<Result<TicketView>> {
    const inspected = inspectLaunch(pid, conn.peer);
    if ('error' in inspected) return inspected;
    const launch = { ...inspected.ok, ...(command !== undefined ? { command } : {}) };
    const out = await this.op(() => this.coordinator.launched(actor, ticket, launch));
    if ('error' in out) return out;
    this.unbind(ticket);
    this.watchLaunch(ticket, conn);
    return out;
  }

  /** The connection that will release this launch itself; when it closes, the evidence decides. */
  private watchLaunch(ticket: number, conn: HubConnection): void {
    this.unwatched.delete(ticket);
    this.launchers.set(ticket, conn);
    if (conn.isClosed) this.connectionClosed(conn);
  }

  release(actor: Actor, ticket: number, force: boolean): Promise<Result<TicketView>> {
    return this.op(() => this.coordinator.release(actor, ticket, force));
  }

  cancel(actor: Actor, ticket: number): Promise<Result<TicketView>> {
    return this.op(() => this.coordinator.cancel(actor, ticket));
  }

  grant(actor: Actor, ticket: number): Promise<Result<TicketView>> {
    return this.op(() => this.coordinator.grant(actor, ticket));
  }

  setPolicy(actor: Actor, name: string, change: PolicyChange): Promise<Result<ResourceStatus>> {
    return this.op(() => this.coordinator.setPolicy(actor, name, change));
  }

  status(name: string | undefined): Promise<ResourceStatus[]> {
    return this.deps.gate.run(() => this.coordinator.status(name));
  }

  /** A row that went offline with its process ended: what it held without a process is uncertain. */
  peerChanged(p: PeerChanged): void {
    if (p.role !== 'row' || p.online) return;
    this.op(() => this.coordinator.holderGone(p.handle, `row ${p.handle} exited`)).catch((err: unknown) =>
      this.deps.log(`resources: ${p.handle} going away could not be recorded: ${String(err)}`),
    );
  }

  connectionClosed(conn: HubConnection): void {
    for (const w of [...this.waiters.values()]) if (w.conn === conn) w.done();
    const at = this.deps.now();
    for (const [ticket, c] of this.bound) {
      if (c !== conn) continue;
      this.bound.delete(ticket);
      this.orphans.set(ticket, at + RECONNECT_GRACE_MS);
    }
    let launches = false;
    for (const [ticket, c] of this.launchers) {
      if (c !== conn) continue;
      this.launchers.delete(ticket);
      this.unwatched.add(ticket);
      launches = true;
    }
    this.scheduleOrphans();
    if (launches) this.checkEvidence();
  }

  private answer(view: TicketView): Result<TicketView> {
    if ((view.state === 'granted' || view.state === 'held') && this.bound.has(view.ticket)) {
      this.unbind(view.ticket);
      this.op(() => this.coordinator.told(view.ticket)).catch(() => undefined);
    }
    if (view.state === 'void') {
      return { error: swbError('STALE_POLICY', `Ticket ${view.ticket} is void: ${view.why ?? 'the policy changed'}. Ask again.`, { ticket: view.ticket }) };
    }
    if (view.state === 'cancelled' && view.why?.startsWith(TIMEOUT_WHY)) {
      const holders = this.holdersOf(view.resources);
      const held = holders.map((h) => `${h.resources.join('+')} by ${h.holder} (ticket ${h.ticket}, ${h.state})`).join(', ');
      return {
        error: swbError(
          'RESOURCE_WAIT_TIMEOUT',
          `${view.resources.join(', ')} not granted within the wait${held ? `; held: ${held}` : ''}. The request was withdrawn; nothing ran.`,
          { ticket: view.ticket, holders: holders.map((h) => ({ ticket: h.ticket, holder: h.holder, state: h.state, since: h.grantedAt })) },
        ),
      };
    }
    return { ok: view };
  }

  /** Who holds these resources now, for the timeout's sentence (nothing, if the store cannot say). */
  private holdersOf(resources: readonly string[]): TicketView[] {
    try {
      return this.coordinator.status().filter((s) => resources.includes(s.name)).flatMap((s) => s.holders);
    } catch {
      return [];
    }
  }

  private park(ticket: number, conn: HubConnection, ms: number): Promise<void> {
    this.waiters.get(ticket)?.done();
    return new Promise((resolve) => {
      const timer = this.clock.setTimer(() => finish(), ms);
      const waiter: Waiter = { conn, done: () => finish() };
      const finish = (): void => {
        timer.dispose();
        if (this.waiters.get(ticket) === waiter) this.waiters.delete(ticket);
        resolve();
      };
      this.waiters.set(ticket, waiter);
    });
  }

  private bind(ticket: number, conn: HubConnection): void {
    this.orphans.delete(ticket);
    if (conn.isClosed) this.orphans.set(ticket, this.deps.now() + RECONNECT_GRACE_MS);
    else this.bound.set(ticket, conn);
  }

  private unbind(ticket: number): void {
    this.bound.delete(ticket);
    this.orphans.delete(ticket);
  }

  /**
   * Group commit, as for mail: operations that arrive in the same turn of the event loop run in one
   * transaction (each in a savepoint of its own, so a refusal undoes only itself) and share its
   * commit; each is answered once that commit returned. Under another process's lock the gate runs
   * them one by one, in order.
   */
  private batched<T>(step: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queued.push(() => this.deps.gate.run(step).then(resolve, reject));
      if (this.queued.length > 1) return;
      setImmediate(() => {
        const work = this.queued.splice(0);
        this.deps.gate.batch(() => {
          for (const w of work) w();
        });
      });
    });
  }

  /** Runs one coordinator operation through the gate, then publishes what it committed. */
  private async op<T>(step: () => Outcome<T>, batch = true): Promise<Result<T>> {
    const out = await (batch ? this.batched(step) : this.deps.gate.run(step));
    for (const e of out.events) {
      this.eventCount += 1;
      this.deps.events.publish({ ...e, ...(e.holder !== null ? { row: e.holder } : {}) }, [e.holder ?? '', e.actor]);
      this.committed.fire(e);
      if (e.ticket === null || e.event === 'requested' || e.event === 'reordered') continue;
      this.waiters.get(e.ticket)?.done();
      if (e.event !== 'granted' && e.event !== 'launched' && e.event !== 'uncertain') {
        this.unbind(e.ticket);
        this.launchers.delete(e.ticket);
        this.unwatched.delete(e.ticket);
      }
    }
    return 'error' in out ? { error: out.error } : { ok: out.ok };
  }

  private scheduleOrphans(): void {
    this.orphanTimer.clear();
    if (this.disposed || this.orphans.size === 0) return;
    const next = Math.min(...this.orphans.values());
    this.orphanTimer.set(() => this.dropOrphans(), next - this.deps.now());
  }

  private dropOrphans(): void {
    const at = this.deps.now();
    for (const [ticket, deadline] of this.orphans) {
      if (deadline > at) continue;
      this.orphans.delete(ticket);
      this.op(() => this.coordinator.abandon(ticket, `its client went away and did not ask again within ${RECONNECT_GRACE_MS / 1000} s`)).catch((err: unknown) =>
        this.deps.log(`resources: abandoning ticket ${ticket} failed: ${String(err)}`),
      );
    }
    this.scheduleOrphans();
  }

  /** Reads /proc for every launch nobody watches; releases those whose process tree is gone. */
  private checkEvidence(): void {
    for (const ticket of this.unwatched) {
      let t;
      try {
        t = this.coordinator.ticketRecord(ticket);
      } catch {
        continue; // the store is busy: the next check reads it
      }
      if (!t || t.state !== 'held' || !t.launch) {
        this.unwatched.delete(ticket);
        continue;
      }
      const evidence = launchEvidence(t.launch);
      if (evidence.alive) continue;
      this.unwatched.delete(ticket);
      this.op(() => this.coordinator.evidenceGone(ticket, evidence.why)).catch((err: unknown) =>
        this.deps.log(`resources: releasing ticket ${ticket} on evidence failed: ${String(err)}`),
      );
    }
    // Every EVIDENCE_CHECK_MS while such tickets remain: the check re-arms itself when it ran.
    if (this.unwatched.size > 0 && !this.disposed) this.evidenceTimer.setIfIdle(() => this.checkEvidence(), EVIDENCE_CHECK_MS);
    else if (this.unwatched.size === 0) this.evidenceTimer.clear();
  }

  dispose(): void {
    this.disposed = true;
    for (const w of [...this.waiters.values()]) w.done();
    this.orphanTimer.dispose();
    this.evidenceTimer.dispose();
  }
}

/** A round that ends at the ticket's deadline wakes just after it, so the sweep sees it expired. */
const DEADLINE_SLACK_MS = 5;
