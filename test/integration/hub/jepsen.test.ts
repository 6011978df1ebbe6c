// A Jepsen-style test of the hub as a separate process (DESIGN §5: acceptance is durable). Six
// senders mail numbered messages (stable messageIds, retried after every lost answer) to three
// readers that list, read, reply and look up receipts, while a nemesis SIGKILLs and restarts the
// hub, SIGSTOPs and SIGCONTs it, holds mail.db's write lock from another process and fills the
// disk under it. After a quiet period and a clean restart, a checker judges the whole history
// against what mail.db holds: nothing acknowledged is lost or stored twice, receipts never move
// backwards, each sender's mail keeps its order per recipient, the hub still answers, and every
// error carries a documented code.
//
// SWB_JEPSEN_HISTORY=FILE writes the whole history (and the hub's log) there as JSON.
//
// Seeded (SEED below): the plan of messages and the nemesis's schedule are the same every run;
// timing is not, and the checked properties hold for every interleaving.
import Database from 'better-sqlite3';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveRuntimePaths } from '../../../src/hub/runtime-paths.js';
import { deferCleanup, runCleanups } from '../../helpers/cleanup.js';
import { DeadlineConnection, type Outcome } from '../../helpers/jepsen/deadline-client.js';
import { fillDisk, holdDbLock, mountTmpfs, removeFiller } from '../../helpers/jepsen/faults.js';
import { checkHistory, type StoredDelivery, type StoredMessage } from '../../helpers/jepsen/history.js';
import { HubProcess } from '../../helpers/jepsen/hub-process.js';
import { History, runPinger, runReader, runSender, Session, type Ping, type WorkloadContext } from '../../helpers/jepsen/workload.js';
import { seededRandom } from '../../helpers/seeded-random.js';
import { createTempHome } from '../../helpers/temp-home.js';
import { waitUntil } from '../../helpers/wait-until.js';

afterEach(runCleanups);

const SEED = 0x5eb1e5;
const WORKSPACE = 'jepsen';
const SENDERS = ['s1', 's2', 's3', 's4', 's5', 's6'];
const READERS = ['r1', 'r2', 'r3'];
/** Our own deadline per connect and per request (the hub's CLI client has none yet). */
const DEADLINE_MS = 3000;
/** The data dir's tmpfs: room for the run's mail.db and WAL, small enough to fill in a moment. */
const TMPFS_BYTES = 32 << 20;
/** How long the hub may take to answer again after a fault healed before that counts as not recovering. */
const RECOVERY_MS = 10_000;
/**
 * While another process holds mail.db's lock or the disk is full, the hub still runs: a ping it can
 * answer without the store must not wait longer than this (its event loop must not block on SQLite).
 * The lock is held 1.5-2 s, so a hub that waits out the lock on its event loop misses this clearly.
 */
const FREEZE_LIMIT_MS = 1000;
const PING_EVERY_MS = 50;

type FaultKind = 'kill' | 'pause' | 'lock' | 'disk';

interface FaultRecord {
  kind: FaultKind;
  at: number;
  /** When the fault was healed (hub restarted, SIGCONT sent, lock released, filler removed). */
  healedAt: number;
  /** When the hub answered a probe again, or null if it did not within RECOVERY_MS. */
  recoveredAt: number | null;
  detail: string;
  /** Why the nemesis could not inject or heal it (the lock holder got no lock, a restart failed, ...). */
  failed: string | null;
}

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Any answer to a hello (even SESSION_COLLISION) proves the hub's event loop runs. */
async function probeHello(socketPath: string, session: string): Promise<Outcome | { kind: 'no-connect'; reason: string }> {
  const c = await DeadlineConnection.connect(socketPath, DEADLINE_MS);
  if (!c.ok) return { kind: 'no-connect', reason: c.reason };
  try {
    return await c.conn.request('hello', { version: 1, session, client: 'jepsen-probe' }, DEADLINE_MS);
  } finally {
    c.conn.destroy();
  }
}

