// Reservations (issue #35) against a real hub and real processes: `swb run --resource` never lets
// two holders overlap, multi-resource requests in reverse order both complete, a wait that runs out
// runs nothing, a killed command (or a killed `swb run`) hands over on evidence, an uncertain holder
// waits for the operator, a policy change voids an unused grant, rows keep to their own tickets, and
// a hub SIGKILLed mid-queue comes back with the same holders and order.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { TicketView, ResourceStatus } from '../../../src/protocol/resource-name.js';
import type { SwbError } from '../../../src/protocol/error-codes.js';
import { spawn } from 'node:child_process';
import { deferCleanup, runCleanups } from '../../helpers/cleanup.js';
import { connectClient, connectOperator, startTestHub } from '../../helpers/hub-harness.js';
import { killSwbProcess, loggedHubPids } from '../../helpers/processes.js';
import { runSwb, spawnSwb } from '../../helpers/run-swb.js';
import { createTempHome, type TempHome } from '../../helpers/temp-home.js';
import { waitUntil } from '../../helpers/wait-until.js';
import type { Hub } from '../../../src/hub/hub.js';

afterEach(runCleanups);

/** A command that appends "start ID" and "end ID" to `file`, with a moment between. */
const marks = (file: string, id: string) => ['sh', '-c', `echo "start ${id}" >> ${file}; sleep 0.02; echo "end ${id}" >> ${file}`];

/** The marks file as (start, end) pairs; throws if two holders' marks interleave. */
function cleanPairs(file: string): string[] {
  const lines = readFileSync(file, 'utf8').trim().split('\n');
  const order: string[] = [];
  for (let i = 0; i < lines.length; i += 2) {
    const [start, end] = [lines[i], lines[i + 1]];
    const id = start?.replace(/^start /, '');
    if (!start?.startsWith('start ') || end !== `end ${id}`) throw new Error(`marks interleave at line ${i + 1}: ${lines.slice(Math.max(0, i - 2), i + 4).join(' | ')}`);
    order.push(id!);
  }
  return order;
}

const queueOf = (hub: Hub, name: string) => hub.core.resources.coordinator.status(name)[0]!.queue.map((t) => t.holder);
const holdersOf = (hub: Hub, name: string) => hub.core.resources.coordinator.status(name)[0]!.holders.map((t) => `${t.holder}:${t.state}`);

async function rejection(p: Promise<unknown>): Promise<SwbError> {
  try {
    await p;
  } catch (err) {
    return err as SwbError;
  }
  throw new Error('expected a refusal');
}

