import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { initialState } from '../../../src/app/app-state.js';
import { AppStore } from '../../../src/app/app-store.js';
import { ComposerController, type ComposerPort } from '../../../src/app/composer-controller.js';
import { MailViewController, type MailViewPort } from '../../../src/app/mail-view-controller.js';
import { MailStore, type StateChange } from '../../../src/store/mail-store.js';

let dir: string;
let mail: MailStore;
let store: AppStore;
let published: StateChange[];
let view: MailViewController;

function send(sender: string, to: string[], text: string, replyTo: number | null = null): number {
  const [o] = mail.acceptBatch([{ sender, to, requestedTo: to, text, kind: 'msg', replyTo, messageId: `m-${Math.random()}`, live: new Set() }]);
  if (!o?.ok) throw new Error('not accepted');
  return o.result.id;
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'swb-mailview-'));
  // The view is under test, not the reply budget between the rows alice and bob.
  mail = MailStore.open(join(dir, 'mail.db'), { maxUnread: 0, replyBudget: { perPair: 0, maxDepth: 0, countParticipants: false } });
  for (const h of ['operator', 'alice', 'bob']) mail.rememberHandle(h, h === 'operator' ? 'operator' : 'row');
  store = new AppStore(initialState({ cols: 80, rows: 24 }, 'stack', 'dark'));
  published = [];
  const port: MailViewPort & ComposerPort = {
    history: (o) => ({ ok: mail.history(o) }),
    receipts: (id) => mail.receipts(id),
    markRead: async (handles, id) => {
      const changes = handles.flatMap((h) => mail.markRead(h, [id]).changes);
      published.push(...changes);
      for (const c of changes) store.receiptChanged(c);
      return { ok: { updated: changes.length } };
    },
    send: async () => ({ error: { code: 'INTERNAL' as const, message: 'unused' } }),
    peers: () => [],
  };
  const composer = new ComposerController({ store, port, note: () => undefined });
  view = new MailViewController({ store, port, composer, note: () => undefined, pageSize: 10 });
});

afterEach(() => {
  store.dispose();
  mail.close();
  rmSync(dir, { recursive: true, force: true });
});

const mv = () => store.getState().mailView;

describe('MailViewController', () => {
  it('loads history a page at a time, newest first, with receipts', () => {
    for (let i = 0; i < 25; i++) send('alice', ['bob'], `m${i}`);
    view.open(null);
    expect(store.getState().overlay).toBe('mail');
    expect(mv().entries).toHaveLength(10);
    expect(mv().entries[0]!.text).toBe('m24');
    expect(mv().entries[0]!.receipts).toEqual([{ to: 'bob', state: 'accepted', woken: false }]);
    expect(mv().hasMore).toBe(true);
    view.loadPage();
    view.loadPage();
    expect(mv().entries).toHaveLength(25);
    expect(mv().hasMore).toBe(false);
  });

  it('filters to one handle’s mail', () => {
    send('alice', ['bob'], 'a→b');
    send('bob', ['operator'], 'b→op');
    send('operator', ['alice'], 'op→a');
    view.open('operator');
    expect(mv().entries.map((e) => e.text)).toEqual(['op→a', 'b→op']);
  });

  it('opening a message marks the operator’s copy read; m marks the filtered row’s copy', () => {
    const a = send('alice', ['operator', 'bob'], 'hi both');
    view.open(null);
    view.toggle(a);
    expect(mv().openId).toBe(a);
    expect(published.map((c) => `${c.to}:${c.state}`)).toEqual(['operator:read']);
    expect(mv().entries[0]!.receipts.find((r) => r.to === 'operator')!.state).toBe('read');
    view.open('bob');
    view.markRead(a);
    expect(mail.unreadCount('bob')).toBe(0);
    expect(mv().entries[0]!.receipts.find((r) => r.to === 'bob')!.state).toBe('read');
  });

  it('M marks all read: the operator’s copies, or with a filter that handle’s; never other rows’', async () => {
    for (const text of ['one', 'two', 'three']) send('alice', ['operator'], text);
    send('alice', ['bob'], 'not ours');
    view.open(null);
    view.markAllRead();
    await Promise.resolve();
    expect(published.map((c) => `${c.to}:${c.state}`).sort()).toEqual(['operator:read', 'operator:read', 'operator:read']);
    expect(mail.unreadCount('operator')).toBe(0);
    expect(mail.unreadCount('bob')).toBe(1);
    view.open('bob');
    view.markAllRead();
    await Promise.resolve();
    expect(mail.unreadCount('bob')).toBe(0);
  });

  it('shows new mail that passes the filter while open', () => {
    view.open('alice');
    const id = send('bob', ['alice'], 'new');
    view.arrived(mail.message(id)!);
    send('bob', ['operator'], 'other');
    view.arrived(mail.message(id + 1)!);
    expect(mv().entries.map((e) => e.text)).toEqual(['new']);
  });

  it('replies through the composer, threaded', () => {
    const id = send('alice', ['operator'], 'question?');
    view.open(null);
    view.reply(id);
    expect(store.getState().composer).toMatchObject({ open: true, draft: '@alice ', replyTo: { id, from: 'alice' } });
  });

  it('closing drops the loaded pages', () => {
    send('alice', ['bob'], 'x');
    view.open('bob');
    view.close();
    expect(store.getState().overlay).toBeNull();
    expect(mv()).toMatchObject({ filter: 'bob', entries: [] });
  });
});
