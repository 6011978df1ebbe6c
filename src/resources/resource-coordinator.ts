// The rules of reservations (issue #35; the peer protocol's ResourceCoordinator), over the store
// with an injected clock. Every operation is one transaction: the change, what it implies (the
// grants that capacity now allows, timeouts, voided grants) and a journal line per event commit
// together. Events are recorded in one place (`record`) and handed back with the outcome; the hub
// publishes them after the commit returned, so nobody hears of a state that might not survive.
//
// The queue rules:
//  - FIFO per resource: a claim's position is its ticket's id; a controller's grant moves a ticket to
//    the front of every queue it is in (so all queues stay consistent with one order).
//  - A ticket for several resources takes all or none, and only when it is at the head of every queue
//    it is in and each has capacity left. Because the order is the same in every queue, two tickets
//    asking in reverse order cannot wait on each other: the older one is ahead in both (no deadlock).
//  - A resource with a controller is granted by hand only; without one, the hub grants in order.
//  - Uncertain holders count against capacity until the operator or controller forces them free.
//  - A policy change raises the epoch; granted tickets of an older epoch that are not in use (no
//    ledger entry) become void (STALE_POLICY to their holder); a holder already running keeps it.
// One concept, though over 450 lines: the queue's invariants hold only if every operation that moves a
// ticket (request, grant, release, cancel, timeout, void, evidence) applies them in the same place.
import { swbError, type SwbErrorValue } from '../protocol/error-codes.js';
import { MAX_TICKETS_PER_HOLDER, type ResourceStatus, type TicketState, type TicketView } from '../protocol/resource-name.js';
import type { LaunchRecord, PolicyRecord, ResourceStore, TicketRecord } from '../store/resource-store.js';
import { controlsAll, notController, type Actor } from './ticket-authority.js';
import { HOLDING_STATES, ticketView } from './ticket-view.js';

export type ResourceEventKind =
  | 'requested'
  | 'granted'
  | 'launched'
  | 'released'
  | 'cancelled'
  | 'refused'
  | 'timeout'
  | 'abandoned'
  | 'void'
  | 'uncertain'
  | 'reordered'
  | 'policy';

export interface ResourceEvent {
  kind: 'resource';
  event: ResourceEventKind;
  at: number;
  ticket: number | null;
  resources: string[];
  holder: string | null;
  /** Who caused it: a handle, or `hub` for what the rules did by themselves. */
  actor: string;
  detail?: string;
  epoch?: number;
}

export type Outcome<T> = { ok: T; events: ResourceEvent[] } | { error: SwbErrorValue; events: ResourceEvent[] };

export interface PolicyChange {
  capacity?: number;
  controller?: string | null;
  waitMs?: number | null;
}

const HUB = 'hub';
/** How the `why` of a ticket that timed out begins (the hub answers it RESOURCE_WAIT_TIMEOUT). */
export const TIMEOUT_WHY = 'not granted within its wait';
const FINISHED: ReadonlySet<TicketState> = new Set(['released', 'cancelled', 'void']);

export class ResourceCoordinator {
  private events: ResourceEvent[] | null = null;

  constructor(
    private readonly store: ResourceStore,
    private readonly now: () => number,
    /** Whether a client is waiting for this ticket's answer right now (its grant is then "told"). */
    private readonly listening: (ticket: number) => boolean = () => false,
    /**
     * Whether a queued ticket's client is away (gone, not yet back within its grace): it keeps its
     * place, but those behind it are not held up meanwhile; back, it is first again.
     */
    private readonly away: (ticket: number) => boolean = () => false,
  ) {}

