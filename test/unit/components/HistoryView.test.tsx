import { cleanup, render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { HistoryView } from '../../../components/HistoryView.js';
import { darkTheme, KEYS, settle } from './ink-test.js';
import { waitUntil } from '../../helpers/wait-until.js';

afterEach(() => cleanup());

const lines = Array.from({ length: 100 }, (_, i) => String(i + 1));

function mount() {
  const events: string[] = [];
  const r = render(
    <HistoryView
      row="nums"
      lines={lines}
      theme={darkTheme()}
      width={40}
      height={13}
      onClose={() => events.push('close')}
      onCopy={(text) => events.push(`copy ${text.split('\n')[0]}..${text.split('\n').at(-1)} (${text.split('\n').length})`)}
      onSave={() => events.push('save')}
    />,
  );
  return { ...r, events };
}

describe('HistoryView', () => {
  it('says where the last copy went on its status line, until the next key', async () => {
    const props = { row: 'nums', lines, theme: darkTheme(), width: 60, height: 13, onClose: () => undefined, onCopy: () => undefined, onSave: () => undefined };
    const r = render(<HistoryView {...props} />);
    await settle();
    r.stdin.write('y');
    await settle();
    r.rerender(<HistoryView {...props} done={{ text: 'copied 10 lines of @nums to the clipboard (OSC 52)', seq: 1 }} />);
    await waitUntil(() => (r.lastFrame() ?? '').includes('✓ copied 10 lines of @nums to the clipboard (OSC 52)'), { what: 'the news on the status line' });
    r.stdin.write('x');
    await waitUntil(() => !(r.lastFrame() ?? '').includes('✓ copied'), { what: 'the news gone after the next key' });
  });

  // Each key sees what the keys before it did, even when they all arrive before one render.
  it('keys in one burst: v, k k, y copy the grown selection and Esc then closes the view', async () => {
    const v = mount();
    await settle();
    v.stdin.write('g');
    await settle();
    for (const key of ['j', 'j', 'j', 'v', 'k', 'k', 'y', KEYS.escape]) v.stdin.write(key);
    await waitUntil(() => v.events.includes('close'), { what: 'the view closed' });
    // 10 lines on screen (13 - header - status - margin), marked at lines 4..13, grown up by two.
    expect(v.events).toEqual(['copy 2..13 (12)', 'close']);
  });

  it('Esc with a mark drops the mark and does not close', async () => {
    const v = mount();
    await settle();
    v.stdin.write('v');
    v.stdin.write(KEYS.escape);
    await settle();
    v.stdin.write('y');
    await waitUntil(() => v.events.length > 0, { what: 'a copy' });
    expect(v.events).toEqual(['copy 91..100 (10)']);
  });
});