describe('swb run --resource', () => {
  it('two swb run at once never overlap: their start/end marks pair up cleanly over 50 rounds', async () => {
    const { home } = await startTestHub();
    const file = join(home.workspace, 'marks');
    const rounds = 25; // each of two contenders: 50 gated runs in all
    const contender = async (id: string) => {
      for (let i = 0; i < rounds; i++) {
        const r = await runSwb(['run', '--as', id, '--resource', 'db', '--', ...marks(file, `${id}${i}`)], { home, timeoutMs: 30_000 });
        expect(r.status, r.stderr).toBe(0);
      }
    };
    await Promise.all([contender('alice'), contender('bob')]);
    const order = cleanPairs(file);
    expect(order).toHaveLength(2 * rounds);
    expect(new Set(order).size).toBe(2 * rounds);
  }, 120_000);

  it('requests for several resources in reverse order both complete (no deadlock), one after the other', async () => {
    const { hub, home, paths } = await startTestHub();
    const file = join(home.workspace, 'marks');
    const carol = await connectClient(paths, { session: 'carol' });
    const held = await carol.client.request<TicketView>('resource.request', { resources: ['x'] });
    const ab = spawnSwb(['run', '--as', 'alice', '--resource', 'x,y', '--', ...marks(file, 'alice')], { home });
    await waitUntil(() => queueOf(hub, 'x').includes('alice'), { what: 'alice queued' });
    const ba = spawnSwb(['run', '--as', 'bob', '--resource', 'y', '--resource', 'x', '--', ...marks(file, 'bob')], { home });
    await waitUntil(() => queueOf(hub, 'y').length === 2, { what: 'bob queued behind alice' });
    // y is free, yet nobody holds half of what they need.
    expect(holdersOf(hub, 'y')).toEqual([]);
    await carol.client.request('resource.release', { ticket: held.ticket });
    const [ra, rb] = await Promise.all([ab.exited, ba.exited]);
    expect(ra.status, ra.stderr).toBe(0);
    expect(rb.status, rb.stderr).toBe(0);
    expect(cleanPairs(file)).toEqual(['alice', 'bob']);
  }, 30_000);

  it('--wait 1 times out with RESOURCE_WAIT_TIMEOUT, exit 75, names the holder, and runs nothing', async () => {
    const { hub, home, paths } = await startTestHub();
    const holder = await connectClient(paths, { session: 'holder' });
    await holder.client.request('resource.request', { resources: ['db'], reason: 'migrating' });
    const marker = join(home.workspace, 'ran');
    const r = await runSwb(['run', '--as', 'late', '--resource', 'db', '--wait', '1', '--', 'touch', marker], { home });
    expect(r.status).toBe(75);
    expect(r.stderr).toMatch(/waiting for db \(ticket \d+\): db held by holder since/);
    expect(r.stderr).toMatch(/RESOURCE_WAIT_TIMEOUT: db not granted within the wait; held: db by holder/);
    expect(existsSync(marker)).toBe(false);
    expect(queueOf(hub, 'db')).toEqual([]);
    expect(holdersOf(hub, 'db')).toEqual(['holder:granted']);
  }, 20_000);

  it('passes the exit status through (128+N for a signal) and releases when the whole process group has exited', async () => {
    const { hub, home } = await startTestHub();
    expect((await runSwb(['run', '--as', 'a', '--resource', 'db', '--', 'sh', '-c', 'exit 7'], { home })).status).toBe(7);
    expect((await runSwb(['run', '--as', 'a', '--resource', 'db', '--', 'sh', '-c', 'kill -TERM $$'], { home })).status).toBe(128 + 15);
    // The command exits at once; a helper it left behind in its group (its stdio let go, so nothing
    // but the group ties it to swb run) keeps the resource until it ends: the next holder sees its mark.
    const helperDone = join(home.workspace, 'helper-done');
    const sawIt = join(home.workspace, 'next-saw-helper-done');
    const a = spawnSwb(['run', '--as', 'a', '--resource', 'db', '--', 'sh', '-c', `(sleep 0.5; touch ${helperDone}) </dev/null >/dev/null 2>&1 & exit 0`], { home });
    await waitUntil(() => holdersOf(hub, 'db')[0] === 'a:held', { what: 'a holding' });
    const b = spawnSwb(['run', '--as', 'b', '--resource', 'db', '--', 'sh', '-c', `test -e ${helperDone} && touch ${sawIt}`], { home });
    expect((await a.exited).status).toBe(0);
    expect(existsSync(helperDone)).toBe(true); // swb run waited for the helper
    expect((await b.exited).status).toBe(0);
    expect(existsSync(sawIt)).toBe(true);
    expect(holdersOf(hub, 'db')).toEqual([]);
  }, 20_000);

  it('a gated command SIGKILLed hands the resource to the next waiter at once', async () => {
    const { hub, home } = await startTestHub();
    const pidFile = join(home.workspace, 'pid');
    const bobRan = join(home.workspace, 'bob-ran');
    const alice = spawnSwb(['run', '--as', 'alice', '--resource', 'db', '--', 'sh', '-c', `echo $$ > ${pidFile}; exec sleep 30`], { home });
    await waitUntil(() => existsSync(pidFile) && holdersOf(hub, 'db')[0] === 'alice:held', { what: 'alice running' });
    const bob = spawnSwb(['run', '--as', 'bob', '--resource', 'db', '--', 'touch', bobRan], { home });
    await waitUntil(() => queueOf(hub, 'db').includes('bob'), { what: 'bob queued' });
    process.kill(Number(readFileSync(pidFile, 'utf8')), 'SIGKILL');
    expect((await alice.exited).status).toBe(128 + 9);
    expect((await bob.exited).status).toBe(0);
    expect(existsSync(bobRan)).toBe(true);
  }, 20_000);

  it('a waiting swb run that is killed holds nobody up: the next waiter gets the resource at once, the ticket keeps its place for a reconnect', async () => {
    const { hub, home, paths } = await startTestHub();
    const holder = await connectClient(paths, { session: 'holder' });
    const held = await holder.client.request<TicketView>('resource.request', { resources: ['db'] });
    const bobRan = join(home.workspace, 'bob-ran');
    const bob = spawnSwb(['run', '--as', 'bob', '--resource', 'db', '--', 'touch', bobRan], { home });
    await waitUntil(() => queueOf(hub, 'db').includes('bob'), { what: 'bob queued' });
    const carol = spawnSwb(['run', '--as', 'carol', '--resource', 'db', '--', 'true'], { home });
    await waitUntil(() => queueOf(hub, 'db').length === 2, { what: 'carol queued' });
    bob.child.kill('SIGKILL');
    await bob.exited;
    await holder.client.request('resource.release', { ticket: held.ticket });
    const started = Date.now();
    expect((await carol.exited).status).toBe(0);
    expect(Date.now() - started).toBeLessThan(5000); // well inside bob's 10 s grace
    expect(queueOf(hub, 'db')).toEqual(['bob']);
    expect(existsSync(bobRan)).toBe(false); // its gate never opened
  }, 20_000);

  it('a killed swb run leaves its command the resource until the command is gone, then the hub hands over on evidence', async () => {
    const { hub, home, paths } = await startTestHub();
    const pidFile = join(home.workspace, 'pid');
    const bobRan = join(home.workspace, 'bob-ran');
    const alice = spawnSwb(['run', '--as', 'alice', '--resource', 'db', '--', 'sh', '-c', `echo $$ > ${pidFile}; exec sleep 30`], { home });
    await waitUntil(() => existsSync(pidFile) && holdersOf(hub, 'db')[0] === 'alice:held', { what: 'alice running' });
    const bob = spawnSwb(['run', '--as', 'bob', '--resource', 'db', '--', 'touch', bobRan], { home });
    await waitUntil(() => queueOf(hub, 'db').includes('bob'), { what: 'bob queued' });
    // swb run only: its command lives on in its own group (holding swb run's stdout, so wait for
    // the exit, not for the pipes to close).
    const aliceGone = new Promise((resolve) => alice.child.once('exit', resolve));
    alice.child.kill('SIGKILL');
    await aliceGone;
    const command = Number(readFileSync(pidFile, 'utf8'));
    const ledger = hub.core.resources.coordinator.status('db')[0]!.holders[0]!;
    expect(ledger).toMatchObject({ holder: 'alice', state: 'held', launch: { pid: command, pgid: command } });
    // Once the hub saw alice's connection close it checked the evidence (at once); a release it
    // decided on would be committed before any operation queued after it, such as this probe's.
    // The command runs, so the resource stays alice's.
    await waitUntil(() => !hub.core.sessions.isOnline('alice'), { what: 'the hub to see swb run gone' });
    const probe = await connectClient(paths, { session: 'probe' });
    await probe.client.request('resource.request', { resources: ['probe'] });
    expect(holdersOf(hub, 'db')).toEqual(['alice:held']);
    expect(existsSync(bobRan)).toBe(false);
    process.kill(command, 'SIGKILL');
    expect((await bob.exited).status).toBe(0);
    expect(existsSync(bobRan)).toBe(true);
    const released = hub.core.resources.coordinator.ticketRecord(ledger.ticket)!;
    expect(released).toMatchObject({ state: 'released', why: expect.stringMatching(/process tree is gone/) });
  }, 20_000);
});