  /**
   * Asks for `resources` (all or none) as `actor`; granted at once when the rules allow. With a
   * `launch` (swb run's gated command, waiting to be let go) the ledger entry is made now and the
   * grant makes the ticket held at once: one commit, and no window for a void grant.
   */
  request(actor: Actor, resources: readonly string[], reason: string | null, waitMs: number | undefined, launch?: Omit<LaunchRecord, 'holder' | 'launchedAt'>): Outcome<TicketView> {
    return this.run(() => {
      const names = [...new Set(resources)].sort();
      if (this.store.openTicketCount(actor.handle) >= MAX_TICKETS_PER_HOLDER) {
        return fail('TICKET_LIMIT', `${actor.handle} has ${MAX_TICKETS_PER_HOLDER} open tickets, the limit; release or cancel some first.`);
      }
      const at = this.now();
      const wait = waitMs ?? defaultWait(names.map((n) => this.policyOf(n)));
      const id = this.store.insertTicket(actor.handle, names, reason, at, wait === null ? null : at + wait);
      if (launch) this.store.insertLaunch(id, { ...launch, holder: actor.handle, launchedAt: at });
      this.record('requested', this.ticket(id), actor.handle, launch ? `${reason ?? ''}${reason ? '; ' : ''}pid ${launch.pid}: ${launch.command}` : (reason ?? undefined));
      this.pump();
      // Granted at once: the answer to this request tells the holder (same transaction, no second commit).
      const t = this.ticket(id);
      if ((t.state === 'granted' || t.state === 'held') && t.toldAt === null) this.store.updateTicket({ ...t, toldAt: this.now() });
      return { ok: this.view(id) };
    });
  }

  /** The ticket as it stands (and, for the hub's sweep, whatever the clock says expired). */
  look(actor: Actor, id: number): Outcome<TicketView> {
    return this.run(() => {
      const t = this.store.ticket(id);
      if (!t || (t.holder !== actor.handle && actor.role !== 'operator')) return notFound(id, actor);
      this.pump();
      return { ok: this.view(id) };
    });
  }

  /** Records that the holder was answered with its grant (a grant nobody heard may be abandoned). */
  told(id: number): Outcome<null> {
    return this.run(() => {
      const t = this.store.ticket(id);
      if (t && (t.state === 'granted' || t.state === 'held') && t.toldAt === null) this.store.updateTicket({ ...t, toldAt: this.now() });
      return { ok: null };
    });
  }

  /** `swb run` started the command: the launch ledger entry makes the grant "in use" (held). */
  launched(actor: Actor, id: number, launch: Omit<LaunchRecord, 'holder' | 'launchedAt'>): Outcome<TicketView> {
    return this.run(() => {
      const t = this.store.ticket(id);
      if (!t || t.holder !== actor.handle) return notFound(id, actor);
      if (t.state === 'void') return fail('STALE_POLICY', staleSentence(t));
      if (t.state !== 'granted') return fail('TICKET_STATE', `Ticket ${id} is ${t.state}, not granted; only a granted ticket can be launched.`);
      const record: LaunchRecord = { ...launch, holder: actor.handle, launchedAt: this.now() };
      this.store.insertLaunch(id, record);
      this.store.updateTicket({ ...t, state: 'held', toldAt: t.toldAt ?? record.launchedAt });
      this.record('launched', this.ticket(id), actor.handle, `pid ${launch.pid} (group ${launch.pgid}): ${launch.command}`);
      return { ok: this.view(id) };
    });
  }

  /**
   * Gives a ticket back. Its holder releases its own (a queued one is cancelled); `force` is the
   * operator's or the controller's, for anyone's ticket, and the only way an uncertain one is freed.
   */
  release(actor: Actor, id: number, force: boolean): Outcome<TicketView> {
    return this.run(() => {
      const t = this.store.ticket(id);
      const own = t?.holder === actor.handle;
      const policies = t ? t.claims.map((c) => this.policyOf(c.resource)) : [];
      if (!t) return notFound(id, actor);
      if (FINISHED.has(t.state)) return { ok: this.view(id) };
      if (force) {
        if (!controlsAll(actor, policies)) return fail('UNAUTHENTICATED', notController(actor, policies, `force ticket ${id} free`));
        this.finish(t, 'released', 'released', actor.handle, `forced free by ${actor.handle} (it was ${t.state})`);
      } else {
        if (!own) {
          return fail('UNAUTHENTICATED', `Ticket ${id} is ${t.holder}'s: only ${t.holder} releases it, or the operator or the resource's controller with force.`);
        }
        if (t.state === 'uncertain') {
          return fail('TICKET_STATE', `Ticket ${id} is uncertain (${t.why ?? 'its holder went away'}); only the operator or the controller frees it, with --force.`);
        }
        if (t.state === 'queued') this.finish(t, 'cancelled', 'cancelled', actor.handle, 'cancelled by its holder');
        else this.finish(t, 'released', 'released', actor.handle, 'released by its holder');
      }
      this.pump();
      return { ok: this.view(id) };
    });
  }

