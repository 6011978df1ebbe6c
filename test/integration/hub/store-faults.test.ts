// Fault injection at the store (issue #9): every store path of the hub, under every failure
// SQLite reports (SQLITE_FULL, SQLITE_BUSY, SQLITE_IOERR_WRITE, SQLITE_CORRUPT), answered with
// the typed code DESIGN §5 promises (DISK_FULL, DB_LOCKED after the store gate's wait, INTERNAL
// naming mail.db, RECOVERY_REQUIRED with a copy set aside), never a stack trace. Once the fault
// clears the same hub answers a fresh hello and a normal send, and nothing was half-stored: the
// file, the receipts and the hub's cached counters are as before the failed call, and a retry of
// it takes effect exactly once. The faults come from test/helpers/faulty-database.ts: a proxy
// around the real better-sqlite3 handle that throws SQLite's own error type instead of running a
// statement (or at the end of a transaction, after its statements ran, like a failed COMMIT).
import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { Hub } from '../../../src/hub/hub.js';
import type { RuntimePaths } from '../../../src/hub/runtime-paths.js';
import { ERROR_CODES, rpcNumberFor, type ErrorCode, type SwbErrorValue } from '../../../src/protocol/error-codes.js';
import { MailStore } from '../../../src/store/mail-store.js';
import { openDatabase } from '../../../src/store/open-database.js';
import { deferCleanup, runCleanups } from '../../helpers/cleanup.js';
import { FaultInjector, type FaultCode } from '../../helpers/faulty-database.js';
import { readOperatorToken } from '../../helpers/hub-harness.js';
import { RawClient, type RawResponse } from '../../helpers/raw-client.js';
import { createTempHome } from '../../helpers/temp-home.js';
import { waitUntil } from '../../helpers/wait-until.js';

afterEach(runCleanups);

/** The store gate's wait for a lock (limits.storeLockWaitMs): short, so DB_LOCKED comes quickly. */
const LOCK_WAIT_MS = 200;
const HOUR = 3600_000;

const CODES: ReadonlyArray<{ code: FaultCode; expected: ErrorCode }> = [
  { code: 'SQLITE_FULL', expected: 'DISK_FULL' },
  { code: 'SQLITE_BUSY', expected: 'DB_LOCKED' },
  { code: 'SQLITE_IOERR_WRITE', expected: 'INTERNAL' },
  { code: 'SQLITE_CORRUPT', expected: 'RECOVERY_REQUIRED' },
];

function expectedFor(code: FaultCode): ErrorCode {
  if (code.startsWith('SQLITE_IOERR')) return 'INTERNAL';
  return CODES.find((c) => c.code === code)!.expected;
}

/** What a store path answered: over JSON-RPC, as an Intercom envelope, or (background work) in the hub's log. */
type Answer = { ok: true; result: any } | { ok: false; error: SwbErrorValue; wire: 'rpc' | 'intercom' | 'log' };
type Success = Extract<Answer, { ok: true }>;

interface Ctx {
  hub: Hub;
  paths: RuntimePaths;
  faults: FaultInjector;
  log: string[];
  /** Added to Date.now() for the hub's clock (the sweep test moves it on). */
  clock: { offset: number };
  /** Every storeFailure the hub computed (background work reports only this way). */
  failures: SwbErrorValue[];
  /** Every publishChanges call (a sweep that succeeded makes one). */
  published: number;
  clients: RawClient[];
  alice: RawClient;
  bob: RawClient;
  operator: RawClient;
  /** alice → bob, accepted before any fault. */
  m0: number;
  /** Per-path scratch (the connection whose hello failed, ...). */
  state: Record<string, any>;
  open(): Promise<RawClient>;
  connect(hello: Record<string, unknown>): Promise<RawClient>;
}