describe('resource.* over the socket', () => {
  it('a row that exits holding a grant with no process recorded leaves it uncertain until the operator forces it free', async () => {
    const { hub, paths } = await startTestHub();
    const reg = hub.core.sessions.registerRow('worker');
    if (!reg.ok) throw new Error('registerRow');
    hub.core.sessions.setRowRunning('worker', true);
    const worker = await connectClient(paths, { session: 'worker', token: reg.token });
    const t = await worker.client.request<TicketView>('resource.request', { resources: ['db'], reason: 'seeding' });
    expect(t.state).toBe('granted');
    const waiter = await connectClient(paths, { session: 'waiter' });
    const queued = await waiter.client.request<TicketView>('resource.request', { resources: ['db'] });
    expect(queued).toMatchObject({ state: 'queued', blockers: [{ resource: 'db', ticket: t.ticket, holder: 'worker', state: 'granted' }] });
    const waiting = waiter.client.request<TicketView>('resource.wait', { ticket: queued.ticket, waitMs: 20_000 }, { timeoutMs: 40_000 });
    worker.client.close();
    hub.core.sessions.setRowRunning('worker', false);
    await waitUntil(() => holdersOf(hub, 'db')[0] === 'worker:uncertain', { what: 'uncertain' });
    const shown = (await (await connectOperator(paths)).client.request<{ resources: ResourceStatus[] }>('resource.status', { name: 'db' })).resources[0]!;
    expect(shown.holders[0]).toMatchObject({ ticket: t.ticket, holder: 'worker', state: 'uncertain', reason: 'seeding', why: expect.stringMatching(/row worker exited.*no process recorded/) });
    expect(queueOf(hub, 'db')).toEqual(['waiter']);
    const op = await connectOperator(paths);
    expect((await rejection(waiter.client.request('resource.release', { ticket: t.ticket, force: true }))).code).toBe('UNAUTHENTICATED');
    expect((await rejection(op.client.request('resource.release', { ticket: t.ticket }))).code).toBe('UNAUTHENTICATED');
    const freed = await op.client.request<TicketView>('resource.release', { ticket: t.ticket, force: true });
    expect(freed).toMatchObject({ state: 'released', why: expect.stringMatching(/forced free by operator/) });
    expect((await waiting).state).toBe('granted');
  }, 20_000);

  it('a policy change voids an unused grant with STALE_POLICY, and publishes the epoch and the void as resource events', async () => {
    const { paths } = await startTestHub();
    const op = await connectOperator(paths);
    await op.client.request('events.subscribe', { kinds: ['resource'] });
    const alice = await connectClient(paths, { session: 'alice' });
    const t = await alice.client.request<TicketView>('resource.request', { resources: ['db'] });
    expect(t.state).toBe('granted');
    const s = await op.client.request<ResourceStatus>('resource.policy', { name: 'db', capacity: 2 });
    expect(s.epoch).toBe(2);
    const stale = await rejection(alice.client.request('resource.launched', { ticket: t.ticket, pid: process.pid }));
    expect(stale.code).toBe('STALE_POLICY');
    expect((await rejection(alice.client.request('resource.wait', { ticket: t.ticket }))).code).toBe('STALE_POLICY');
    await waitUntil(() => op.pushes.of<{ event: string }>('event').some((e) => e.event === 'void'), { what: 'void event' });
    expect(op.pushes.of<{ event: string; resources: string[] }>('event').map((e) => e.event)).toEqual(['requested', 'granted', 'policy', 'void']);
  }, 20_000);

  it('swb events --kinds resource streams requests, grants, releases and timeouts, and nothing else', async () => {
    const { home, paths } = await startTestHub();
    const events = spawnSwb(['events', '--kinds', 'resource', '--json'], { home });
    await waitUntil(() => events.stderr().includes('watching resource'), { what: 'events watching' });
    const alice = await connectClient(paths, { session: 'alice' });
    await alice.client.request('mail.send', { to: ['alice'], text: 'not a resource event' });
    const t = await alice.client.request<TicketView>('resource.request', { resources: ['db'], reason: 'r' });
    await rejection(alice.client.request('resource.request', { resources: ['db'], waitMs: 0 }));
    await alice.client.request('resource.release', { ticket: t.ticket });
    const lines = () => events.stdout().trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as { kind: string; event: string; holder: string });
    await waitUntil(() => lines().some((e) => e.event === 'released'), { what: 'the release event' });
    expect(lines().map((e) => `${e.kind}:${e.event}`)).toEqual([
      'resource:requested',
      'resource:granted',
      'resource:requested',
      'resource:timeout',
      'resource:released',
    ]);
    expect(lines().every((e) => e.holder === 'alice')).toBe(true);
  }, 20_000);

  it('a row can neither grant, release, force nor cancel another row\'s ticket; the operator can', async () => {
    const { hub, paths } = await startTestHub();
    const tokens = ['rowa', 'rowb'].map((h) => {
      const r = hub.core.sessions.registerRow(h);
      if (!r.ok) throw new Error('registerRow');
      return r.token;
    });
    const a = await connectClient(paths, { session: 'rowa', token: tokens[0]! });
    const b = await connectClient(paths, { session: 'rowb', token: tokens[1]! });
    const bWaits = await connectClient(paths, { session: 'rowb', token: tokens[1]! });
    const mine = await a.client.request<TicketView>('resource.request', { resources: ['db'] });
    const theirs = await b.client.request<TicketView>('resource.request', { resources: ['db'], waitMs: 0 }).catch((e: SwbError) => e);
    expect((theirs as SwbError).code).toBe('RESOURCE_WAIT_TIMEOUT');
    void bWaits.client.request('resource.request', { resources: ['db'], waitMs: 60_000 }, { timeoutMs: 60_000 }).catch(() => undefined);
    await waitUntil(() => queueOf(hub, 'db').includes('rowb'), { what: 'rowb queued' });
    const bTicket = hub.core.resources.coordinator.status('db')[0]!.queue[0]!.ticket;
    for (const [method, params] of [
      ['resource.release', { ticket: mine.ticket }],
      ['resource.release', { ticket: mine.ticket, force: true }],
      ['resource.cancel', { ticket: mine.ticket }],
      ['resource.grant', { ticket: bTicket }],
      ['resource.policy', { name: 'db', controller: 'rowb' }],
    ] as const) {
      expect((await rejection(b.client.request(method, params))).code, method).toBe('UNAUTHENTICATED');
    }
    expect((await rejection(a.client.request('resource.cancel', { ticket: bTicket }))).code).toBe('UNAUTHENTICATED');
    expect(holdersOf(hub, 'db')).toEqual(['rowa:granted']);
    const op = await connectOperator(paths);
    expect((await op.client.request<TicketView>('resource.release', { ticket: mine.ticket, force: true })).state).toBe('released');
  }, 20_000);
});