  /** Withdraws a request that is not in use: by its holder (cancelled) or a controller (refused). */
  cancel(actor: Actor, id: number): Outcome<TicketView> {
    return this.run(() => {
      const t = this.store.ticket(id);
      const own = t?.holder === actor.handle;
      const policies = t ? t.claims.map((c) => this.policyOf(c.resource)) : [];
      if (!t) return notFound(id, actor);
      if (!own && !controlsAll(actor, policies)) {
        return fail('UNAUTHENTICATED', `Ticket ${id} is ${t.holder}'s: only ${t.holder} cancels it, or the operator or the resource's controller refuses it.`);
      }
      if (FINISHED.has(t.state)) return { ok: this.view(id) };
      if (t.state === 'held' || t.state === 'uncertain') {
        return fail('TICKET_STATE', `Ticket ${id} is ${t.state === 'held' ? 'in use' : 'uncertain'}; release it instead${t.state === 'uncertain' ? ' (with --force)' : ''}.`);
      }
      if (own) this.finish(t, 'cancelled', 'cancelled', actor.handle, 'cancelled by its holder');
      else this.finish(t, 'cancelled', 'refused', actor.handle, `refused by ${actor.handle}`);
      this.pump();
      return { ok: this.view(id) };
    });
  }

  /**
   * A controller's grant: the ticket moves to the front of each of its queues and is granted if
   * every resource has capacity left; otherwise it stays first in line (answered still queued).
   */
  grant(actor: Actor, id: number): Outcome<TicketView> {
    return this.run(() => {
      const t = this.store.ticket(id);
      if (!t) return notFound(id, actor);
      const policies = t.claims.map((c) => this.policyOf(c.resource));
      if (!controlsAll(actor, policies)) return fail('UNAUTHENTICATED', notController(actor, policies, `grant ticket ${id}`));
      if (t.state !== 'queued') return fail('TICKET_STATE', `Ticket ${id} is ${t.state}; only a queued ticket can be granted.`);
      const open = this.store.openTickets();
      for (const claim of t.claims) {
        const first = Math.min(...open.filter((o) => o.state === 'queued').flatMap((o) => o.claims.filter((c) => c.resource === claim.resource).map((c) => c.position)));
        if (claim.position > first) this.store.setClaim(id, { ...claim, position: first - 1 });
      }
      const used = usage(open);
      if (policies.every((p) => (used.get(p.name) ?? 0) < p.capacity)) this.grantTicket(this.ticket(id), actor.handle);
      else this.record('reordered', this.ticket(id), actor.handle, 'moved to the front; waits for capacity');
      this.pump();
      return { ok: this.view(id) };
    });
  }

  /** Changes a resource's policy (operator or controller): the epoch rises, unused old grants go void. */
  setPolicy(actor: Actor, name: string, change: PolicyChange): Outcome<ResourceStatus> {
    return this.run(() => {
      const current = this.policyOf(name);
      if (!controlsAll(actor, [current])) return fail('UNAUTHENTICATED', notController(actor, [current], `change the policy of ${name}`));
      const next: PolicyRecord = {
        name,
        capacity: change.capacity ?? current.capacity,
        controller: change.controller !== undefined ? change.controller : current.controller,
        waitMs: change.waitMs !== undefined ? change.waitMs : current.waitMs,
        epoch: current.epoch + 1,
        updatedAt: this.now(),
      };
      this.store.savePolicy(next);
      const said = `capacity ${next.capacity}, ${next.controller === null ? 'granted in order by the hub' : `controller ${next.controller}`}, default wait ${next.waitMs === null ? 'none' : `${next.waitMs} ms`}`;
      this.emit({ event: 'policy', ticket: null, resources: [name], holder: null, actor: actor.handle, detail: said, epoch: next.epoch });
      for (const t of this.store.openTickets()) {
        const claim = t.claims.find((c) => c.resource === name);
        if (t.state === 'granted' && claim && (claim.epoch ?? 0) < next.epoch) {
          this.finish(t, 'void', 'void', actor.handle, `the policy of ${name} changed (epoch ${next.epoch}) before the grant was used`);
        }
      }
      this.pump();
      return { ok: this.statusOf(name) };
    });
  }

