// A client that pipelines requests without reading the answers is throttled, not buffered without
// bound: the hub stops reading it while its answers pile up, and serves everyone else meanwhile.
import { afterEach, describe, expect, it } from 'vitest';
import { runCleanups } from '../../helpers/cleanup.js';
import { connectClient, startTestHub } from '../../helpers/hub-harness.js';
import { openMailDbReadOnly } from '../../helpers/mail-db.js';
import { RawClient } from '../../helpers/raw-client.js';
import { waitUntil } from '../../helpers/wait-until.js';

afterEach(runCleanups);

const SENDS = 5000;

describe('backpressure', () => {
  it('5,000 pipelined sends from a client that does not read neither crash the hub nor grow its memory, and others still get served', async () => {
    const { hub, paths } = await startTestHub({ limits: { ratePerSecond: 0, maxUnread: 0, maxPendingWriteBytes: 64 * 1024 } });
    await connectClient(paths, { session: 'sink' });
    const flood = await RawClient.connect(paths.socketPath);
    await flood.hello({ session: 'flood' });
    flood.pauseReading();
    const rssBefore = process.memoryUsage().rss;

    const frames: Buffer[] = [];
    for (let i = 0; i < SENDS; i++) frames.push(flood.frame('mail.send', { to: ['sink'], text: `flood ${i}` }, `f${i}`).bytes);
    void flood.write(Buffer.concat(frames)).catch(() => undefined);

    // The hub stops reading the flood once its unread answers exceed the pending-write bound.
    const db = openMailDbReadOnly(paths);
    let last = -1;
    let stableSince = Date.now();
    const plateau = await waitUntil(
      () => {
        const n = db.countMessages({ sender: 'flood' });
        if (n !== last) {
          last = n;
          stableSince = Date.now();
          return false;
        }
        return Date.now() - stableSince >= 300 && n;
      },
      { timeoutMs: 10_000, intervalMs: 25, what: 'the flood to stall' },
    );
    expect(plateau).toBeGreaterThan(0);
    expect(plateau).toBeLessThan(SENDS);

    // Meanwhile the hub serves another client.
    const { client: other } = await connectClient(paths, { session: 'other' });
    await expect(other.request('mail.send', { to: ['sink'], text: 'still here' })).resolves.toMatchObject({ duplicate: false });
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(100 * 1024 * 1024);

    // Once the client reads again, every request is answered, in order, and stored once.
    flood.resumeReading();
    await flood.response(`f${SENDS - 1}`, { timeoutMs: 20_000 });
    const answers = flood.lines.map((l) => l.json).filter((j) => typeof j?.id === 'string' && j.id.startsWith('f'));
    expect(answers).toHaveLength(SENDS);
    expect(answers.every((j, i) => j.id === `f${i}` && j.result !== undefined)).toBe(true);
    expect(db.countMessages({ sender: 'flood' })).toBe(SENDS);
    expect(hub.core.sessions.peers().find((p) => p.handle === 'other')?.online).toBe(true);
  });
});
