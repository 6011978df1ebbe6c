import { render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup } from 'ink-testing-library';
import { Composer } from '../../../components/Composer.js';
import { initialComposer, type ComposerState, type MentionBinding } from '../../../src/app/composer-state.js';
import type { ComposerIntents } from '../../../src/app/intents.js';
import { inkWidth } from '../../../src/text/ink-width.js';
import { row } from '../app/fixtures.js';
import { darkTheme, KEYS, plain, press, settle } from './ink-test.js';
import { waitUntil } from '../../helpers/wait-until.js';

const theme = darkTheme();
const rows = [row('alice', { incarnation: 2 }), row('albert'), row('bob', { running: false })];

function fakeIntents(sendResult = true) {
  const calls: Array<[string, unknown]> = [];
  const intents: ComposerIntents = {
    open: () => undefined,
    openAtMention: () => undefined,
    close: (d) => void calls.push(['close', d]),
    saveDraft: (d) => void calls.push(['save', d]),
    bind: (b: MentionBinding) => void calls.push(['bind', b]),
    send: (t) => {
      calls.push(['send', t]);
      return sendResult;
    },
  };
  return { intents, calls };
}

function mount(composer: Partial<ComposerState> = {}, sendResult = true) {
  const f = fakeIntents(sendResult);
  const state = { ...initialComposer(), open: true, ...composer };
  const r = render(<Composer composer={state} rows={rows} peers={[]} theme={theme} width={70} intents={f.intents} />);
  return { ...r, ...f, frame: () => plain(r.lastFrame()), state };
}

afterEach(() => cleanup());

