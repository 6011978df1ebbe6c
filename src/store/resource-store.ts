// Reservations in mail.db (issue #35): policies, tickets and the resources they claim, the launch
// ledger and the resource journal. Rows in, rows out, no rules: the rules live in
// src/resources/resource-coordinator.ts, which runs each operation inside `transaction` so that a
// change and everything it implies (the next grant, a journal line) commit together, or not at all.
// The one writer is the hub that holds the workspace lock, as for mail.
import { preparedOnFirstUse, sql } from './prepared-on-first-use.js';
import type { TicketState } from '../protocol/resource-name.js';
import type { SqliteDatabase } from './open-database.js';

export interface PolicyRecord {
  name: string;
  capacity: number;
  controller: string | null;
  waitMs: number | null;
  epoch: number;
  updatedAt: number;
}

export interface ClaimRecord {
  resource: string;
  /** Order in that resource's queue (lower goes first). */
  position: number;
  /** The policy epoch the grant was made under (null until granted). */
  epoch: number | null;
}

export interface LaunchRecord {
  pid: number;
  startTime: string;
  pgid: number;
  command: string;
  holder: string;
  launchedAt: number;
}

export interface TicketRecord {
  id: number;
  holder: string;
  state: TicketState;
  reason: string | null;
  requestedAt: number;
  deadline: number | null;
  grantedAt: number | null;
  grantedBy: string | null;
  /** When the holder was answered with its grant (null: granted while nobody listened). */
  toldAt: number | null;
  endedAt: number | null;
  why: string | null;
  /** Sorted by resource name. */
  claims: ClaimRecord[];
  launch: LaunchRecord | null;
}

export interface ResourceJournalEntry {
  id: number;
  at: number;
  kind: string;
  ticket: number | null;
  resources: string[];
  holder: string | null;
  actor: string | null;
  detail: string | null;
}

/** Journal lines kept; older ones go in the transaction that adds a new one. */
export const RESOURCE_JOURNAL_KEEP = 10_000;
/** Finished tickets (released, cancelled, void) kept for status and forensics. */
export const FINISHED_TICKETS_KEEP = 2_000;

interface TicketRow {
  id: number;
  holder: string;
  state: string;
  reason: string | null;
  requested_at: number;
  deadline: number | null;
  granted_at: number | null;
  granted_by: string | null;
  told_at: number | null;
  ended_at: number | null;
  why: string | null;
}

interface ClaimRow {
  ticket: number;
  resource: string;
  position: number;
  epoch: number | null;
}

interface LaunchRow {
  ticket: number;
  pid: number;
  start_time: string;
  pgid: number;
  command: string;
  holder: string;
  launched_at: number;
}

const OPEN_STATES = `('queued', 'granted', 'held', 'uncertain')`;

export class ResourceStore {
  private readonly q: ReturnType<ResourceStore['prepare']>;
  private journalWrites = 0;

  constructor(readonly db: SqliteDatabase) {
    this.q = this.prepare();
  }

  private prepare() {
    const s = sql;
    return preparedOnFirstUse(this.db, {
      policy: s<{ name: string; capacity: number; controller: string | null; wait_ms: number | null; epoch: number; updated_at: number }>(
        `SELECT * FROM resource_policies WHERE name = ?`,
      ),
      policies: s<{ name: string; capacity: number; controller: string | null; wait_ms: number | null; epoch: number; updated_at: number }>(
        `SELECT * FROM resource_policies ORDER BY name`,
      ),
      upsertPolicy: s(`INSERT INTO resource_policies (name, capacity, controller, wait_ms, epoch, updated_at)
                       VALUES (@name, @capacity, @controller, @waitMs, @epoch, @updatedAt)
                       ON CONFLICT(name) DO UPDATE SET capacity = excluded.capacity, controller = excluded.controller,
                         wait_ms = excluded.wait_ms, epoch = excluded.epoch, updated_at = excluded.updated_at`),
      openTickets: s<TicketRow>(`SELECT * FROM resource_tickets WHERE state IN ${OPEN_STATES} ORDER BY id`),
      openClaims: s<ClaimRow>(`SELECT c.* FROM resource_claims c JOIN resource_tickets t ON t.id = c.ticket
                               WHERE t.state IN ${OPEN_STATES} ORDER BY c.ticket, c.resource`),
      openLaunches: s<LaunchRow>(`SELECT l.* FROM resource_launches l JOIN resource_tickets t ON t.id = l.ticket
                                  WHERE t.state IN ${OPEN_STATES}`),
      ticket: s<TicketRow>(`SELECT * FROM resource_tickets WHERE id = ?`),
      claimsOf: s<ClaimRow>(`SELECT * FROM resource_claims WHERE ticket = ? ORDER BY resource`),
      launchOf: s<LaunchRow>(`SELECT * FROM resource_launches WHERE ticket = ?`),
      openCountOf: s<{ n: number }>(`SELECT count(*) AS n FROM resource_tickets WHERE holder = ? AND state IN ${OPEN_STATES}`),
      insertTicket: s(`INSERT INTO resource_tickets (holder, state, reason, requested_at, deadline) VALUES (?, 'queued', ?, ?, ?)`),
      insertClaim: s(`INSERT INTO resource_claims (ticket, resource, position, epoch) VALUES (?, ?, ?, NULL)`),
      setClaim: s(`UPDATE resource_claims SET position = @position, epoch = @epoch WHERE ticket = @ticket AND resource = @resource`),
      updateTicket: s(`UPDATE resource_tickets SET state = @state, granted_at = @grantedAt, granted_by = @grantedBy, told_at = @toldAt,
                         ended_at = @endedAt, why = @why WHERE id = @id`),
      insertLaunch: s(`INSERT INTO resource_launches (ticket, pid, start_time, pgid, command, holder, launched_at)
                       VALUES (?, ?, ?, ?, ?, ?, ?)`),
      insertEvent: s(`INSERT INTO resource_events (at, kind, ticket, resources, holder, actor, detail) VALUES (?, ?, ?, ?, ?, ?, ?)`),
      trimEvents: s(`DELETE FROM resource_events WHERE id <= (SELECT max(id) FROM resource_events) - ?`),
      trimFinished: s(`DELETE FROM resource_tickets WHERE state NOT IN ${OPEN_STATES} AND id <= (
                         SELECT id FROM resource_tickets WHERE state NOT IN ${OPEN_STATES} ORDER BY id DESC LIMIT 1 OFFSET ?)`),
      recentEvents: s<{ id: number; at: number; kind: string; ticket: number | null; resources: string; holder: string | null; actor: string | null; detail: string | null }>(
        `SELECT * FROM resource_events ORDER BY id DESC LIMIT ?`,
      ),
    });
  }