describe('a hub that starts', () => {
  it('releases a launch whose process ended while no hub ran, and keeps one whose process lives', async () => {
    const { hub, home, paths } = await startTestHub();
    const alice = await connectClient(paths, { session: 'alice' });
    const spawnSleeper = () => {
      const child = spawn('sleep', ['30'], { detached: true, stdio: 'ignore' });
      deferCleanup('sleeper', () => void child.kill('SIGKILL'));
      return child;
    };
    const [dies, lives] = [spawnSleeper(), spawnSleeper()];
    const a = await alice.client.request<TicketView>('resource.request', { resources: ['db'] });
    await alice.client.request('resource.launched', { ticket: a.ticket, pid: dies.pid });
    const b = await alice.client.request<TicketView>('resource.request', { resources: ['e2e'] });
    await alice.client.request('resource.launched', { ticket: b.ticket, pid: lives.pid });
    await hub.stop();
    const gone = new Promise((r) => dies.once('exit', r));
    dies.kill('SIGKILL');
    await gone;
    const next = await startTestHub({ home });
    await waitUntil(() => next.hub.core.resources.coordinator.ticketRecord(a.ticket)!.state === 'released', { what: 'the dead launch released' });
    expect(next.hub.core.resources.coordinator.ticketRecord(a.ticket)!.why).toMatch(/process tree is gone/);
    // The same check at start read b's process too: alive, so b is still held.
    expect(next.hub.core.resources.coordinator.ticketRecord(b.ticket)!.state).toBe('held');
  }, 20_000);
});

