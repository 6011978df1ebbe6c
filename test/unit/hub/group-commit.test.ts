// GroupCommitter: sends of one turn share one commit, and each request is settled with what its
// caller makes of the outcome (`finish`, or its continuation), in the commit's own loop. A real
// mail.db (WAL, FULL) and a second connection that sees what is on disk.
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GroupCommitter } from '../../../src/hub/group-commit.js';
import { StoreGate } from '../../../src/hub/store-gate.js';
import { swbError } from '../../../src/protocol/error-codes.js';
import { MailStore, type AcceptOutcome, type AcceptRequest } from '../../../src/store/mail-store.js';
import { systemClock } from '../../../src/util/clock.js';

let dir: string;
let store: MailStore;
let gate: StoreGate;
let committed: Array<{ request: AcceptRequest; outcome: AcceptOutcome }>;
let committer: GroupCommitter;

const NONE: ReadonlySet<string> = new Set();
const request = (messageId: string, text = `text of ${messageId}`): AcceptRequest => ({
  sender: 'alice',
  to: ['bob'],
  requestedTo: ['bob'],
  text,
  kind: 'msg',
  replyTo: null,
  messageId,
  live: NONE,
});
const onDisk = (): string[] => {
  const other = new Database(join(dir, 'mail.db'), { readonly: true });
  try {
    return (other.prepare('SELECT message_id FROM messages ORDER BY id').all() as Array<{ message_id: string }>).map((r) => r.message_id);
  } finally {
    other.close();
  }
};
const settled = <T>(p: Promise<T>) => p.then((value) => ({ ok: true as const, value }), (error: unknown) => ({ ok: false as const, error }));

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'swb-group-commit-'));
  store = MailStore.open(join(dir, 'mail.db'), { maxUnread: 0 });
  store.rememberHandle('alice', 'participant');
  store.rememberHandle('bob', 'participant');
  gate = new StoreGate(200, systemClock, store.db, () => store.resyncCaches());
  committed = [];
  committer = new GroupCommitter(
    store,
    gate,
    (req, outcome) => committed.push({ request: req, outcome }),
    () => swbError('INTERNAL', 'commit failed'),
  );
});

afterEach(() => {
  store.db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('GroupCommitter', () => {
  it('commits the sends of one turn together and settles each with its own finish, after the fan-out saw it', async () => {
    const seenByFinish: number[] = [];
    const finish = (outcome: AcceptOutcome) => {
      seenByFinish.push(committed.length);
      return outcome.ok ? outcome.result.messageId : outcome.error.code;
    };
    const a = committer.submit(request('m1'), finish);
    const b = committer.submit(request('m2'), finish);
    expect(onDisk()).toEqual([]); // nothing before the turn ends
    expect(await Promise.all([a, b])).toEqual(['m1', 'm2']);
    expect(onDisk()).toEqual(['m1', 'm2']);
    expect(committer.batches).toBe(1);
    expect(committer.committed).toBe(2);
    // Each request's finish ran after its own fan-out (onCommitted), in request order.
    expect(seenByFinish).toEqual([1, 2]);
  });

  it('a finish that throws fails its own request only: the rest of the batch is answered and everything stays committed', async () => {
    const broken = new Error('a listener of the refusal report threw');
    const a = settled(committer.submit(request('m1'), (o) => o.ok));
    const b = settled(
      committer.submit(request('m2'), () => {
        throw broken;
      }),
    );
    const c = settled(committer.submit(request('m3'), (o) => o.ok));
    expect(await a).toEqual({ ok: true, value: true });
    expect(await b).toEqual({ ok: false, error: broken });
    expect(await c).toEqual({ ok: true, value: true });
    expect(onDisk()).toEqual(['m1', 'm2', 'm3']);
    expect(committed.map((x) => x.request.messageId)).toEqual(['m1', 'm2', 'm3']);
  });

  it('a refusal inside the batch reaches finish as a typed outcome, and the others commit', async () => {
    const a = committer.submit(request('m1'), (o) => (o.ok ? 'ok' : o.error.code));
    const conflict = committer.submit(request('m1', 'another text under the same id'), (o) => (o.ok ? 'ok' : o.error.code));
    const b = committer.submit({ ...request('m2'), to: ['nobody'], requestedTo: ['nobody'] }, (o) => (o.ok ? 'ok' : o.error.code));
    expect(await Promise.all([a, conflict, b])).toEqual(['ok', 'MESSAGE_ID_CONFLICT', 'UNKNOWN_PEER']);
    expect(onDisk()).toEqual(['m1']);
  });

  it("hands each outcome to its continuation in the commit's own turn, with no promise between (issue #33)", async () => {
    // A microtask queued while the fan-out runs: a promise's reaction would run after it.
    let microtaskRan = false;
    committer = new GroupCommitter(
      store,
      gate,
      () => queueMicrotask(() => (microtaskRan = true)),
      () => swbError('INTERNAL', 'commit failed'),
    );
    const heard: Array<{ id: string; afterMicrotask: boolean }> = [];
    const done = new Promise<void>((resolve) => {
      for (const id of ['m1', 'm2']) {
        committer.submitThen(request(id), {
          resume: (o) => {
            heard.push({ id: o.ok ? o.result.messageId : o.error.code, afterMicrotask: microtaskRan });
            if (heard.length === 2) resolve();
          },
          fail: (err) => {
            throw err;
          },
        });
      }
    });
    await done;
    expect(heard).toEqual([
      { id: 'm1', afterMicrotask: false },
      { id: 'm2', afterMicrotask: false },
    ]);
    expect(onDisk()).toEqual(['m1', 'm2']);
  });

  it('a continuation whose resume throws hears of it through its fail, and the rest of the batch is answered', async () => {
    const failed: unknown[] = [];
    const broken = new Error('writing the answer threw');
    const resumed: string[] = [];
    const done = new Promise<void>((resolve) => {
      committer.submitThen(request('m1'), {
        resume: () => {
          throw broken;
        },
        fail: (err) => failed.push(err),
      });
      committer.submitThen(request('m2'), {
        resume: (o) => {
          resumed.push(o.ok ? o.result.messageId : o.error.code);
          resolve();
        },
        fail: (err) => failed.push(err),
      });
    });
    await done;
    expect(failed).toEqual([broken]);
    expect(resumed).toEqual(['m2']);
    expect(onDisk()).toEqual(['m1', 'm2']);
  });
});