  /** Runs `fn` in one transaction (a savepoint inside an open one); it commits when `fn` returns. */
  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }

  policy(name: string): PolicyRecord | undefined {
    const r = this.q.policy.get(name);
    return r && { name: r.name, capacity: r.capacity, controller: r.controller, waitMs: r.wait_ms, epoch: r.epoch, updatedAt: r.updated_at };
  }

  policies(): PolicyRecord[] {
    return this.q.policies.all().map((r) => ({ name: r.name, capacity: r.capacity, controller: r.controller, waitMs: r.wait_ms, epoch: r.epoch, updatedAt: r.updated_at }));
  }

  savePolicy(p: PolicyRecord): void {
    this.q.upsertPolicy.run(p);
  }

  /** Every ticket still queued, granted, held or uncertain, oldest first, with claims and ledger. */
  openTickets(): TicketRecord[] {
    const claims = new Map<number, ClaimRecord[]>();
    for (const c of this.q.openClaims.all()) {
      let list = claims.get(c.ticket);
      if (!list) claims.set(c.ticket, (list = []));
      list.push({ resource: c.resource, position: c.position, epoch: c.epoch });
    }
    const launches = new Map(this.q.openLaunches.all().map((l) => [l.ticket, launchOf(l)]));
    return this.q.openTickets.all().map((t) => ticketOf(t, claims.get(t.id) ?? [], launches.get(t.id) ?? null));
  }

  ticket(id: number): TicketRecord | undefined {
    const t = this.q.ticket.get(id);
    if (!t) return undefined;
    const l = this.q.launchOf.get(id);
    return ticketOf(
      t,
      this.q.claimsOf.all(id).map((c) => ({ resource: c.resource, position: c.position, epoch: c.epoch })),
      l ? launchOf(l) : null,
    );
  }

  openTicketCount(holder: string): number {
    return this.q.openCountOf.get(holder)?.n ?? 0;
  }

  /** A new queued ticket; each claim's position is the ticket's id (first come, first served). */
  insertTicket(holder: string, resources: readonly string[], reason: string | null, at: number, deadline: number | null): number {
    const id = Number(this.q.insertTicket.run(holder, reason, at, deadline).lastInsertRowid);
    for (const r of resources) this.q.insertClaim.run(id, r, id);
    return id;
  }

  setClaim(ticket: number, claim: ClaimRecord): void {
    this.q.setClaim.run({ ticket, resource: claim.resource, position: claim.position, epoch: claim.epoch });
  }

  /** Writes a ticket's state and times (the claims and the ledger have their own writes). */
  updateTicket(t: TicketRecord): void {
    this.q.updateTicket.run({ id: t.id, state: t.state, grantedAt: t.grantedAt, grantedBy: t.grantedBy, toldAt: t.toldAt, endedAt: t.endedAt, why: t.why });
  }

  insertLaunch(ticket: number, l: LaunchRecord): void {
    this.q.insertLaunch.run(ticket, l.pid, l.startTime, l.pgid, l.command, l.holder, l.launchedAt);
  }

  /** One journal line; every so often the oldest lines and finished tickets past their bounds go. */
  appendJournal(e: Omit<ResourceJournalEntry, 'id'>): void {
    this.q.insertEvent.run(e.at, e.kind, e.ticket, JSON.stringify(e.resources), e.holder, e.actor, e.detail);
    this.journalWrites += 1;
    if (this.journalWrites % 256 === 0) {
      this.q.trimEvents.run(RESOURCE_JOURNAL_KEEP);
      this.q.trimFinished.run(FINISHED_TICKETS_KEEP);
    }
  }

  /** The newest journal lines, newest first. */
  journal(limit: number): ResourceJournalEntry[] {
    return this.q.recentEvents.all(limit).map((r) => ({ ...r, resources: JSON.parse(r.resources) as string[] }));
  }
}

function ticketOf(t: TicketRow, claims: ClaimRecord[], launch: LaunchRecord | null): TicketRecord {
  return {
    id: t.id,
    holder: t.holder,
    state: t.state as TicketState,
    reason: t.reason,
    requestedAt: t.requested_at,
    deadline: t.deadline,
    grantedAt: t.granted_at,
    grantedBy: t.granted_by,
    toldAt: t.told_at,
    endedAt: t.ended_at,
    why: t.why,
    claims,
    launch,
  };
}

function launchOf(l: LaunchRow): LaunchRecord {
  return { pid: l.pid, startTime: l.start_time, pgid: l.pgid, command: l.command, holder: l.holder, launchedAt: l.launched_at };
}