describe('a hub SIGKILLed mid-queue', () => {
  it('comes back with the same holder and queue order, and the waiting swb runs carry on in that order', async () => {
    const home: TempHome = createTempHome();
    const file = join(home.workspace, 'marks');
    const granted = await runSwb(['resource', 'request', 'db', '--as', 'alice', '--json'], { home });
    expect(granted.status, granted.stderr).toBe(0);
    const ticket = (JSON.parse(granted.stdout) as TicketView).ticket;
    const status = async () => {
      const r = await runSwb(['resource', 'status', 'db', '--json'], { home });
      return (JSON.parse(r.stdout) as { resources: ResourceStatus[] }).resources[0]!;
    };
    const bob = spawnSwb(['run', '--as', 'bob', '--resource', 'db', '--', ...marks(file, 'bob')], { home, timeoutMs: 30_000 });
    await waitUntil(async () => (await status()).queue.length === 1, { what: 'bob queued', timeoutMs: 10_000 });
    const carol = spawnSwb(['run', '--as', 'carol', '--resource', 'db', '--', ...marks(file, 'carol')], { home, timeoutMs: 30_000 });
    await waitUntil(async () => (await status()).queue.length === 2, { what: 'carol queued', timeoutMs: 10_000 });
    const [hubPid] = loggedHubPids(home.home);
    process.kill(hubPid!, 'SIGKILL');
    await waitUntil(() => {
      try {
        process.kill(hubPid!, 0);
        return false;
      } catch {
        return true;
      }
    });
    const after = await status(); // starts the next hub
    expect(after.holders.map((t) => [t.ticket, t.holder, t.state])).toEqual([[ticket, 'alice', 'granted']]);
    expect(after.queue.map((t) => t.holder)).toEqual(['bob', 'carol']);
    const released = await runSwb(['resource', 'release', String(ticket), '--as', 'alice'], { home });
    expect(released.status, released.stderr).toBe(0);
    const [rb, rc] = await Promise.all([bob.exited, carol.exited]);
    expect(rb.status, rb.stderr).toBe(0);
    expect(rc.status, rc.stderr).toBe(0);
    expect(cleanPairs(file)).toEqual(['bob', 'carol']);
    for (const pid of loggedHubPids(home.home)) await killSwbProcess(pid, home.home);
  }, 60_000);
});
