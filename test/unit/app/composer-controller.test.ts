import { describe, expect, it } from 'vitest';
import { initialState, type NoteKind } from '../../../src/app/app-state.js';
import { AppStore } from '../../../src/app/app-store.js';
import { ComposerController, type ComposerPort } from '../../../src/app/composer-controller.js';
import type { SwbErrorValue } from '../../../src/protocol/error-codes.js';
import type { PeerInfo, SendParams, SendResult } from '../../../src/protocol/methods.js';
import { entry, row } from './fixtures.js';

type Answer = { ok: SendResult } | { error: SwbErrorValue };

function setup(peers: PeerInfo[] = []) {
  const store = new AppStore(initialState({ cols: 80, rows: 24 }, 'stack', 'dark'));
  const sent: Array<{ sender: string; params: SendParams; answer: (a: Answer) => void }> = [];
  // The port sends as the operator: `sender` records who the composer spoke as.
  const port: ComposerPort = {
    send: (params) => new Promise<Answer>((resolve) => sent.push({ sender: 'operator', params, answer: resolve })),
    peers: () => peers,
  };
  const notes: Array<{ kind: NoteKind; text: string }> = [];
  let n = 0;
  const composer = new ComposerController({ store, port, note: (kind, text) => notes.push({ kind, text }), newMessageId: () => `op-${++n}`, now: () => 5 });
  return { store, sent, composer, notes, state: () => store.getState().composer };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('ComposerController', () => {
  it('opened by @, the draft holds the @ (after a kept draft) and the peers are loaded for its completion', () => {
    const t = setup([{ handle: 'claude', online: true, role: 'row', unread: 0 }]);
    t.composer.openAtMention();
    expect(t.state()).toMatchObject({ open: true, draft: '@' });
    expect(t.store.getState().peers.map((p) => p.handle)).toEqual(['claude']);
    t.composer.close('please look at');
    t.composer.openAtMention();
    expect(t.state().draft).toBe('please look at @');
  });

  it('sends the text after the mentions as operator and shows the receipts live', async () => {
    const t = setup();
    t.store.addRow(row('alice'));
    t.composer.open();
    expect(t.composer.send('@alice, @bob: please rebase')).toBe(true);
    expect(t.sent[0]!.sender).toBe('operator');
    expect(t.sent[0]!.params).toEqual({ to: ['alice', 'bob'], text: 'please rebase', kind: 'msg', messageId: 'op-1' });
    expect(t.state().draft).toBe('');
    expect(t.state().history).toEqual(['@alice, @bob: please rebase']);
    expect(t.state().lastSend!.recipients.map((r) => r.state)).toEqual(['sending', 'sending']);
    t.sent[0]!.answer({ ok: { id: 9, messageId: 'op-1', duplicate: false, recipients: [{ to: 'alice', seq: 1, state: 'delivered' }, { to: 'bob', seq: 1, state: 'accepted' }] } });
    await tick();
    t.store.receiptChanged({ id: 9, to: 'bob', state: 'read' });
    expect(t.state().lastSend).toMatchObject({ id: 9, recipients: [{ to: 'alice', state: 'delivered' }, { to: 'bob', state: 'read' }] });
  });

  it('shows a refused send with its code on the line and as a notification', async () => {
    const t = setup();
    t.composer.send('@bob hi');
    t.sent[0]!.answer({ error: { code: 'QUEUE_FULL', message: 'bob already has 256 unread messages; try again once it reads some.' } });
    await tick();
    expect(t.state().lastSend!.error).toEqual({ code: 'QUEUE_FULL', message: 'bob already has 256 unread messages; try again once it reads some.' });
    expect(t.notes).toEqual([{ kind: 'error', text: expect.stringContaining('QUEUE_FULL') }]);
    // Nothing was sent: the message is back in the composer to send again.
    expect(t.state().draft).toBe('@bob hi');
  });

  it('a failed send does not overwrite a draft the operator began meanwhile', async () => {
    const t = setup();
    t.composer.send('@bob hi');
    t.store.saveDraft('@bob something else');
    t.sent[0]!.answer({ error: { code: 'QUEUE_FULL', message: 'full' } });
    await tick();
    expect(t.state().draft).toBe('@bob something else');
  });

  it('refuses without recipients, without text, or with a bad handle, and keeps the draft', () => {
    const t = setup();
    for (const text of ['just words', '@bob   ', '@-bad hi']) {
      expect(t.composer.send(text)).toBe(false);
      expect(t.state().draft).toBe(text);
      expect(t.state().warning).toBeTruthy();
    }
    expect(t.sent).toHaveLength(0);
  });

  it('refuses once when a completed row was restarted since, then sends by name', () => {
    const t = setup();
    t.store.addRow(row('alice', { incarnation: 1 }));
    t.composer.bind({ handle: 'alice', target: 'row', incarnation: 1 });
    t.store.updateRow('alice', { incarnation: 2 });
    expect(t.composer.send('@alice hi')).toBe(false);
    expect(t.state().warning).toMatch(/@alice was restarted/);
    expect(t.sent).toHaveLength(0);
    expect(t.composer.send('@alice hi')).toBe(true);
    expect(t.sent[0]!.params.to).toEqual(['alice']);
  });

  it('refuses when a completed row was closed since', () => {
    const t = setup();
    t.store.addRow(row('alice'));
    t.composer.bind({ handle: 'alice', target: 'row', incarnation: 1 });
    t.store.removeRow('alice');
    expect(t.composer.send('@alice hi')).toBe(false);
    expect(t.state().warning).toMatch(/@alice was closed/);
  });

  it('@all is the hub broadcast (as swb send @all), shown while sending as the online sessions but the operator', () => {
    // The hub counts a running row online (a; b exited) whether or not it holds a connection.
    const t = setup([
      { handle: 'a', online: true, role: 'row', unread: 0 },
      { handle: 'b', online: false, role: 'row', unread: 0 },
      { handle: 'operator', online: true, role: 'operator', unread: 0 },
      { handle: 'script', online: true, role: 'participant', unread: 0 },
      { handle: 'gone', online: false, role: 'participant', unread: 0 },
    ]);
    t.store.addRow(row('a'));
    t.store.addRow(row('b', { running: false }));
    expect(t.composer.send('@all stand up')).toBe(true);
    expect(t.sent[0]!.params.to).toEqual(['all']);
    expect(t.state().lastSend?.recipients.map((r) => r.to)).toEqual(['a', 'script']);
  });

  it('replies threaded to mail the operator received, prefilled with the sender', () => {
    const t = setup();
    t.store.addRow(row('alice', { incarnation: 3 }));
    t.composer.reply(entry(7, { from: 'alice', to: ['operator'] }));
    expect(t.state()).toMatchObject({ open: true, draft: '@alice ', replyTo: { id: 7, from: 'alice' }, bindings: [{ handle: 'alice', target: 'row', incarnation: 3 }], warning: null });
    t.composer.send('@alice ok');
    expect(t.sent[0]!.params).toMatchObject({ to: ['alice'], text: 'ok', kind: 'response', replyTo: 7 });
    expect(t.state().replyTo).toBeNull();
  });

  it('answers mail the operator did not receive as a new message, and says so', () => {
    const t = setup();
    t.composer.reply(entry(7, { from: 'alice', to: ['bob'] }));
    expect(t.state().replyTo).toBeNull();
    expect(t.state().warning).toMatch(/not sent to operator/);
  });

  it('keeps the draft when closed and drops an emptied reply', () => {
    const t = setup();
    t.composer.reply(entry(7, { from: 'alice', to: ['operator'] }));
    t.composer.close('@alice half a thought');
    expect(t.state()).toMatchObject({ open: false, draft: '@alice half a thought', replyTo: { id: 7 } });
    t.composer.open();
    t.composer.close('');
    expect(t.state().replyTo).toBeNull();
  });
});