async function hubAnswers(socketPath: string, timeoutMs: number): Promise<boolean> {
  try {
    await waitUntil(async () => {
      const out = await probeHello(socketPath, 'jepsen-probe');
      return out.kind === 'ok' || out.kind === 'error';
    }, { timeoutMs, intervalMs: 20, what: 'the hub to answer a hello' });
    return true;
  } catch {
    return false;
  }
}

function shuffle<T>(items: T[], random: () => number): T[] {
  const a = [...items];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [a[i], a[j]] = [a[j]!, a[i]!];
  }
  return a;
}

const between = (random: () => number, lo: number, hi: number) => Math.round(lo + random() * (hi - lo));

describe('jepsen: the hub under kills, pauses, a foreign lock and a full disk', () => {
  it('loses no accepted message, stores none twice, keeps receipts and per-sender order, and still answers', async () => {
    const t0 = performance.now();
    const clock = () => performance.now() - t0;
    const nemesisRandom = seededRandom(SEED);
    const home = createTempHome();
    const paths = resolveRuntimePaths({ workspace: WORKSPACE, env: home.env });

    // The whole data dir (mail.db and its WAL) on a small tmpfs, so the disk can be filled.
    const dataRoot = join(home.home, 'data');
    const tmpfs = mountTmpfs(dataRoot, TMPFS_BYTES);
    if (!tmpfs.ok) console.log(`jepsen: full-disk fault skipped: ${tmpfs.reason}`);
    const filler = join(dataRoot, 'filler');

    const hub = new HubProcess({ home, workspace: WORKSPACE, clock });
    await hub.start();

    const history = new History();
    let running = true;
    deferCleanup('jepsen clients stop', () => (running = false)); // also when an assertion ends the test early
    const ctx: WorkloadContext = { socketPath: paths.socketPath, clock, deadlineMs: DEADLINE_MS, running: () => running, history };

    // The readers say hello first, so they are known (and offline mail for them is kept) before any send.
    const readerSessions = READERS.map((h, i) => new Session(h, ctx, seededRandom(SEED + 100 + i)));
    for (const s of readerSessions) expect(await s.connected(), `${s.handle} says hello`).not.toBeNull();

    const workers = [
      ...SENDERS.map((handle, i) =>
        runSender(ctx, {
          handle,
          recipients: READERS,
          planRandom: seededRandom(SEED + 1 + i),
          timingRandom: seededRandom(SEED + 11 + i),
          thinkMs: [20, 60],
        }),
      ),
      ...READERS.map((handle, i) =>
        runReader(ctx, { handle, session: readerSessions[i]!, random: seededRandom(SEED + 200 + i), pauseMs: [40, 120], replyProbability: 0.04 }),
      ),
    ];
    const pings: Ping[] = [];
    workers.push(runPinger(ctx, 'jepsen-ping', PING_EVERY_MS, pings));

    // The nemesis: a seeded, shuffled schedule of faults, each healed after a while; before the next
    // one it waits (a condition) for the hub to answer again.
    const kinds: FaultKind[] = ['kill', 'kill', 'pause', 'pause', 'lock', 'lock', ...(tmpfs.ok ? (['disk', 'disk'] as const) : [])];
    const schedule = shuffle(kinds, nemesisRandom);
    const faults: FaultRecord[] = [];
    let pauses = 0;
    await pause(1000); // load first: the nemesis acts at chosen moments
    for (const kind of schedule) {
      const at = clock();
      let detail = '';
      let failed: string | null = null;
      try {
        switch (kind) {
          case 'kill': {
            const pid = hub.current!.pid;
            await hub.kill();
            const down = between(nemesisRandom, 200, 600);
            await pause(down);
            const next = await hub.start();
            detail = `SIGKILL pid ${pid}, down ${down} ms, restarted as pid ${next.pid}`;
            break;
          }
          case 'pause': {
            // One pause shorter than the clients' deadline, one longer (their requests time out).
            const ms = pauses++ === 0 ? between(nemesisRandom, 1000, 1500) : between(nemesisRandom, 3500, 4000);
            hub.pause();
            try {
              await pause(ms);
            } finally {
              hub.resume();
            }
            detail = `SIGSTOP for ${ms} ms`;
            break;
          }
          case 'lock': {
            const lock = await holdDbLock(paths.dbFile);
            const lockedAt = clock();
            const ms = between(nemesisRandom, 1500, 2000);
            try {
              await pause(ms);
            } finally {
              await lock.release();
            }
            detail = `BEGIN EXCLUSIVE held by pid ${lock.child.pid} for ${ms} ms (got it ${(lockedAt - at).toFixed(0)} ms after asking)`;
            break;
          }
          case 'disk': {
            let bytes = 0;
            const ms = between(nemesisRandom, 1500, 2000);
            try {
              bytes = fillDisk(filler);
              await pause(ms);
            } finally {
              removeFiller(filler);
            }
            detail = `disk full for ${ms} ms (filler ${(bytes / 1048576).toFixed(1)} MiB)`;
            break;
          }
        }
      } catch (err) {
        failed = err instanceof Error ? err.message : String(err);
      }
      const healedAt = clock();
      const recovered = await hubAnswers(paths.socketPath, RECOVERY_MS);
      faults.push({ kind, at, healedAt, recoveredAt: recovered ? clock() : null, detail, failed });
      if (!recovered) break; // the hub is wedged: more faults would tell nothing more
      await pause(between(nemesisRandom, 600, 1000));
    }

    // The end of the run: every worker finishes its operation in flight (each is bounded by the deadline).
    running = false;
    let workersDone = false;
    void Promise.all(workers).then(() => (workersDone = true));
    await waitUntil(() => workersDone, { timeoutMs: 4 * DEADLINE_MS, what: 'every client to finish its last operation' });
    const runEnd = clock();

    // Quiet period, then a clean stop (SIGTERM) and a clean restart.
    const aliveAfterRun = await hubAnswers(paths.socketPath, RECOVERY_MS);
    const firstStop = await hub.terminate();
    let restartError: string | null = null;
    await hub.start().catch((err: unknown) => (restartError = err instanceof Error ? err.message : String(err)));
    const finalHello = restartError === null ? await probeHello(paths.socketPath, 'jepsen-final') : { kind: 'no-restart', reason: restartError };
    const secondStop = await hub.terminate();
    hub.finish();

    // The hub has stopped: read mail.db directly.
    const db = new Database(paths.dbFile, { readonly: true, fileMustExist: true });
    deferCleanup('jepsen mail.db reader', () => db.close());
    const messages = db.prepare('SELECT id, sender, message_id, text, kind, reply_to, recipients FROM messages ORDER BY id').all() as StoredMessage[];
    const deliveries = db.prepare('SELECT message, recipient, seq, state FROM deliveries ORDER BY recipient, seq').all() as StoredDelivery[];

    const verdict = checkHistory({
      planned: history.planned,
      ops: history.ops,
      observations: history.observations,
      messages,
      deliveries,
      workloadSenders: new Set([...SENDERS, ...READERS]),
    });

    // How long the hub took to answer a ping (no store involved) while a fault lasted. A ping with
    // no answer counts as the whole deadline when it timed out; one whose connection closed (the
    // hub was killed under it) lasted until then. Each ping counts for the faults it overlapped,
    // [invokedAt, endedAt]: before, an unanswered ping counted as open forever, and one cut off by
    // a kill showed up as a 3 s stall in every later fault (a flake under load).
    const pingLatency = (p: Ping) => (p.completedAt !== null ? p.completedAt : p.answer === 'timeout' ? p.invokedAt + DEADLINE_MS : p.endedAt) - p.invokedAt;
    const worstPing = (from: number, to: number) =>
      pings.filter((p) => p.invokedAt <= to && p.endedAt >= from).reduce((m, p) => Math.max(m, pingLatency(p)), 0);
    const stalls = faults
      .filter((f) => f.kind === 'lock' || f.kind === 'disk')
      .map((f) => ({ f, worst: worstPing(f.at, f.healedAt) }))
      .filter(({ worst }) => worst > FREEZE_LIMIT_MS)
      .map(({ f, worst }) => `${f.kind} at ${f.at.toFixed(0)} ms (${f.detail}): a ping waited ${worst.toFixed(0)} ms for its answer`);
    const calmPings = pings.filter((p) => !faults.some((f) => p.invokedAt <= (f.recoveredAt ?? f.healedAt) && p.endedAt >= f.at));
    const worstCalmPing = calmPings.reduce((m, p) => Math.max(m, pingLatency(p)), 0);
    const internals = history.ops.filter((o) => o.outcome === 'error' && o.code === 'INTERNAL');
    const internalSummary = internals.length === 0 ? [] : [
      `${internals.length} INTERNAL answers (${[...new Set(internals.map((o) => o.method))].join(', ')}), e.g. ` +
        [...new Set(internals.map((o) => o.errorMessage))].slice(0, 3).map((m) => JSON.stringify(m)).join('; ') +
        `; during faults: ${JSON.stringify(Object.fromEntries(faults.map((f, i) => [`${i}:${f.kind}`, internals.filter((o) => o.completedAt >= f.at && o.invokedAt <= (f.recoveredAt ?? f.healedAt)).length])))}`,
    ];

    // What the hub itself logged about failures (evidence for the report), over all incarnations.
    const hubLog = hub.incarnations.flatMap((inc) => inc.proc.stderr().split('\n').map((line) => `pid ${inc.pid}: ${line}`));
    const hubErrors = hubLog.filter((l) => /error|failed/i.test(l));
    const hubLogSummary = hubErrors.length === 0 ? 'hub log: no errors' : `hub log: ${hubErrors.length} error lines, first: ${hubErrors[0]!.slice(0, 300)}`;
    if (process.env.SWB_JEPSEN_HISTORY) {
      writeFileSync(process.env.SWB_JEPSEN_HISTORY, JSON.stringify({ seed: SEED, faults, planned: history.planned, ops: history.ops, observations: history.observations, pings, hubLog }));
    }

    // What the clients saw during each fault (from its start until the hub answered again).
    const faultLines = faults.map((f) => {
      const end = f.recoveredAt ?? f.healedAt;
      const inWindow = history.ops.filter((o) => o.completedAt >= f.at && o.invokedAt <= end);
      const codes: Record<string, number> = {};
      for (const o of inWindow) {
        const k = o.outcome === 'error' ? o.code ?? '(no code)' : o.outcome === 'indeterminate' ? `indeterminate:${o.reason}` : 'ok';
        codes[k] = (codes[k] ?? 0) + 1;
      }
      const recovery = f.recoveredAt === null ? `NOT answering ${RECOVERY_MS} ms after healing` : `answering ${(f.recoveredAt - f.healedAt).toFixed(0)} ms after healing`;
      const worst = inWindow.reduce((m, o) => Math.max(m, o.completedAt - o.invokedAt), 0);
      return (
        `  ${f.at.toFixed(0).padStart(6)} ms ${f.kind.padEnd(5)} ${f.detail}${f.failed ? ` FAILED: ${f.failed}` : ''}; ${recovery}; ops ${JSON.stringify(codes)}, ` +
        `slowest op ${worst.toFixed(0)} ms, slowest ping ${worstPing(f.at, f.healedAt).toFixed(0)} ms`
      );
    });
    const perKind: Record<string, number> = {};
    for (const f of faults) perKind[f.kind] = (perKind[f.kind] ?? 0) + 1;
    const s = verdict.stats;
    console.log(
      [
        `jepsen (seed ${SEED}): ${s.sendAttempts} send attempts for ${s.planned} messages over ${(runEnd / 1000).toFixed(1)} s; ` +
          `${s.accepted} accepted, ${s.retries} retries, ${s.indeterminateSends} indeterminate, ${s.duplicateAnswers} answered duplicate, ` +
          `${s.storedUnacknowledged} stored without an acknowledgement; ${s.otherOps} other operations, ${s.observations} receipt observations, ` +
          `${history.connections} connections (refused connects: ${JSON.stringify(Object.fromEntries(history.connectFailures))}); ` +
          `errors by code ${JSON.stringify(s.errorsByCode)}; faults ${JSON.stringify(perKind)}${tmpfs.ok ? '' : ` (disk skipped: ${tmpfs.reason})`}; ` +
          `hub incarnations ${hub.incarnations.length}, unexpected exits ${hub.unexpectedExits.length}; ` +
          `lost=${verdict.lost.length} duplicates=${verdict.duplicates.length} regressions=${verdict.regressions.length} ` +
          `reordered=${verdict.reordered.length} badErrorCodes=${verdict.badErrorCodes.length} phantoms=${verdict.phantoms.length} ` +
          `refusedForGood=${verdict.refusedForGood.length}.`,
        `pings: ${pings.length}, slowest outside faults ${worstCalmPing.toFixed(0)} ms`,
        ...internalSummary,
        hubLogSummary,
        'faults:',
        ...faultLines,
      ].join('\n'),
    );

    const first = (list: string[]) => list.slice(0, 10);
    // (1) Every acknowledged message is stored exactly once, with one delivery per recipient.
    expect.soft(first(verdict.lost), `${verdict.lost.length} acknowledged messages lost or mangled`).toEqual([]);
    // (2) No messageId is stored twice.
    expect.soft(first(verdict.duplicates), `${verdict.duplicates.length} messageIds stored twice`).toEqual([]);
    // (3) Receipts never move backwards (nor behind what mail.db holds at the end).
    expect.soft(first(verdict.regressions), `${verdict.regressions.length} receipt regressions`).toEqual([]);
    // (4) Per (sender, recipient), sequence numbers follow the order of first acceptance.
    expect.soft(first(verdict.reordered), `${verdict.reordered.length} ordering violations`).toEqual([]);
    // (5) The hub answers after the run, stops cleanly on SIGTERM, and answers a hello after a clean restart.
    expect.soft(aliveAfterRun, 'the hub answers a hello after the run (quiet period)').toBe(true);
    expect.soft(firstStop.clean && firstStop.result?.status === 0, `the hub exits 0 on SIGTERM after the run: ${JSON.stringify({ clean: firstStop.clean, status: firstStop.result?.status, signal: firstStop.result?.signal })}`).toBe(true);
    expect.soft(finalHello, 'a hello after the clean restart').toMatchObject({ kind: 'ok', result: { session: 'jepsen-final' } });
    expect.soft(secondStop.clean && secondStop.result?.status === 0, 'the restarted hub exits 0 on SIGTERM').toBe(true);
    expect.soft(
      faults.filter((f) => f.recoveredAt === null).map((f) => `${f.kind} at ${f.at.toFixed(0)} ms: ${f.detail}`),
      'the hub answers again after every healed fault',
    ).toEqual([]);
    expect.soft(hub.unexpectedExits, 'the hub never exited on its own').toEqual([]);
    expect.soft(faults.filter((f) => f.failed !== null).map((f) => `${f.kind} at ${f.at.toFixed(0)} ms: ${f.failed}`), 'every fault was injected and healed').toEqual([]);
    // (6) Every error answer carries a documented code.
    expect.soft(first(verdict.badErrorCodes), `${verdict.badErrorCodes.length} error answers without a documented code`).toEqual([]);
    // (6b) ... and a specific one: each fault injected here has its own code (DISK_FULL, DB_LOCKED,
    // a timeout of ours), so an INTERNAL ("the hub failed to handle this request") is a hub bug.
    expect.soft(internalSummary, 'no INTERNAL answers').toEqual([]);
    // (7) A foreign lock or a full disk never blocks the hub's event loop: it keeps answering.
    expect.soft(stalls, `the hub answers a ping within ${FREEZE_LIMIT_MS} ms while mail.db is locked or the disk full`).toEqual([]);
    // Also: nothing stored that nobody sent or that was only ever refused, and no valid send refused for good.
    expect.soft(first(verdict.phantoms), `${verdict.phantoms.length} phantom messages`).toEqual([]);
    expect.soft(first(verdict.refusedForGood), `${verdict.refusedForGood.length} valid sends refused permanently`).toEqual([]);
    // The run did real work and ran its whole schedule (a vacuous run proves nothing).
    expect(s.accepted).toBeGreaterThan(100);
    expect(faults.length).toBe(schedule.length);
  }, 90_000);
});
