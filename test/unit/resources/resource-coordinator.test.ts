// The coordinator's rules over a real mail.db (migrations included) with a fake clock: FIFO per
// resource, all-or-none requests in one order (no deadlock), capacity, controllers, epochs and
// void grants, timeouts, uncertain holders, authority, evidence, and the journal.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TicketView } from '../../../src/protocol/resource-name.js';
import { ResourceCoordinator, TIMEOUT_WHY, type Outcome } from '../../../src/resources/resource-coordinator.js';
import type { Actor } from '../../../src/resources/ticket-authority.js';
import { openDatabase, type SqliteDatabase } from '../../../src/store/open-database.js';
import { ResourceStore } from '../../../src/store/resource-store.js';

let dir: string;
let db: SqliteDatabase;
let store: ResourceStore;
let clock = 1_000_000;
let c: ResourceCoordinator;

const operator: Actor = { handle: 'operator', role: 'operator' };
const row = (handle: string): Actor => ({ handle, role: 'row' });
const alice = row('alice');
const bob = row('bob');
const carol = row('carol');

function ok<T>(out: Outcome<T>): T {
  if ('error' in out) throw new Error(`${out.error.code}: ${out.error.message}`);
  return out.ok;
}
function code(out: Outcome<unknown>): string | undefined {
  return 'error' in out ? out.error.code : undefined;
}
const ask = (a: Actor, resources: string[], waitMs?: number): TicketView => ok(c.request(a, resources, null, waitMs));
const stateOf = (ticket: number) => c.ticketRecord(ticket)!.state;
const holdersOf = (name: string) => c.status(name)[0]!.holders.map((h) => h.holder);
const queueOf = (name: string) => c.status(name)[0]!.queue.map((h) => h.holder);

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'swb-resources-'));
  db = openDatabase(join(dir, 'mail.db'));
  store = new ResourceStore(db);
  clock = 1_000_000;
  c = new ResourceCoordinator(store, () => clock);
});

afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('ResourceCoordinator', () => {
  it('grants one resource first come, first served, and hands it on at release', () => {
    const a = ask(alice, ['db']);
    const b = ask(bob, ['db']);
    const k = ask(carol, ['db']);
    expect([a.state, b.state, k.state]).toEqual(['granted', 'queued', 'queued']);
    expect(b.blockers).toEqual([{ resource: 'db', ticket: a.ticket, holder: 'alice', state: 'granted', since: clock }]);
    expect(k.ahead).toBe(1);
    ok(c.release(alice, a.ticket, false));
    expect(holdersOf('db')).toEqual(['bob']);
    expect(queueOf('db')).toEqual(['carol']);
  });

  it('takes several resources all or none, so two requests in reverse order cannot deadlock', () => {
    const x = ask(carol, ['x']);
    const ab = ask(alice, ['x', 'y']);
    const ba = ask(bob, ['y', 'x']);
    expect(ab.resources).toEqual(['x', 'y']);
    expect(ba.resources).toEqual(['x', 'y']);
    // y is free, but bob is behind alice in its queue: nobody holds half of what they need.
    expect(holdersOf('y')).toEqual([]);
    ok(c.release(carol, x.ticket, false));
    expect(stateOf(ab.ticket)).toBe('granted');
    expect(stateOf(ba.ticket)).toBe('queued');
    ok(c.release(alice, ab.ticket, false));
    expect(stateOf(ba.ticket)).toBe('granted');
  });

  it('never lets a younger request pass an older one in a queue they share (a wide request is not starved)', () => {
    const x = ask(carol, ['x']);
    const wide = ask(alice, ['x', 'y']);
    const narrow = ask(bob, ['y']);
    // y is free, but alice is first in its queue: bob waits behind her.
    expect(stateOf(narrow.ticket)).toBe('queued');
    expect(narrow.ahead).toBe(1);
    ok(c.release(carol, x.ticket, false));
    expect(stateOf(wide.ticket)).toBe('granted');
    expect(stateOf(narrow.ticket)).toBe('queued');
  });

  it('grants up to the capacity the policy sets', () => {
    ok(c.setPolicy(operator, 'gpu', { capacity: 2 }));
    expect([ask(alice, ['gpu']).state, ask(bob, ['gpu']).state, ask(carol, ['gpu']).state]).toEqual(['granted', 'granted', 'queued']);
  });

  it('with a controller, grants only by hand: the controller (a row) or the operator, never another row', () => {
    ok(c.setPolicy(operator, 'deploy', { controller: 'lead' }));
    const a = ask(alice, ['deploy']);
    const b = ask(bob, ['deploy']);
    expect(a.state).toBe('queued');
    expect(code(c.grant(alice, b.ticket))).toBe('UNAUTHENTICATED');
    // The controller picks bob first: he moves to the front and is granted.
    expect(ok(c.grant(row('lead'), b.ticket)).state).toBe('granted');
    expect(queueOf('deploy')).toEqual(['alice']);
    // A tokenless participant with the controller's name is not the controller.
    expect(code(c.grant({ handle: 'lead', role: 'participant' }, a.ticket))).toBe('UNAUTHENTICATED');
    // Full: a second grant reorders but cannot exceed the capacity.
    expect(ok(c.grant(operator, a.ticket)).state).toBe('queued');
  });

  it('a policy change raises the epoch and voids an unused grant, while a launched holder keeps its own', () => {
    ok(c.setPolicy(operator, 'db', { capacity: 2 }));
    const used = ask(alice, ['db']);
    const unused = ask(bob, ['db']);
    ok(c.launched(alice, used.ticket, { pid: 4242, startTime: '99', pgid: 4242, command: 'make test' }));
    const status = ok(c.setPolicy(operator, 'db', { capacity: 2, waitMs: 5000 }));
    expect(status.epoch).toBe(3);
    expect(stateOf(used.ticket)).toBe('held');
    expect(stateOf(unused.ticket)).toBe('void');
    expect(code(c.launched(bob, unused.ticket, { pid: 4243, startTime: '1', pgid: 4243, command: 'x' }))).toBe('STALE_POLICY');
  });

  it('a request that brings its gated process is held from its grant on, so a policy change cannot void it', () => {
    const first = ask(alice, ['db']);
    const gated = ok(c.request(bob, ['db'], null, undefined, { pid: 777, startTime: '5', pgid: 777, command: 'npm test' }));
    expect(gated).toMatchObject({ state: 'queued', launch: { pid: 777, command: 'npm test' } });
    ok(c.release(alice, first.ticket, false));
    expect(stateOf(gated.ticket)).toBe('held');
    ok(c.setPolicy(operator, 'db', { capacity: 1 }));
    expect(stateOf(gated.ticket)).toBe('held');
  });

  it('only the operator or the controller changes a policy', () => {
    expect(code(c.setPolicy(alice, 'db', { capacity: 3 }))).toBe('UNAUTHENTICATED');
    ok(c.setPolicy(operator, 'db', { controller: 'alice' }));
    expect(ok(c.setPolicy(alice, 'db', { capacity: 3 })).capacity).toBe(3);
  });

  it('cancels a request not granted within its wait (and grants what it blocked)', () => {
    const a = ask(alice, ['db']);
    const b = ask(bob, ['db'], 1000);
    clock += 999;
    expect(ok(c.sweep()) === null && stateOf(b.ticket)).toBe('queued');
    clock += 1;
    const out = c.sweep();
    expect(stateOf(b.ticket)).toBe('cancelled');
    expect(c.ticketRecord(b.ticket)!.why).toMatch(new RegExp(`^${TIMEOUT_WHY}`));
    expect(out.events.map((e) => e.event)).toEqual(['timeout']);
    expect(stateOf(a.ticket)).toBe('granted');
  });

  it('a wait of 0 tries once: granted if free, else withdrawn at once', () => {
    expect(ask(alice, ['db'], 0).state).toBe('granted');
    expect(ask(bob, ['db'], 0).state).toBe('cancelled');
  });

  it('a holder gone without evidence leaves its grant uncertain until the operator forces it free', () => {
    const a = ask(alice, ['db']);
    const b = ask(bob, ['db']);
    ok(c.holderGone('alice', 'row alice exited'));
    expect(stateOf(a.ticket)).toBe('uncertain');
    expect(c.ticketRecord(a.ticket)!.why).toMatch(/row alice exited.*no process recorded/);
    expect(stateOf(b.ticket)).toBe('queued'); // uncertain still counts against capacity
    expect(code(c.release(alice, a.ticket, false))).toBe('TICKET_STATE');
    expect(code(c.release(bob, a.ticket, true))).toBe('UNAUTHENTICATED');
    ok(c.release(operator, a.ticket, true));
    expect(stateOf(a.ticket)).toBe('released');
    expect(stateOf(b.ticket)).toBe('granted');
  });

  it('a holder gone leaves a launched grant to its process evidence, and its queued requests are dropped', () => {
    const a = ask(alice, ['db']);
    const q = ask(alice, ['e2e', 'db']);
    ok(c.launched(alice, a.ticket, { pid: 4242, startTime: '99', pgid: 4242, command: 'make' }));
    ok(c.holderGone('alice', 'row alice exited'));
    expect(stateOf(a.ticket)).toBe('held');
    expect(stateOf(q.ticket)).toBe('cancelled');
    ok(c.evidenceGone(a.ticket, 'pid 4242 gone'));
    expect(stateOf(a.ticket)).toBe('released');
  });

  it('a row neither releases, cancels nor grants another row\'s ticket', () => {
    const a = ask(alice, ['db']);
    const b = ask(bob, ['db']);
    expect(code(c.release(bob, a.ticket, false))).toBe('UNAUTHENTICATED');
    expect(code(c.cancel(alice, b.ticket))).toBe('UNAUTHENTICATED');
    expect(code(c.grant(alice, b.ticket))).toBe('UNAUTHENTICATED');
    expect(code(c.launched(bob, a.ticket, { pid: 5, startTime: '1', pgid: 5, command: 'x' }))).toBe('NOT_FOUND');
    expect(stateOf(a.ticket)).toBe('granted');
    expect(stateOf(b.ticket)).toBe('queued');
  });

  it('a refusal writes nothing and publishes nothing; each change is journaled once', () => {
    const a = ask(alice, ['db']);
    const before = store.journal(100).length;
    const refused = c.release(bob, a.ticket, false);
    expect(refused.events).toEqual([]);
    expect(store.journal(100).length).toBe(before);
    const released = c.release(alice, a.ticket, false);
    expect(released.events.map((e) => e.event)).toEqual(['released']);
    expect(store.journal(1)[0]).toMatchObject({ kind: 'released', ticket: a.ticket, resources: ['db'], holder: 'alice', actor: 'alice' });
  });

  it('bounds the tickets one holder may have open', () => {
    for (let i = 0; i < 16; i++) ask(alice, [`r${i}`]);
    expect(code(c.request(alice, ['one-more'], null, undefined))).toBe('TICKET_LIMIT');
  });

  it('keeps everything in the store: a new coordinator over the same file sees order and holders', () => {
    const a = ask(alice, ['db']);
    ask(bob, ['db']);
    ask(carol, ['db']);
    const again = new ResourceCoordinator(new ResourceStore(db), () => clock);
    expect(again.status('db')[0]!.holders.map((h) => h.ticket)).toEqual([a.ticket]);
    expect(again.status('db')[0]!.queue.map((h) => h.holder)).toEqual(['bob', 'carol']);
  });
});

describe('ResourceCoordinator with a client away', () => {
  it('passes over a queued ticket whose client is away, and puts it first again once it is back', () => {
    const away = new Set<number>();
    const co = new ResourceCoordinator(new ResourceStore(db), () => clock, () => false, (t) => away.has(t));
    const a = ok(co.request(alice, ['db'], null, undefined));
    const b = ok(co.request(bob, ['db'], null, undefined));
    const k = ok(co.request(carol, ['db'], null, undefined));
    away.add(b.ticket);
    ok(co.release(alice, a.ticket, false));
    expect(co.ticketRecord(k.ticket)!.state).toBe('granted');
    expect(co.ticketRecord(b.ticket)!.state).toBe('queued');
    away.delete(b.ticket);
    const d = ok(co.request(row('dave'), ['db'], null, undefined));
    ok(co.release(carol, k.ticket, false));
    expect(co.ticketRecord(b.ticket)!.state).toBe('granted');
    expect(co.ticketRecord(d.ticket)!.state).toBe('queued');
  });
});