  /** Evidence: the ticket's launched process and its process group are gone. */
  evidenceGone(id: number, detail: string): Outcome<TicketView | null> {
    return this.run(() => {
      const t = this.store.ticket(id);
      if (!t || t.state !== 'held' || !t.launch) return { ok: null };
      this.finish(t, 'released', 'released', HUB, `its process tree is gone (${detail})`);
      this.pump();
      return { ok: this.view(id) };
    });
  }

  /**
   * A request nobody waits for any more (its client went away and did not come back within the
   * grace): a queued ticket, or a grant its holder never heard of, is cancelled.
   */
  abandon(id: number, why: string): Outcome<TicketView | null> {
    return this.run(() => {
      const t = this.store.ticket(id);
      if (!t || !(t.state === 'queued' || (t.state === 'granted' && t.toldAt === null))) return { ok: null };
      this.finish(t, 'cancelled', 'abandoned', HUB, why);
      this.pump();
      return { ok: this.view(id) };
    });
  }

  /**
   * A holder went away without evidence (a row's process ended): its queued tickets are cancelled,
   * its unused-by-a-process grants become uncertain (shown with what is known, freed only by force),
   * and tickets with a ledger entry are left to the evidence of their process.
   */
  holderGone(handle: string, why: string): Outcome<number> {
    return this.run(() => {
      let changed = 0;
      for (const t of this.store.openTickets()) {
        if (t.holder !== handle) continue;
        if (t.state === 'queued') this.finish(t, 'cancelled', 'abandoned', HUB, why);
        else if (t.state === 'granted' && !t.launch) {
          this.store.updateTicket({ ...t, state: 'uncertain', why: `${why}; it held the grant with no process recorded` });
          this.record('uncertain', this.ticket(t.id), HUB, `${why}; no process recorded`);
        } else continue;
        changed += 1;
      }
      if (changed > 0) this.pump();
      return { ok: changed };
    });
  }

  /** Grants what capacity allows and times out what waited too long (the hub's sweep calls this). */
  sweep(): Outcome<null> {
    return this.run(() => {
      this.pump();
      return { ok: null };
    });
  }

  /** Every resource with a policy or an open ticket (or just `name`), with holders and queue. */
  status(name?: string): ResourceStatus[] {
    const open = this.store.openTickets();
    const names = new Set<string>(this.store.policies().map((p) => p.name));
    for (const t of open) for (const c of t.claims) names.add(c.resource);
    if (name !== undefined) return [this.statusOf(name, open)];
    return [...names].sort().map((n) => this.statusOf(n, open));
  }

  /** Open tickets (for the hub's restart recovery and its evidence watch). */
  openTickets(): TicketRecord[] {
    return this.store.openTickets();
  }

  ticketRecord(id: number): TicketRecord | undefined {
    return this.store.ticket(id);
  }

  private statusOf(name: string, open = this.store.openTickets()): ResourceStatus {
    const p = this.policyOf(name);
    const on = (t: TicketRecord) => t.claims.find((c) => c.resource === name);
    const holders = open.filter((t) => HOLDING_STATES.has(t.state) && on(t));
    const queue = open.filter((t) => t.state === 'queued' && on(t)).sort((a, b) => on(a)!.position - on(b)!.position);
    return {
      name,
      capacity: p.capacity,
      controller: p.controller,
      waitMs: p.waitMs,
      epoch: p.epoch,
      holders: holders.map((t) => ticketView(t, open)),
      queue: queue.map((t) => ticketView(t, open)),
    };
  }

  /** Grants every ticket the rules allow now, then times out what passed its deadline; until stable. */
  private pump(): void {
    for (let rounds = 0; rounds < 10_000; rounds++) {
      const open = this.store.openTickets();
      const next = this.grantable(open);
      if (next) {
        this.grantTicket(next, HUB);
        continue;
      }
      const now = this.now();
      const expired = open.filter((t) => t.state === 'queued' && t.deadline !== null && t.deadline <= now);
      if (expired.length === 0) return;
      for (const t of expired) this.finish(t, 'cancelled', 'timeout', HUB, `${TIMEOUT_WHY} (${t.deadline! - t.requestedAt} ms)`);
    }
  }

