// Another process's lock on mail.db (issue #9 item 6): SQLite's busy wait runs on the event loop,
// so the hub keeps it to a few ms and queues store calls behind one probe. While the lock is held,
// clients that need no store are answered at once; a send waits at most storeLockWaitMs, then
// fails DB_LOCKED naming the file and the process that holds it; once the lock goes, it works.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { SendResult } from '../../../src/protocol/methods.js';
import { deferCleanup, runCleanups } from '../../helpers/cleanup.js';
import { connectClient, startTestHub } from '../../helpers/hub-harness.js';
import { runSwb } from '../../helpers/run-swb.js';
import { waitUntil } from '../../helpers/wait-until.js';

afterEach(runCleanups);

const HOLDER = fileURLToPath(new URL('../../helpers/jepsen/hold-db-lock.mjs', import.meta.url));

/** Holds BEGIN EXCLUSIVE on `dbFile` from another process until released. */
async function holdLock(dbFile: string): Promise<{ pid: number; release: () => Promise<void> }> {
  const child = spawn(process.execPath, [HOLDER, dbFile], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  deferCleanup('lock holder', async () => {
    child.kill('SIGKILL');
    await exited;
  });
  await waitUntil(() => out.includes('locked'), { what: 'the other process to hold the lock' });
  return {
    pid: child.pid!,
    release: async () => {
      child.stdin!.end();
      await exited;
    },
  };
}

describe('an external lock on mail.db', () => {
  it('does not freeze the hub; a send fails DB_LOCKED with the holder named, then works once the lock is gone', async () => {
    const { hub, paths, home } = await startTestHub({ limits: { storeLockWaitMs: 600 } });
    const { client } = await connectClient(paths, { session: 'alice' });
    const lock = await holdLock(paths.dbFile);

    // A request that needs no store is answered while the lock is held.
    const t0 = Date.now();
    await expect(client.request('no.such.method')).rejects.toMatchObject({ code: 'UNKNOWN_METHOD' });
    expect(Date.now() - t0).toBeLessThan(200);

    const sending = client.request<SendResult>('mail.send', { to: ['alice'], text: 'while locked', messageId: 'm-1' });
    // Meanwhile another client is served too.
    const t1 = Date.now();
    await expect(client.request('peers.list')).resolves.toMatchObject({ peers: expect.any(Array) });
    expect(Date.now() - t1).toBeLessThan(200);
    await expect(sending).rejects.toMatchObject({
      code: 'DB_LOCKED',
      message: expect.stringMatching(new RegExp(`mail\\.db is locked by another process \\(held by pid ${lock.pid} \\(node\\)\\)`)),
    });

    // The CLI says it within the wait, not after 20 s of its own retries.
    const t2 = Date.now();
    const cli = await runSwb(['send', '--as', 'bob', '@alice', 'cli while locked'], { home, env: { SWB_SOCKET: paths.socketPath } });
    expect(cli.status).toBe(1);
    expect(cli.stderr).toMatch(/^swb send: DB_LOCKED: /);
    expect(Date.now() - t2).toBeLessThan(3000);

    await lock.release();
    const ok = await client.request<SendResult>('mail.send', { to: ['alice'], text: 'while locked', messageId: 'm-1' });
    expect(ok).toMatchObject({ duplicate: false, recipients: [{ to: 'alice', state: 'accepted' }] });
    expect(hub.store.history({}).items.map((m) => m.text)).toEqual(['while locked']);
  });

  it('a lock held for less than the wait is waited out: the send succeeds', async () => {
    const { hub, paths } = await startTestHub({ limits: { storeLockWaitMs: 5000 } });
    const { client } = await connectClient(paths, { session: 'alice' });
    const lock = await holdLock(paths.dbFile);
    const sending = client.request<SendResult>('mail.send', { to: ['alice'], text: 'eventually' });
    await waitUntil(() => hub.gate.closed, { what: 'the send to queue behind the lock' });
    await lock.release();
    await expect(sending).resolves.toMatchObject({ recipients: [{ to: 'alice' }] });
  });
});
