// `swb events --follow` keeps reading across a hub restart, as `tail -F` does (issue #31, the
// operator's expectations): it says on stderr when it lost the hub and when it is back, and every
// event it prints is printed once. The hub keeps no event log, so what happens while it is away is
// not replayed (and says so). Without --follow the stream still ends when the hub goes.
import { afterEach, describe, expect, it } from 'vitest';
import { Hub } from '../../../src/hub/hub.js';
import { runCleanups, deferCleanup } from '../../helpers/cleanup.js';
import { connectClient, startTestHub } from '../../helpers/hub-harness.js';
import { spawnSwb } from '../../helpers/run-swb.js';
import { waitUntil } from '../../helpers/wait-until.js';

afterEach(runCleanups);

/** The mail events swb printed with --json, as [from, to] per line. */
function mailEvents(stdout: string): string[] {
  return stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { kind: string; from?: string; to?: string[] })
    .filter((e) => e.kind === 'mail')
    .map((e) => `${e.from}>${(e.to ?? []).join(',')}`);
}

describe('swb events --follow', () => {
  it('reconnects after the hub stops and starts again, says so on stderr, and prints each event once', async () => {
    const first = await startTestHub();
    const { home, paths } = first;
    const events = spawnSwb(['events', '--follow', '--json', '--kinds', 'mail'], { home });
    await waitUntil(() => events.stderr().includes('swb events: watching mail'), { what: 'the stream to start' });
    const bob = await connectClient(paths, { session: 'bob' });
    const script = await connectClient(paths, { session: 'script' });
    await script.client.request('mail.send', { to: ['bob'], text: 'one' });
    await waitUntil(() => mailEvents(events.stdout()).length === 1, { what: 'the first mail event' });

    await first.hub.stop();
    bob.client.destroy();
    script.client.destroy();
    await waitUntil(() => /swb events: lost the hub \(.*\); reconnecting\n/.test(events.stderr()), { what: 'swb events to say it lost the hub' });
    expect(events.hasExited()).toBe(false);

    const second = await Hub.start({ paths });
    deferCleanup('second hub', () => second.stop());
    await waitUntil(() => events.stderr().includes('swb events: reconnected; watching again (events while the hub was away are not replayed)'), {
      what: 'swb events to reconnect',
      timeoutMs: 15_000,
    });
    const bob2 = await connectClient(paths, { session: 'bob' });
    const script2 = await connectClient(paths, { session: 'script' });
    await script2.client.request('mail.send', { to: ['bob'], text: 'two' });
    await waitUntil(() => mailEvents(events.stdout()).length === 2, { what: 'the mail event after the restart' });
    bob2.client.destroy();
    script2.client.destroy();

    events.child.kill('SIGINT');
    const done = await events.exited;
    expect(done.status).toBe(0);
    expect(mailEvents(done.stdout)).toEqual(['script>bob', 'script>bob']);
    expect(done.stderr.match(/lost the hub/g)).toHaveLength(1);
    expect(done.stderr.match(/reconnected/g)).toHaveLength(1);
  });

  it('without --follow, the stream ends with status 1 when the hub goes', async () => {
    const { hub, home } = await startTestHub();
    const events = spawnSwb(['events', '--json'], { home });
    await waitUntil(() => events.stderr().includes('swb events: watching'), { what: 'the stream to start' });
    await hub.stop();
    const done = await events.exited;
    expect(done.status).toBe(1);
    expect(done.stderr).not.toContain('reconnecting');
  });
});
