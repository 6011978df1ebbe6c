// Jumping to the rows that want the operator (issue #11, navigation): the next row waiting for an
// answer, the next with unread mail, wrapping around; and saying so when there is none.
import { afterEach, describe, expect, it } from 'vitest';
import { runCleanups } from '../../helpers/cleanup.js';
import { startTestController } from '../../helpers/controller-harness.js';
import { connectClient } from '../../helpers/hub-harness.js';
import { waitUntil } from '../../helpers/wait-until.js';

afterEach(runCleanups);

const QUIET = { file: '/bin/sh', args: ['-c', 'sleep 30'] };

describe('dashboard navigation', () => {
  it('W focuses the next waiting row and u the next with unread mail, wrapping; none says so', async () => {
    const t = await startTestController();
    for (const name of ['a', 'b', 'c', 'd']) t.fleet.add({ name, command: QUIET }, { cols: 40, rows: 5 });
    t.store.focus('c');
    t.controller.action('nextWaiting');
    expect(t.store.getState().strip?.text).toBe('no row is waiting for you');
    t.store.updateRow('b', { agentState: 'waiting' });
    t.controller.action('nextWaiting');
    expect(t.store.getState().focused).toBe('b'); // from c, past d, wrapping to a, then b
    t.store.updateRow('d', { unread: 2 });
    t.store.updateRow('a', { unread: 1 });
    t.controller.action('nextUnread');
    expect(t.store.getState().focused).toBe('d');
    t.controller.action('nextUnread');
    expect(t.store.getState().focused).toBe('a');
  });
});

describe('the notification strip', () => {
  it('counts what it did not show, forgets a note about a removed row, and the list resets the count', async () => {
    const t = await startTestController();
    t.fleet.add({ name: 'a', command: QUIET }, { cols: 40, rows: 5 });
    t.store.notify('info', 'first', null);
    t.store.notify('error', 'a failed', 'a');
    expect(t.store.getState()).toMatchObject({ unseen: 2, strip: { text: 'a failed' } });
    t.store.removeRow('a');
    expect(t.store.getState().strip).toBeNull();
    t.controller.action('notifications');
    expect(t.store.getState().unseen).toBe(0);
  });

  it('a multi-line message shows its first line and how many more', async () => {
    const t = await startTestController();
    const { client } = await connectClient(t.paths, { session: 'script' });
    await client.request('mail.send', { to: ['operator'], text: 'first line\nsecond\nthird' });
    await waitUntil(() => t.store.getState().strip?.text.includes('first line') === true, { what: 'the mail note' });
    expect(t.store.getState().strip!.text).toMatch(/@script → @operator \[msg\] first line \(\+2 lines\)$/);
  });

  it('a note leaves the strip after its time, whoever put it there; a newer one restarts the clock', async () => {
    const t = await startTestController(() => ({ stripAgeMs: { info: 40, news: 400 } }));
    t.store.notify('info', 'brief', null);
    await waitUntil(() => t.store.getState().strip === null, { what: 'the info note to age out' });
    t.store.notify('error', 'news', null);
    t.store.notify('info', 'newer', null);
    expect(t.store.getState().strip?.text).toBe('newer');
    await waitUntil(() => t.store.getState().strip === null, { what: 'the newer note to age out' });
    expect(t.store.getState().notes.map((n) => n.text)).toEqual(['newer', 'news', 'brief']);
  });
});

describe('a row whose program could not run', () => {
  it('says why in its exit note: command not found, naming the program', async () => {
    const t = await startTestController();
    t.fleet.add({ name: 'gone', command: { file: '/nonexistent/swb-test-agent', args: ['--resume', 'x'] } }, { cols: 40, rows: 5 });
    await waitUntil(() => t.store.getState().strip?.text.startsWith('gone exited') === true, { what: 'the exit note' });
    expect(t.store.getState().strip?.text).toBe('gone exited with status 127 (command not found: /nonexistent/swb-test-agent)');
    expect(t.fleet.exitReasonOf('gone')).toBe('command not found: /nonexistent/swb-test-agent');
  });
});