describe('Composer', () => {
  it('shows the saved draft and a hint on two lines', () => {
    const c = mount({ draft: '@bob half done' });
    const lines = c.frame().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain('✎ @bob half done');
    expect(lines[1]).toContain('Enter send');
  });

  it('completes @ over rows with Tab and binds the mention to the row incarnation', async () => {
    const c = mount();
    await settle();
    await press(c.stdin, '@', 'a', 'l');
    await waitUntil(() => c.frame().includes('@alice running'), { what: 'completions' });
    expect(c.frame()).toContain('@albert running');
    expect(c.frame()).toContain('@all every running row');
    await press(c.stdin, KEYS.down, KEYS.tab);
    await waitUntil(() => c.frame().includes('✎ @albert'), { what: 'completed mention' });
    expect(c.calls).toContainEqual(['bind', { handle: 'albert', target: 'row', incarnation: 1 }]);
    await press(c.stdin, '@', 'a', 'l', 'i', KEYS.enter);
    await waitUntil(() => /✎ @albert @alice\s*$/m.test(c.frame()), { what: 'second mention' });
    expect(c.calls).toContainEqual(['bind', { handle: 'alice', target: 'row', incarnation: 2 }]);
  });

  it('sends on Enter and clears the line when the send went out', async () => {
    const c = mount({ draft: '@bob hi' });
    await settle();
    await press(c.stdin, KEYS.enter);
    await waitUntil(() => c.calls.some(([k]) => k === 'send'), { what: 'send' });
    expect(c.calls).toContainEqual(['send', '@bob hi']);
    await waitUntil(() => !c.frame().includes('@bob hi'), { what: 'cleared line' });
  });

  it('@bo and Tab in one read complete the mention, as typed slowly; no hidden character enters the line', async () => {
    const c = mount();
    await settle();
    c.stdin.write('@bo\t');
    await waitUntil(() => c.calls.some(([k]) => k === 'bind'), { what: 'the completion taken' });
    expect(c.calls).toContainEqual(['bind', { handle: 'bob', target: 'row', incarnation: 1 }]);
    c.stdin.write('ok\x7f\x7fhi');
    await waitUntil(() => /✎ @bob hi\s*$/m.test(c.frame()), { what: 'Backspaces in the burst erased' });
    // Ctrl-U in a burst clears the line as it does typed alone; a Tab with nothing to complete is no text.
    c.stdin.write('\x15x\ty');
    await waitUntil(() => /✎ xy\s*$/m.test(c.frame()), { what: 'the line cleared, then "xy"' });
  });

  it('a burst that ends in Enter is the text, then a send (a fast typist, tmux send-keys "hi" Enter)', async () => {
    const c = mount();
    await settle();
    c.stdin.write('@bob hi there\r');
    await waitUntil(() => c.calls.some(([k]) => k === 'send'), { what: 'send' });
    expect(c.calls).toContainEqual(['send', '@bob hi there']);
    // Line breaks inside a burst are a paste: one line of text, no send until Enter.
    c.stdin.write('@bob one\rtwo\r\nthree\r');
    await waitUntil(() => /✎ @bob one two three/.test(c.frame()), { what: 'the pasted lines as text' });
    expect(c.calls.filter(([k]) => k === 'send')).toHaveLength(1);
  });

  it('keeps the line when the send was refused', async () => {
    const c = mount({ draft: 'no recipients' }, false);
    await settle();
    await press(c.stdin, KEYS.enter);
    await waitUntil(() => c.calls.some(([k]) => k === 'send'), { what: 'send' });
    expect(c.frame()).toContain('no recipients');
  });

  it('Esc closes with the draft; unmounting saves it', async () => {
    const c = mount();
    await settle();
    await press(c.stdin, 'h', 'i', KEYS.escape);
    await waitUntil(() => c.calls.some(([k]) => k === 'close'), { what: 'close' });
    expect(c.calls).toContainEqual(['close', 'hi']);
    c.unmount();
    expect(c.calls).toContainEqual(['save', 'hi']);
  });

  it('shows the refusal while the text is unchanged', () => {
    const c = mount({ draft: '@alice hi', warning: '@alice was restarted since you picked it' });
    expect(c.frame()).toContain('! @alice was restarted');
  });

  it('shows the last send’s receipts, or its error with the code', () => {
    const sent = mount({
      lastSend: { messageId: 'm', id: 4, at: 0, duplicate: false, error: null, recipients: [{ to: 'alice', state: 'read', woken: false }, { to: 'bob', state: 'accepted', woken: true }] },
    });
    expect(sent.frame()).toContain('#4 → @alice ✓✓ read · @bob · accepted, woken');
    cleanup();
    const failed = mount({
      lastSend: { messageId: 'm', id: null, at: 0, duplicate: false, error: { code: 'UNKNOWN_PEER', message: 'No session named zed is known to this hub.' }, recipients: [] },
    });
    expect(failed.frame()).toContain('✗ UNKNOWN_PEER: No session named zed');
  });

  it('walks the send history with Up and Down', async () => {
    const c = mount({ history: ['@a first', '@b second'] });
    await settle();
    await press(c.stdin, KEYS.up);
    await waitUntil(() => c.frame().includes('✎ @b second'), { what: 'newest' });
    await press(c.stdin, KEYS.up);
    await waitUntil(() => c.frame().includes('✎ @a first'), { what: 'older' });
    await press(c.stdin, KEYS.down, KEYS.down);
    await waitUntil(() => !c.frame().includes('first') && !c.frame().includes('second'), { what: 'back to the draft' });
  });

  it('takes a burst of keys in one chunk without losing any', async () => {
    const c = mount();
    await settle();
    c.stdin.write('abc\x1b[Dd');
    await waitUntil(() => c.frame().includes('✎ abdc'), { what: 'burst applied' });
  });

  it('shows news that arrived after the last send on the second line', () => {
    const lastSend = { messageId: 'm', id: 4, at: 100, duplicate: false, error: null, recipients: [{ to: 'alice', state: 'read' as const, woken: false }] };
    const f = fakeIntents();
    const strip = { id: 1, at: 200, kind: 'mail' as const, text: '@alice → @operator [msg] done', row: 'alice' };
    const r = render(<Composer composer={{ ...initialComposer(), open: true, lastSend }} rows={rows} peers={[]} strip={strip} theme={theme} width={70} intents={f.intents} />);
    expect(plain(r.lastFrame())).toContain('✉ @alice → @operator [msg] done');
    r.rerender(<Composer composer={{ ...initialComposer(), open: true, lastSend }} rows={rows} peers={[]} strip={{ ...strip, at: 50 }} theme={theme} width={70} intents={f.intents} />);
    expect(plain(r.lastFrame())).toContain('#4 → @alice');
  });

  it('keeps the last send’s receipts in view when the news is a reply to it, and shows the reply after them', () => {
    const lastSend = { messageId: 'm', id: 4, at: 100, duplicate: false, error: null, recipients: [{ to: 'alice', state: 'replied' as const, woken: false }] };
    const f = fakeIntents();
    const reply = { id: 1, at: 200, kind: 'mail' as const, text: '@alice → @operator [response] ok', row: 'alice', replyTo: 4 };
    const r = render(<Composer composer={{ ...initialComposer(), open: true, lastSend }} rows={rows} peers={[]} strip={reply} theme={theme} width={90} intents={f.intents} />);
    expect(plain(r.lastFrame()).split('\n')[1]).toMatch(/^ #4 → @alice ↩ replied · ✉ @alice → @operator \[response\] ok/);
    // A reply to some other message is news like any other.
    r.rerender(<Composer composer={{ ...initialComposer(), open: true, lastSend }} rows={rows} peers={[]} strip={{ ...reply, replyTo: 3 }} theme={theme} width={90} intents={f.intents} />);
    expect(plain(r.lastFrame()).split('\n')[1]).toMatch(/^ ✉ @alice → @operator \[response\] ok/);
  });

  it('fits narrow terminals: no line wider than the width, the cursor kept in view', async () => {
    for (const width of [4, 12, 30]) {
      const f = fakeIntents();
      const r = render(<Composer composer={{ ...initialComposer(), open: true, draft: '@alice a long message that does not fit' }} rows={rows} peers={[]} theme={theme} width={width} intents={f.intents} />);
      await settle();
      const frames = r.frames.length;
      r.stdin.write('@al');
      await waitUntil(() => r.frames.length > frames, { what: `a frame after typing at width ${width}` });
      for (const line of plain(r.lastFrame()).split('\n')) expect(inkWidth(line)).toBeLessThanOrEqual(width);
      r.unmount();
    }
  });

  it('shows the reply target', () => {
    const c = mount({ draft: '@alice ', replyTo: { id: 12, from: 'alice' } });
    expect(c.frame()).toContain('✎ ↩ #12 @alice');
  });
});