async function startFaultyHub(): Promise<Ctx> {
  const home = createTempHome();
  const faults = new FaultInjector();
  const log: string[] = [];
  const clock = { offset: 0 };
  const hub = await Hub.start({
    paths: home.paths,
    limits: { storeLockWaitMs: LOCK_WAIT_MS, expiryHours: 1 },
    now: () => Date.now() + clock.offset,
    log: (line) => log.push(line),
    openStore: (file, o) => new MailStore(faults.wrap(openDatabase(file)), o),
  });
  deferCleanup('faulty hub', () => hub.stop());
  const failures: SwbErrorValue[] = [];
  const storeFailure = hub.core.mail.storeFailure.bind(hub.core.mail);
  hub.core.mail.storeFailure = (err, context) => {
    const error = storeFailure(err, context);
    failures.push(error);
    return error;
  };
  const publishChanges = hub.core.fanOut.publishChanges.bind(hub.core.fanOut);
  const ctx = { hub, paths: home.paths, faults, log, clock, failures, published: 0, clients: [] as RawClient[], state: {} } as Ctx;
  hub.core.fanOut.publishChanges = (changes) => {
    ctx.published += 1;
    publishChanges(changes);
  };
  ctx.open = async () => {
    const c = await RawClient.connect(home.paths.socketPath);
    ctx.clients.push(c);
    return c;
  };
  ctx.connect = async (hello) => {
    const c = await ctx.open();
    const r = await c.hello(hello);
    if (!r.result) throw new Error(`hello ${JSON.stringify(hello)} was refused: ${JSON.stringify(r.error)}`);
    return c;
  };
  ctx.alice = await ctx.connect({ session: 'alice' });
  ctx.bob = await ctx.connect({ session: 'bob' });
  ctx.operator = await ctx.connect({ session: 'operator', token: readOperatorToken(home.paths) });
  ctx.m0 = (await ok(ctx.alice, 'mail.send', { to: ['bob'], text: 'before the fault', messageId: 'm0' })).id;
  return ctx;
}

/** A JSON-RPC answer, checked for shape: a result, or an error with a known code and its documented number. */
function typedRpc(r: RawResponse): Answer {
  if (r.error === undefined) return { ok: true, result: r.result };
  const code = r.error.data?.code;
  expect(ERROR_CODES, `untyped error ${JSON.stringify(r.error)}`).toContain(code);
  expect(r.error.code).toBe(rpcNumberFor(code as ErrorCode));
  const details = r.error.data?.details;
  return { ok: false, wire: 'rpc', error: { code: code as ErrorCode, message: r.error.message, ...(details ? { details } : {}) } };
}

async function call(c: RawClient, method: string, params: Record<string, unknown> = {}): Promise<Answer> {
  return typedRpc(await c.request(method, params));
}

async function ok(c: RawClient, method: string, params: Record<string, unknown> = {}): Promise<any> {
  const a = await call(c, method, params);
  if (!a.ok) throw new Error(`${method} failed: ${a.error.code}: ${a.error.message}`);
  return a.result;
}

/** An Intercom register, answered by welcome or error. */
async function register(ctx: Ctx, session: string): Promise<{ conn: RawClient; answer: Answer }> {
  const conn = await ctx.open();
  await conn.sendObject({ type: 'register', from_session: session });
  const env = await conn.waitFor((j) => j.type === 'welcome' || j.type === 'error');
  if (env.type === 'welcome') return { conn, answer: { ok: true, result: env.payload } };
  expect(ERROR_CODES, `untyped Intercom error ${JSON.stringify(env)}`).toContain(env.payload?.code);
  return { conn, answer: { ok: false, wire: 'intercom', error: { code: env.payload.code, message: env.payload.message } } };
}

