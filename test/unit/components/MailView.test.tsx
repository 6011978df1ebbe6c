import { cleanup, render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { MailView } from '../../../components/MailView.js';
import type { MailViewIntents } from '../../../src/app/intents.js';
import { appendPage, resetMailView, type MailViewState } from '../../../src/app/mail-view-state.js';
import { buildKeymap, type Keymap } from '../../../src/config/keymap.js';
import { entry } from '../app/fixtures.js';
import { darkTheme, KEYS, plain, press, settle } from './ink-test.js';
import { waitUntil } from '../../helpers/wait-until.js';

const theme = darkTheme();

function fakeIntents() {
  const calls: string[] = [];
  const intents: MailViewIntents = {
    select: (id) => void calls.push(`select ${id}`),
    loadPage: () => void calls.push('more'),
    toggle: (id) => void calls.push(`toggle ${id}`),
    markRead: (id) => void calls.push(`read ${id}`),
    markAllRead: () => void calls.push('read all'),
    reply: (id) => void calls.push(`reply ${id}`),
    cycleFilter: (step) => void calls.push(`filter ${step}`),
    close: () => void calls.push('close'),
  };
  const composer = {
    open: () => void calls.push('compose'),
    openAtMention: () => void calls.push('compose @'),
  };
  return { intents, composer, calls };
}

function mount(mv: MailViewState, height = 14, keymap?: Keymap) {
  const f = fakeIntents();
  const r = render(<MailView mailView={mv} theme={theme} width={90} height={height} intents={f.intents} composer={f.composer} {...(keymap ? { keymap } : {})} />);
  return { ...r, ...f, frame: () => plain(r.lastFrame()) };
}

const threaded = appendPage(
  resetMailView(null),
  [
    entry(4, { from: 'bob', to: ['operator'], text: 'unrelated', receipts: [{ to: 'operator', state: 'delivered', woken: false }] }),
    entry(3, { from: 'alice', to: ['operator'], replyTo: 2, text: 'answer\nmore detail', receipts: [{ to: 'operator', state: 'read', woken: false }] }),
    entry(2, { from: 'operator', to: ['alice'], replyTo: null, text: 'question', receipts: [{ to: 'alice', state: 'replied', woken: false }] }),
  ],
  true,
);

afterEach(() => cleanup());

describe('MailView', () => {
  it('lists mail as threads with unread marks, kinds and receipts', () => {
    const m = mount(threaded);
    expect(m.frame()).toContain('↑/↓ move · Enter open · r reply · m mark read · f/F filter · c compose · Esc close');
    const lines = m.frame().split('\n');
    const at = (text: string) => lines.findIndex((l) => l.includes(text));
    expect(m.frame()).toContain('Mail — all mail · 3+ messages');
    expect(at('#3')).toBe(at('#2') + 1);
    expect(lines[at('#3')]).toMatch(/└ #3 \d\d:\d\d alice → operator \[msg\] answer\s+read/);
    expect(lines[at('#2')]).toMatch(/replied/);
    expect(lines[at('#4')]).toMatch(/● #4/);
    expect(lines[at('#3')]).not.toContain('more detail');
  });

  it('moves the selection, opens, replies and marks read by key', async () => {
    const m = mount(threaded);
    await settle();
    await press(m.stdin, KEYS.down);
    await waitUntil(() => m.calls.includes('select 2'), { what: 'select' });
    await press(m.stdin, KEYS.enter, 'r', 'm', 'f', 'F', 'c', '@');
    await waitUntil(() => m.calls.includes('compose @'), { what: 'all intents' });
    // The selection lives in the store; without a new state the first line stays selected.
    expect(m.calls.filter((c) => c !== 'more')).toEqual(['select 2', 'toggle 4', 'reply 4', 'read 4', 'filter 1', 'filter -1', 'compose', 'compose @']);
  });

  it('follows the configured keys and shows them in its footer', async () => {
    const built = buildKeymap({ mailReply: 'R', mailMarkRead: 'x', mailDown: ['n'], mailCompose: [] });
    if (!built.ok) throw new Error(built.problems.map((p) => p.message).join('; '));
    const m = mount(threaded, 14, built.keymap);
    expect(m.frame()).toContain('↑/n move · Enter open · R reply · x mark read · f/F filter · Esc close');
    expect(m.frame()).not.toContain('compose');
    await settle();
    await press(m.stdin, 'r', 'm', 'c', 'n', 'R', 'x');
    await waitUntil(() => m.calls.includes('read 4'), { what: 'remapped intents' });
    expect(m.calls.filter((c) => c !== 'more')).toEqual(['select 2', 'reply 4', 'read 4']);
  });

  it('asks for the next page as the selection nears the end of what is loaded', async () => {
    const m = mount({ ...threaded, selectedId: 2 });
    await settle();
    await press(m.stdin, KEYS.down);
    await waitUntil(() => m.calls.includes('more'), { what: 'load more' });
  });

  it('shows an opened message in full with its receipts; Esc closes it, then the view', async () => {
    const m = mount({ ...threaded, selectedId: 3, openId: 3 }, 20);
    expect(m.frame()).toMatch(/#3 {2}from @alice {2}to @operator {2}\[msg\].*re #2/);
    expect(m.frame()).toContain('receipts: @operator ✓✓ read');
    expect(m.frame()).toContain('more detail');
    await settle();
    await press(m.stdin, KEYS.escape);
    await waitUntil(() => m.calls.includes('toggle 3'), { what: 'close detail' });
    cleanup();
    const closed = mount(threaded);
    await settle();
    await press(closed.stdin, KEYS.escape);
    await waitUntil(() => closed.calls.includes('close'), { what: 'close view' });
  });

  it('never shows raw escapes from peer text', () => {
    const hostile = appendPage(resetMailView(null), [entry(1, { from: 'x', text: '\x1b[2J\x1b]52;c;aGk=\x07boom\u202e' })], false);
    const m = mount({ ...hostile, openId: 1 }, 16);
    const raw = m.lastFrame() ?? '';
    // Only SGR colour sequences from Ink itself may remain.
    // eslint-disable-next-line no-control-regex
    expect(raw.replace(/\x1b\[[0-9;]*m/g, '')).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f-\x9f\u202e]/);
    expect(m.frame()).toContain('boom');
  });

  it('says when a filter has no mail', () => {
    const m = mount({ ...resetMailView('alice'), hasMore: false });
    expect(m.frame()).toContain('Mail — @alice · 0 messages');
    expect(m.frame()).toContain('No mail from or to @alice.');
  });
});
