// The controller's mail side against a real hub (temp SWB_HOME) and an empty row manager: what becomes
// a notification and a row whose wake failed. (What reaches the desktop is the server's notifier's:
// test/unit/server/notify-sources.test.ts.)
import { afterEach, describe, expect, it } from 'vitest';
import { startTestController } from '../../helpers/controller-harness.js';
import { connectClient } from '../../helpers/hub-harness.js';
import { runCleanups } from '../../helpers/cleanup.js';
import { waitUntil } from '../../helpers/wait-until.js';

afterEach(runCleanups);

async function setup() {
  return startTestController();
}

describe('DashboardController mail notifications', () => {
  it('mail for the operator shows in the strip and the list, sanitized', async () => {
    const t = await setup();
    const bot = await connectClient(t.paths, { session: 'bot' });
    await bot.client.request('mail.send', { to: ['operator'], text: 'build \x1b[31mfailed\x07\nsecond line', kind: 'task' });
    await waitUntil(() => t.store.getState().notes.length > 0, { what: 'a note' });
    const strip = t.store.getState().strip!;
    expect(strip.text).toBe('@bot → @operator [task] build ␛failed␇ (+1 line)');
  });

  it('the operator’s own sends are listed but do not take the strip', async () => {
    const t = await setup();
    t.fleet.add({ name: 'worker', command: { file: '/bin/sh', args: ['-c', 'sleep 30'] } }, { cols: 40, rows: 5 });
    t.controller.action('compose');
    expect(t.controller.composer.send('@worker hello')).toBe(true);
    await waitUntil(() => t.store.getState().notes.length > 0, { what: 'a note' });
    expect(t.store.getState().notes[0]!.text).toBe('@operator → @worker [msg] hello');
    expect(t.store.getState().strip).toBeNull();
    await waitUntil(() => t.store.getState().rows[0]!.unread === 1, { what: 'unread badge' });
  });

  it("a row's own refused mail (unknown peer, full inbox) is shown as an error, sanitized", async () => {
    const t = await setup();
    t.fleet.add({ name: 'worker', command: { file: '/bin/sh', args: ['-c', 'sleep 30'] } }, { cols: 40, rows: 5 });
    const refused = await t.hub.core.sends.send('worker', { to: ['nobody'], text: 'hi' });
    expect('error' in refused).toBe(true);
    await waitUntil(() => t.store.getState().notes.some((n) => n.kind === 'error'), { what: 'an error note' });
    const note = t.store.getState().notes.find((n) => n.kind === 'error')!;
    expect(note.text).toMatch(/^@worker → @nobody: UNKNOWN_PEER: /);
    expect(note.row).toBe('worker');
    // Refusals of non-row senders (scripts, the operator's composer) are not repeated here.
    await t.hub.core.sends.send('script', { to: ['nobody'], text: 'hi' });
    expect(t.store.getState().notes.filter((n) => n.kind === 'error')).toHaveLength(1);
  });

  it('a failed wake marks the row and is a notification', async () => {
    const t = await setup();
    t.fleet.add({ name: 'worker', command: { file: '/bin/sh', args: ['-c', 'sleep 30'] } }, { cols: 40, rows: 5 });
    t.controller.mirror.wakeResult('worker', false, 'prompt never became free');
    expect(t.store.getState().rows[0]!.wakeFailed).toBe(true);
    expect(t.store.getState().strip).toMatchObject({ kind: 'error', text: 'wake failed for @worker: prompt never became free', row: 'worker' });
    t.controller.mirror.wakeResult('worker', true);
    expect(t.store.getState().rows[0]!.wakeFailed).toBe(false);
  });

  it('a refused send is a notification with its code', async () => {
    const t = await setup();
    t.controller.composer.send('@nobody hello');
    await waitUntil(() => t.store.getState().composer.lastSend?.error != null, { what: 'refused' });
    expect(t.store.getState().composer.lastSend!.error!.code).toBe('UNKNOWN_PEER');
    expect(t.store.getState().strip).toMatchObject({ kind: 'error', text: expect.stringContaining('UNKNOWN_PEER') });
  });

  it('n opens the notification list and c clears it', async () => {
    const t = await setup();
    t.store.notify('info', 'x');
    t.controller.action('notifications');
    expect(t.store.getState().overlay).toBe('notifications');
    t.controller.clearNotes();
    expect(t.store.getState().notes).toEqual([]);
    t.controller.closeOverlay();
    expect(t.store.getState().overlay).toBeNull();
  });

  it('i opens the mail view on all mail, Esc leaves it', async () => {
    const t = await setup();
    await connectClient(t.paths, { session: 'bot' });
    t.controller.composer.send('@bot one');
    await waitUntil(() => t.store.getState().composer.lastSend?.id != null, { what: 'accepted' });
    t.controller.action('mailView');
    expect(t.store.getState().overlay).toBe('mail');
    expect(t.store.getState().mailView.entries.map((e) => e.text)).toEqual(['one']);
    t.controller.closeOverlay();
    expect(t.store.getState().overlay).toBeNull();
  });

  it('I opens the mail view on the focused row’s mail only', async () => {
    const t = await setup();
    t.fleet.add({ name: 'worker', command: { file: '/bin/sh', args: ['-c', 'sleep 30'] } }, { cols: 40, rows: 5 });
    t.fleet.add({ name: 'other', command: { file: '/bin/sh', args: ['-c', 'sleep 30'] } }, { cols: 40, rows: 5 });
    const bot = await connectClient(t.paths, { session: 'bot' });
    await bot.client.request('mail.send', { to: ['worker'], text: 'for-worker' });
    await bot.client.request('mail.send', { to: ['other'], text: 'for-other' });
    await bot.client.request('mail.send', { to: ['operator'], text: 'for-operator' });
    await waitUntil(() => t.store.getState().notes.length === 3, { what: 'three notes' });
    expect(t.store.getState().focused).toBe('worker');
    t.controller.action('rowInbox');
    expect(t.store.getState().overlay).toBe('mail');
    expect(t.store.getState().mailView.filter).toBe('worker');
    expect(t.store.getState().mailView.entries.map((e) => e.text)).toEqual(['for-worker']);
  });
});