const STACK = /\n|\bat \S+ \(|\.[cm]?[jt]s:\d+/;

/** The answer is the typed store error for `code`: the right ErrorCode, a sentence naming mail.db, no stack. */
function expectStoreError(answer: Answer, code: FaultCode, ctx: Ctx): SwbErrorValue {
  expect(answer.ok, `expected ${expectedFor(code)}, got ${JSON.stringify(answer)}`).toBe(false);
  const { error, wire } = answer as Extract<Answer, { ok: false }>;
  const db = ctx.paths.dbFile;
  expect(error.code).toBe(expectedFor(code));
  expect(error.message).not.toMatch(STACK);
  expect(error.message).toContain(db);
  // Intercom error envelopes carry {code, message} only; JSON-RPC and the log have the details.
  if (wire !== 'intercom') expect(error.details).toMatchObject({ path: db });
  if (code === 'SQLITE_FULL') expect(error.message).toMatch(/is full \(SQLITE_FULL\)/);
  if (code === 'SQLITE_BUSY') expect(error.message).toMatch(/is locked/);
  if (code.startsWith('SQLITE_IOERR')) expect(error.message).toContain(`(${code}: disk I/O error)`);
  if (code === 'SQLITE_CORRUPT') {
    const copy = wire === 'intercom' ? /A copy was set aside at (.+?)\. Stop swb/.exec(error.message)?.[1] : error.details?.copy;
    expect(copy, error.message).toEqual(expect.stringContaining(`${db}.damaged-`));
    expect(existsSync(copy as string)).toBe(true);
  }
  return error;
}

/** Everything of mail.db a failed call might have half-written, read through a separate connection. */
function snapshot(paths: RuntimePaths) {
  const db = new Database(paths.dbFile, { readonly: true, fileMustExist: true });
  try {
    return {
      handles: db.prepare('SELECT * FROM handles ORDER BY handle').all(),
      messages: db.prepare('SELECT * FROM messages ORDER BY id').all(),
      deliveries: db.prepare('SELECT * FROM deliveries ORDER BY message, recipient').all(),
      wakes: db.prepare('SELECT * FROM wake_events ORDER BY id').all(),
    };
  } finally {
    db.close();
  }
}

function count(paths: RuntimePaths, sql: string, ...args: unknown[]): number {
  const db = new Database(paths.dbFile, { readonly: true, fileMustExist: true });
  try {
    return (db.prepare(sql).get(...args) as { n: number }).n;
  } finally {
    db.close();
  }
}

/** What the hub itself says about the state a failed call must leave alone: its counters and m0's receipt. */
async function hubView(ctx: Ctx) {
  return {
    peers: (await ok(ctx.alice, 'peers.list', {})).peers,
    receipt: await ok(ctx.alice, 'receipt.get', { id: ctx.m0 }),
  };
}

async function m0StateFor(ctx: Ctx, to: string): Promise<any> {
  return (await ok(ctx.alice, 'receipt.get', { id: ctx.m0 })).recipients.find((r: { to: string }) => r.to === to);
}

let probes = 0;
/** The hub is up and serving: a fresh connection says hello as a new handle and sends. */
async function expectHubServes(ctx: Ctx): Promise<void> {
  const n = ++probes;
  const probe = await ctx.connect({ session: `probe-${n}` });
  const sent = await ok(probe, 'mail.send', { to: ['operator'], text: 'the hub still works', messageId: `probe-${n}` });
  expect(sent).toMatchObject({ duplicate: false, recipients: [{ to: 'operator' }] });
}

/** No line any client received was an untyped error, and the hub logged no internal error (with its stack). */
function expectEveryAnswerTyped(ctx: Ctx): void {
  for (const c of ctx.clients) {
    for (const line of c.lines) {
      expect(line.json, `not JSON: ${line.text}`).toBeDefined();
      if (line.json.error) expect(ERROR_CODES, line.text).toContain(line.json.error.data?.code);
      if (line.json.type === 'error') expect(ERROR_CODES, line.text).toContain(line.json.payload?.code);
      expect(line.text).not.toMatch(/\\n\s+at /);
    }
  }
  expect(ctx.log.filter((l) => l.startsWith('internal error'))).toEqual([]);
}

interface StorePath {
  name: string;
  /** It writes (failWrites reaches it). */
  writes: boolean;
  /** Its writes run in a transaction (a failed COMMIT reaches it). */
  transaction: boolean;
  arrange?(ctx: Ctx): Promise<void>;
  /** The call itself; run under the fault, then again once it is cleared. */
  act(ctx: Ctx): Promise<Answer>;
  /** Right after the failed call, the fault still armed. */
  afterFailure?(ctx: Ctx, code: FaultCode): Promise<void>;
  /** The call succeeded (`answer`): its effect is there, exactly once. */
  effect(ctx: Ctx, answer: Success): Promise<void>;
}

/** Stored once, and a retry with the same messageId is answered as that duplicate. */
async function expectStoredOnce(ctx: Ctx, act: () => Promise<Answer>, first: Success, messageId: string): Promise<void> {
  expect(first.result).toMatchObject({ messageId, duplicate: false });
  const retry = await act();
  expect(retry).toMatchObject({ ok: true, result: { id: first.result.id, messageId, duplicate: true } });
  expect(count(ctx.paths, 'SELECT count(*) AS n FROM messages WHERE message_id = ?', messageId)).toBe(1);
  expect(count(ctx.paths, 'SELECT count(*) AS n FROM deliveries WHERE message = ?', first.result.id)).toBe(first.result.recipients.length);
}

const PATHS: StorePath[] = [
  {
    name: 'hello (JSON-RPC)',
    writes: true,
    transaction: false,
    async act(ctx) {
      const conn = await ctx.open();
      ctx.state.failedConn ??= conn;
      return typedRpc(await conn.hello({ session: 'newbie' }));
    },
    async afterFailure(ctx, code) {
      // Not bound: the connection may not act as newbie, and newbie is free for another connection.
      expect(await call(ctx.state.failedConn, 'mail.send', { to: ['bob'], text: 'who am I?' })).toMatchObject({
        ok: false,
        error: { code: 'UNAUTHENTICATED' },
      });
      const other = await ctx.open();
      expectStoreError(typedRpc(await other.hello({ session: 'newbie' })), code, ctx);
    },
    async effect(ctx, answer) {
      expect(answer.result).toMatchObject({ session: 'newbie', role: 'participant', lastSeq: 0 });
      const failed: RawClient | undefined = ctx.state.failedConn;
      if (failed && failed !== ctx.clients.at(-1)) {
        // The connection whose hello failed is still open and may try again, as someone else.
        expect(failed.isClosed).toBe(false);
        expect(typedRpc(await failed.hello({ session: 'newbie-again' }))).toMatchObject({ ok: true, result: { session: 'newbie-again' } });
      }
      expect((await ok(ctx.alice, 'mail.send', { to: ['newbie'], text: 'welcome' })).recipients).toMatchObject([{ to: 'newbie', seq: 1 }]);
    },
  },
  {
    name: 'Intercom register',
    writes: true,
    transaction: false,
    async act(ctx) {
      const { conn, answer } = await register(ctx, 'newbie');
      ctx.state.failedConn ??= conn;
      return answer;
    },
    async afterFailure(ctx, code) {
      const failed: RawClient = ctx.state.failedConn;
      await failed.sendObject({ type: 'chat', to_session: 'bob', payload: { text: 'who am I?' } });
      expect(await failed.waitFor((j) => j.type === 'error' && j.payload?.code === 'UNAUTHENTICATED')).toBeDefined();
      expectStoreError((await register(ctx, 'newbie')).answer, code, ctx);
    },
    async effect(ctx, answer) {
      expect(answer.result).toMatchObject({ session: 'newbie' });
      const failed: RawClient | undefined = ctx.state.failedConn;
      if (failed && failed !== ctx.clients.at(-1)) expect(failed.isClosed).toBe(false);
      expect((await ok(ctx.alice, 'mail.send', { to: ['newbie'], text: 'welcome' })).recipients).toMatchObject([{ to: 'newbie', seq: 1 }]);
    },
  },
  {
    name: 'mail.send',
    writes: true,
    transaction: true,
    act: (ctx) => call(ctx.alice, 'mail.send', { to: ['bob'], text: 'sent under a fault', messageId: 'faulted-send' }),
    async effect(ctx, answer) {
      // seq 2: the failed attempts did not use up a sequence number (the cached counter held).
      expect(answer.result.recipients).toEqual([{ to: 'bob', seq: 2, state: 'accepted' }]);
      await expectStoredOnce(ctx, () => this.act(ctx), answer, 'faulted-send');
    },
  },
  {
    name: 'mail.send @all',
    writes: true,
    transaction: true,
    async arrange(ctx) {
      ctx.state.carol = await ctx.connect({ session: 'carol' });
    },
    act: (ctx) => call(ctx.alice, 'mail.send', { to: ['all'], text: 'to everyone, under a fault', messageId: 'faulted-all' }),
    async effect(ctx, answer) {
      const to = (answer.result.recipients as Array<{ to: string; seq: number }>).map((r) => [r.to, r.seq]);
      expect(to).toEqual(expect.arrayContaining([['bob', 2], ['carol', 1]]));
      await expectStoredOnce(ctx, () => this.act(ctx), answer, 'faulted-all');
    },
  },
  {
    name: 'reply (mail.send with replyTo)',
    writes: true,
    transaction: true,
    act: (ctx) => call(ctx.bob, 'mail.send', { to: ['alice'], text: 're: before the fault', replyTo: ctx.m0, messageId: 'faulted-reply' }),
    async effect(ctx, answer) {
      expect(answer.result.recipients).toEqual([{ to: 'alice', seq: 1, state: 'accepted' }]);
      expect(await m0StateFor(ctx, 'bob')).toMatchObject({ state: 'replied', repliedAt: expect.any(Number) });
      expect((await ok(ctx.alice, 'peers.list', {})).peers).toContainEqual(expect.objectContaining({ handle: 'bob', unread: 0 }));
      await expectStoredOnce(ctx, () => this.act(ctx), answer, 'faulted-reply');
    },
  },
  {
    name: 'mail.list',
    writes: true,
    transaction: true,
    act: (ctx) => call(ctx.bob, 'mail.list', {}),
    async effect(ctx, answer) {
      expect(answer.result.messages).toMatchObject([{ id: ctx.m0, state: 'delivered' }]);
      expect(await m0StateFor(ctx, 'bob')).toMatchObject({ state: 'delivered' });
    },
  },
  {
    name: 'mail.read',
    writes: true,
    transaction: true,
    act: (ctx) => call(ctx.bob, 'mail.read', { ids: [ctx.m0] }),
    async effect(ctx, answer) {
      expect(answer.result).toEqual({ updated: 1, notFound: [] });
      expect(await m0StateFor(ctx, 'bob')).toMatchObject({ state: 'read' });
      expect((await ok(ctx.alice, 'peers.list', {})).peers).toContainEqual(expect.objectContaining({ handle: 'bob', unread: 0 }));
    },
  },
  {
    name: 'mail.wait',
    writes: true,
    transaction: true,
    act: (ctx) => call(ctx.bob, 'mail.wait', { timeoutMs: 2000 }),
    async effect(ctx, answer) {
      expect(answer.result).toMatchObject({ timedOut: false, messages: [{ id: ctx.m0, state: 'delivered' }] });
      expect(await m0StateFor(ctx, 'bob')).toMatchObject({ state: 'delivered' });
    },
  },
  {
    name: 'mail.woken (operator)',
    writes: true,
    transaction: true,
    act: (ctx) => call(ctx.operator, 'mail.woken', { recipient: 'bob', ids: [ctx.m0] }),
    async effect(ctx, answer) {
      expect(answer.result).toEqual({ recorded: 1 });
      expect(await m0StateFor(ctx, 'bob')).toMatchObject({ wokenAt: expect.any(Number) });
      expect(count(ctx.paths, 'SELECT count(*) AS n FROM wake_events WHERE message = ?', ctx.m0)).toBe(1);
    },
  },
  {
    name: 'mail.history (operator)',
    writes: false,
    transaction: false,
    act: (ctx) => call(ctx.operator, 'mail.history', {}),
    async effect(ctx, answer) {
      expect(answer.result.messages).toContainEqual(expect.objectContaining({ id: ctx.m0, text: 'before the fault' }));
    },
  },
  {
    name: 'receipt.get',
    writes: false,
    transaction: false,
    act: (ctx) => call(ctx.alice, 'receipt.get', { id: ctx.m0 }),
    async effect(ctx, answer) {
      expect(answer.result).toMatchObject({ id: ctx.m0, from: 'alice', recipients: [{ to: 'bob', seq: 1, state: 'accepted' }] });
    },
  },
  {
    name: 'session.registerRow (operator)',
    writes: true,
    transaction: false,
    act: (ctx) => call(ctx.operator, 'session.registerRow', { handle: 'row1' }),
    async effect(ctx, answer) {
      expect(answer.result).toMatchObject({ handle: 'row1', token: expect.any(String) });
      // Registered means remembered: mail to the row is kept while it is offline.
      expect((await ok(ctx.alice, 'mail.send', { to: ['row1'], text: 'for the row' })).recipients).toMatchObject([{ to: 'row1', seq: 1 }]);
      expect(await call(await ctx.open(), 'hello', { version: 1, session: 'row1' })).toMatchObject({ ok: false, error: { code: 'SESSION_COLLISION' } });
      expect(typedRpc(await (await ctx.open()).hello({ session: 'row1', token: answer.result.token }))).toMatchObject({ ok: true });
    },
  },
  {
    name: 'session.release (operator)',
    writes: true,
    transaction: false,
    async arrange(ctx) {
      await ok(ctx.operator, 'session.registerRow', { handle: 'row1' });
      await waitUntil(async () => (await ok(ctx.alice, 'peers.list', {})).peers.some((p: { handle: string; role: string }) => p.handle === 'row1' && p.role === 'row'), {
        what: 'row1 to be remembered as a row',
      });
    },
    act: (ctx) => call(ctx.operator, 'session.release', { handle: 'row1' }),
    async effect(ctx, answer) {
      expect(answer.result).toEqual({ released: true });
      expect(typedRpc(await (await ctx.open()).hello({ session: 'row1' }))).toMatchObject({ ok: true, result: { role: 'participant' } });
    },
  },
  {
    name: 'hourly sweep (expiry)',
    writes: true,
    transaction: true,
    async arrange(ctx) {
      ctx.clock.offset += 2 * HOUR; // m0 is unread and older than expiryHours (1)
    },
    async act(ctx) {
      const failed = ctx.failures.length;
      const published = ctx.published;
      ctx.hub.sweep();
      return waitUntil(
        (): Answer | null => {
          const error = ctx.failures[failed];
          if (error) {
            // Background work has nobody to answer: the typed sentence goes to the hub's log.
            expect(ctx.log).toContain(`sweep failed: ${error.message}`);
            return { ok: false, wire: 'log', error };
          }
          return ctx.published > published ? { ok: true, result: null } : null;
        },
        { what: 'the sweep to finish' },
      );
    },
    async effect(ctx) {
      expect(await m0StateFor(ctx, 'bob')).toMatchObject({ state: 'expired' });
    },
  },
];

const WRITE_PATHS = PATHS.filter((p) => p.writes);
const TRANSACTION_PATHS = PATHS.filter((p) => p.transaction);

/**
 * Arms `arm` around one call of `path` and checks it failed typed with `code`, changed nothing
 * (file, receipts, cached counters), and that the hub serves and the call works once cleared.
 */
async function failThenRecover(path: StorePath, code: FaultCode, arm: (faults: FaultInjector) => void): Promise<void> {
  const ctx = await startFaultyHub();
  await path.arrange?.(ctx);
  const before = { db: snapshot(ctx.paths), view: await hubView(ctx) };
  const injected = ctx.faults.injected.length;
  arm(ctx.faults);
  const started = Date.now();
  const answer = await path.act(ctx);
  const elapsed = Date.now() - started;
  expect(ctx.faults.injected.length, 'the fault never reached the store path').toBeGreaterThan(injected);
  expectStoreError(answer, code, ctx);
  if (code === 'SQLITE_BUSY') expect(elapsed).toBeGreaterThanOrEqual(LOCK_WAIT_MS);
  await path.afterFailure?.(ctx, code);
  ctx.faults.clear();

  expect(snapshot(ctx.paths)).toEqual(before.db);
  expect(await hubView(ctx)).toEqual(before.view);
  await expectHubServes(ctx);
  const again = await path.act(ctx);
  expect(again, JSON.stringify(again)).toMatchObject({ ok: true });
  await path.effect(ctx, again as Success);
  expectEveryAnswerTyped(ctx);
}

describe('store faults: every store path, every failure, answered typed and nothing half-stored', () => {
  describe.each(PATHS)('$name', (path) => {
    it.each(CODES)('$code until cleared → $expected', ({ code }) => failThenRecover(path, code, (f) => f.failAll(code)));
  });

  describe('only writes fail (reads still work): a full disk', () => {
    it.each(WRITE_PATHS)('$name → DISK_FULL', (path) => failThenRecover(path, 'SQLITE_FULL', (f) => f.failWrites('SQLITE_FULL')));
  });

  describe('the COMMIT fails after every statement of the transaction ran (a failed fsync)', () => {
    it.each(TRANSACTION_PATHS)('$name → INTERNAL, rolled back', (path) =>
      failThenRecover(path, 'SQLITE_IOERR_FSYNC', (f) => f.failCommits('SQLITE_IOERR_FSYNC')),
    );
  });

  describe('fail the Nth execution, for every N the call reaches', () => {
    it.each(WRITE_PATHS)('$name', async (path) => {
      const ctx = await startFaultyHub();
      await path.arrange?.(ctx);
      const before = { db: snapshot(ctx.paths), view: await hubView(ctx) };
      let answer: Answer;
      for (let n = 1; ; n++) {
        ctx.faults.failNth(n, 'SQLITE_IOERR_WRITE');
        answer = await path.act(ctx);
        // Success: the call needed fewer than n executions, or the nth was a read after its
        // commit that it may survive (the effect check below says whether it did, whole).
        if (answer.ok) break;
        expectStoreError(answer, 'SQLITE_IOERR_WRITE', ctx);
        expect(snapshot(ctx.paths), `after failing execution ${n}: ${ctx.faults.injected.at(-1)!.sql}`).toEqual(before.db);
        expect(await hubView(ctx)).toEqual(before.view);
        expect(n, 'a call that never ends').toBeLessThan(50);
      }
      ctx.faults.clear();
      expect(ctx.faults.injected.length, 'at least one execution failed').toBeGreaterThan(0);
      expect(answer, JSON.stringify(answer)).toMatchObject({ ok: true });
      await path.effect(ctx, answer as Success);
      await expectHubServes(ctx);
      expectEveryAnswerTyped(ctx);
    });
  });

  describe('a transient SQLITE_BUSY (the next 2 executions) is retried by the store gate, transparently', () => {
    it.each(PATHS)('$name', async (path) => {
      const ctx = await startFaultyHub();
      await path.arrange?.(ctx);
      ctx.faults.failNext(2, 'SQLITE_BUSY');
      const started = Date.now();
      const answer = await path.act(ctx);
      const elapsed = Date.now() - started;
      expect(answer, JSON.stringify(answer)).toMatchObject({ ok: true });
      await waitUntil(() => !ctx.faults.armed, { what: 'both injected SQLITE_BUSY to be used up' });
      expect(ctx.faults.injected.map((f) => f.code)).toEqual(['SQLITE_BUSY', 'SQLITE_BUSY']);
      expect(elapsed).toBeLessThan(LOCK_WAIT_MS);
      await path.effect(ctx, answer as Success);
      expect(ctx.failures).toEqual([]);
      expectEveryAnswerTyped(ctx);
    });
  });

  describe('a failure after the part that did commit', () => {
    it("a transient SQLITE_BUSY on the sweep's cache reload (after its commit) leaves every handle known", async () => {
      const ctx = await startFaultyHub();
      await ok(ctx.operator, 'mail.subscribe', { scope: 'all' });
      ctx.clock.offset += 2 * HOUR;
      // MailStore.sweep commits the expiry, then reloads its caches from the handles table: that
      // read, outside the committed transaction, is the one to fail (a sweep that needs no such
      // read passes trivially). The store gate retries the sweep, so the answer is a success.
      ctx.faults.failWhere((sql, _method, inTransaction) => !inTransaction && / FROM handles$/.test(sql), 'SQLITE_BUSY');
      const sweep = PATHS.find((p) => p.name === 'hourly sweep (expiry)')!;
      expect(await sweep.act(ctx)).toMatchObject({ ok: true });
      ctx.faults.clear();
      expect(await m0StateFor(ctx, 'bob')).toMatchObject({ state: 'expired' });
      // The hub still knows who is who, and the expiry it committed was told.
      const peers = (await ok(ctx.alice, 'peers.list', {})).peers.map((p: { handle: string }) => p.handle);
      expect(peers).toEqual(expect.arrayContaining(['alice', 'bob', 'operator']));
      expect(await call(ctx.alice, 'mail.send', { to: ['bob'], text: 'after the sweep' })).toMatchObject({ ok: true });
      await ctx.operator.waitFor((j) => j.method === 'receipt.changed' && j.params.id === ctx.m0 && j.params.state === 'expired', { timeoutMs: 1000 });
    });

    it("a failed read after a reply's commit still tells the original sender it was replied", async () => {
      const ctx = await startFaultyHub();
      await ok(ctx.alice, 'mail.subscribe', {});
      // The hub looks up who sent the parent after the reply's commit: fail reads of messages
      // outside a transaction (a hub that needs no such read passes trivially).
      ctx.faults.failWhere((sql, _method, inTransaction) => !inTransaction && sql.startsWith('SELECT * FROM messages WHERE id ='), 'SQLITE_IOERR_READ');
      const reply = await call(ctx.bob, 'mail.send', { to: ['alice'], text: 're: before the fault', replyTo: ctx.m0 });
      expect(reply).toMatchObject({ ok: true, result: { duplicate: false } });
      ctx.faults.clear();
      expect(await m0StateFor(ctx, 'bob')).toMatchObject({ state: 'replied' });
      await ctx.alice.waitFor((j) => j.method === 'receipt.changed' && j.params.id === ctx.m0 && j.params.state === 'replied', { timeoutMs: 1000 });
    });

    it('a release whose store write fails changes nothing: the row keeps its token', async () => {
      const ctx = await startFaultyHub();
      const { token } = await ok(ctx.operator, 'session.registerRow', { handle: 'row1' });
      await ctx.connect({ session: 'row1', token });
      ctx.faults.failAll('SQLITE_FULL');
      expectStoreError(await call(ctx.operator, 'session.release', { handle: 'row1' }), 'SQLITE_FULL', ctx);
      ctx.faults.clear();
      // "Nothing was changed", the answer says: so the row's token still proves the row.
      expect(typedRpc(await (await ctx.open()).hello({ session: 'row1', token }))).toMatchObject({ ok: true, result: { role: 'row' } });
    });
  });
});