  /** The oldest queued ticket (of a client not away) first in every queue it is in, where each resource has room. */
  private grantable(open: readonly TicketRecord[]): TicketRecord | undefined {
    const used = usage(open);
    const head = new Map<string, number>();
    const present = open.filter((t) => t.state === 'queued' && !this.away(t.id));
    for (const t of present) {
      for (const c of t.claims) head.set(c.resource, Math.min(head.get(c.resource) ?? Infinity, c.position));
    }
    return present.find(
      (t) =>
        t.claims.every((c) => {
          const p = this.policyOf(c.resource);
          return p.controller === null && head.get(c.resource) === c.position && (used.get(c.resource) ?? 0) < p.capacity;
        }),
    );
  }

  private grantTicket(t: TicketRecord, by: string): void {
    const at = this.now();
    for (const c of t.claims) this.store.setClaim(t.id, { ...c, epoch: this.policyOf(c.resource).epoch });
    // A ticket whose process is recorded already is in use from its grant on (held).
    this.store.updateTicket({ ...t, state: t.launch ? 'held' : 'granted', grantedAt: at, grantedBy: by, toldAt: this.listening(t.id) ? at : null });
    this.record('granted', this.ticket(t.id), by, t.launch ? `held by pid ${t.launch.pid}` : undefined);
  }

  private finish(t: TicketRecord, state: TicketState, event: ResourceEventKind, actor: string, why: string): void {
    this.store.updateTicket({ ...t, state, endedAt: this.now(), why });
    this.record(event, this.ticket(t.id), actor, why);
  }

  private policyOf(name: string): PolicyRecord {
    return this.store.policy(name) ?? { name, capacity: 1, controller: null, waitMs: null, epoch: 1, updatedAt: 0 };
  }

  private ticket(id: number): TicketRecord {
    return this.store.ticket(id)!;
  }

  private view(id: number): TicketView {
    return ticketView(this.ticket(id), this.store.openTickets());
  }

  private record(event: ResourceEventKind, t: TicketRecord, actor: string, detail?: string): void {
    this.emit({ event, ticket: t.id, resources: t.claims.map((c) => c.resource), holder: t.holder, actor, ...(detail !== undefined ? { detail } : {}) });
  }

  /** The one place a reservation event is made: journaled in this transaction, published after it. */
  private emit(e: Omit<ResourceEvent, 'kind' | 'at'>): void {
    const event: ResourceEvent = { kind: 'resource', at: this.now(), ...e };
    this.store.appendJournal({
      at: event.at,
      kind: event.event,
      ticket: event.ticket,
      resources: event.resources,
      holder: event.holder,
      actor: event.actor,
      detail: event.detail ?? (event.epoch !== undefined ? `epoch ${event.epoch}` : null),
    });
    this.events!.push(event);
  }

  /** One transaction; its events are handed back only if it committed. */
  private run<T>(body: () => { ok: T } | { error: SwbErrorValue }): Outcome<T> {
    const events: ResourceEvent[] = [];
    this.events = events;
    try {
      const result = this.store.transaction(() => {
        const r = body();
        // A refusal writes nothing: undo whatever the body touched before it refused.
        if ('error' in r) throw new Refused(r.error);
        return r;
      });
      return { ...result, events };
    } catch (err) {
      if (err instanceof Refused) return { error: err.value, events: [] };
      throw err;
    } finally {
      this.events = null;
    }
  }
}

class Refused extends Error {
  constructor(readonly value: SwbErrorValue) {
    super(value.message);
  }
}

function fail(code: SwbErrorValue['code'], message: string): { error: SwbErrorValue } {
  return { error: swbError(code, message) };
}

function notFound(id: number, actor: Actor): { error: SwbErrorValue } {
  return fail('NOT_FOUND', `No ticket ${id} that ${actor.handle} may see.`);
}

function staleSentence(t: TicketRecord): string {
  return `Ticket ${t.id} is void: ${t.why ?? 'the policy changed'}. Ask again (the new policy applies).`;
}

/** How many holding tickets each resource has. */
function usage(open: readonly TicketRecord[]): Map<string, number> {
  const used = new Map<string, number>();
  for (const t of open) if (HOLDING_STATES.has(t.state)) for (const c of t.claims) used.set(c.resource, (used.get(c.resource) ?? 0) + 1);
  return used;
}

/** A request that names no wait waits the shortest default among its resources' policies (none: until granted). */
function defaultWait(policies: readonly PolicyRecord[]): number | null {
  const waits = policies.map((p) => p.waitMs).filter((w): w is number => w !== null);
  return waits.length === 0 ? null : Math.min(...waits);
}
