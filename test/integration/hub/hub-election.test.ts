// One hub per workspace, elected by a kernel-held lock (DESIGN §3): a dead hub's socket is
// replaced by the next hub, a live hub's socket is never touched, and racing hubs leave one.
import { lstatSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { Hub } from '../../../src/hub/hub.js';
import type { MailItem } from '../../../src/protocol/methods.js';
import { runCleanups } from '../../helpers/cleanup.js';
import { connectClient, connectOperator, readOperatorToken, startTestHub } from '../../helpers/hub-harness.js';
import { isProcessAlive, killSwbProcess, loggedHubPids } from '../../helpers/processes.js';
import { runSwb, spawnSwb, type SwbProcess } from '../../helpers/run-swb.js';
import { createTempHome, socketAnswers } from '../../helpers/temp-home.js';
import { waitUntil } from '../../helpers/wait-until.js';

afterEach(runCleanups);

describe('hub election', () => {
  it('after a hub is SIGKILLed, its stale socket stays, and the next `swb send` starts a hub that replaces it and keeps the mail', async () => {
    const home = createTempHome();
    const first = await runSwb(['send', '@operator', 'before the crash'], { home });
    expect(first.status, first.stderr).toBe(0);
    const [pid] = await waitUntil(() => loggedHubPids(home.home).length === 1 && loggedHubPids(home.home), { what: 'the auto-started hub to log its pid' });

    await killSwbProcess(pid!, home.home);
    await waitUntil(async () => !(await socketAnswers(home.paths.socketPath)), { what: 'the dead hub to stop answering' });
    expect(lstatSync(home.paths.socketPath).isSocket()).toBe(true);

    const second = await runSwb(['send', '@operator', 'after the crash'], { home });
    expect(second.stderr).toBe('');
    expect(second.status, `signal ${second.signal}; stdout ${second.stdout}`).toBe(0);
    const pids = await waitUntil(() => loggedHubPids(home.home).length === 2 && loggedHubPids(home.home), { what: 'a second hub' });
    expect(pids[1]).not.toBe(pid);
    expect(isProcessAlive(pids[1]!)).toBe(true);

    const { client: operator } = await connectOperator(home.paths);
    const { messages } = await operator.request<{ messages: MailItem[] }>('mail.list', {});
    expect(messages.map((m) => m.text)).toEqual(['before the crash', 'after the crash']);
  });

  it('a second hub started while one runs fails with HUB_RUNNING and leaves the first one answering', async () => {
    const { hub, paths, home } = await startTestHub();
    await expect(Hub.start({ paths })).rejects.toMatchObject({ code: 'HUB_RUNNING' });
    expect(lstatSync(paths.socketPath).isSocket()).toBe(true);
    // The first hub's operator token file was not replaced by the failed attempt.
    expect(readOperatorToken(paths)).toBe(hub.core.sessions.operatorToken);
    const { client } = await connectOperator(paths);
    expect(client.hello?.session).toBe('operator');

    // The kernel lock is still held after the failed attempt: another process cannot win either.
    const other = await runSwb(['hub'], { home });
    expect(other.status).toBe(3);
    expect(other.stderr).toMatch(/HUB_RUNNING/);
    await expect(connectClient(paths, { session: 'bob' })).resolves.toBeDefined();
  });

  it('a headless hub steps down on hub.shutdown, a dashboard\'s embedded hub refuses with HUB_RUNNING', async () => {
    const headless = await startTestHub();
    const op = await connectOperator(headless.paths);
    await op.client.request('hub.shutdown');
    await waitUntil(async () => !(await socketAnswers(headless.paths.socketPath)), { what: 'the headless hub to stop' });

    const home = createTempHome();
    const embedded = await Hub.start({ paths: home.paths, embedded: true });
    try {
      const op2 = await connectOperator(home.paths);
      await expect(op2.client.request('hub.shutdown')).rejects.toMatchObject({ code: 'HUB_RUNNING' });
      expect(await socketAnswers(home.paths.socketPath)).toBe(true);
    } finally {
      await embedded.stop();
    }
  });

  it('of four `swb hub` processes started at once, exactly one keeps running and the others exit with status 3', async () => {
    const home = createTempHome();
    const hubs: SwbProcess[] = Array.from({ length: 4 }, () => spawnSwb(['hub'], { home }));
    const losers = await waitUntil(() => hubs.filter((h) => h.hasExited()).length >= 3 && hubs.filter((h) => h.hasExited()), {
      timeoutMs: 15_000,
      what: 'three hubs to give up',
    });
    const results = await Promise.all(losers.map((h) => h.exited));
    expect(results.map((r) => r.status)).toEqual([3, 3, 3]);
    for (const r of results) expect(r.stderr).toMatch(/HUB_RUNNING/);
    const running = hubs.filter((h) => !h.hasExited());
    expect(running).toHaveLength(1);
    const [winner] = running;
    await waitUntil(() => socketAnswers(home.paths.socketPath), { what: 'the winner to listen' });

    const bob = await connectClient(home.paths, { session: 'bob' });
    const { client: operator } = await connectOperator(home.paths);
    await operator.request('mail.send', { to: ['bob'], text: 'elected' });
    const { messages } = await bob.client.request<{ messages: MailItem[] }>('mail.list', {});
    expect(messages.map((m) => m.text)).toEqual(['elected']);
    expect(winner!.hasExited()).toBe(false);
  });
});
