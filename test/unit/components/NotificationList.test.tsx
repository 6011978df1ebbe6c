import { cleanup, render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { NotificationList } from '../../../components/NotificationList.js';
import type { Note } from '../../../src/app/app-state.js';
import { darkTheme, KEYS, plain, press, settle } from './ink-test.js';
import { waitUntil } from '../../helpers/wait-until.js';

const theme = darkTheme();
const notes: Note[] = Array.from({ length: 30 }, (_, i) => ({ id: 30 - i, at: 0, kind: i === 1 ? 'error' : 'mail', text: `note ${30 - i}`, row: null }));

function mount(list: readonly Note[] = notes) {
  const calls: string[] = [];
  const intents = { clearNotes: () => void calls.push('clear'), closeOverlay: () => void calls.push('close'), jumpToNote: (id: number) => void calls.push(`jump ${id}`) };
  const r = render(<NotificationList notes={list} theme={theme} width={60} height={10} intents={intents} />);
  return { ...r, calls, frame: () => plain(r.lastFrame()) };
}

afterEach(() => cleanup());

describe('NotificationList', () => {
  it('shows the newest first in a fixed height, with the position', () => {
    const m = mount();
    expect(m.frame().split('\n')).toHaveLength(10);
    expect(m.frame()).toContain('✉ note 30');
    expect(m.frame()).toContain('! note 29');
    expect(m.frame()).toContain('1–6 of 30');
    expect(m.frame()).not.toContain('note 24');
  });

  it('moves the selection with the arrows and PgUp/PgDn, the window following it, never past either end', async () => {
    const m = mount();
    await settle();
    await press(m.stdin, KEYS.down);
    await settle();
    expect(m.frame()).toContain('1–6 of 30'); // the selection moved inside the window
    await press(m.stdin, KEYS.down, KEYS.down, KEYS.down, KEYS.down, KEYS.down);
    await waitUntil(() => m.frame().includes('2–7 of 30'), { what: 'the window follows the selection down' });
    await press(m.stdin, KEYS.pageDown, KEYS.pageDown, KEYS.pageDown, KEYS.pageDown, KEYS.pageDown, KEYS.pageDown);
    await waitUntil(() => m.frame().includes('25–30 of 30'), { what: 'at the end' });
    expect(m.frame()).toContain('note 1');
    await press(m.stdin, KEYS.pageUp);
    await waitUntil(() => m.frame().includes('24–29 of 30'), { what: 'page up' });
    await press(m.stdin, 'g');
    await waitUntil(() => m.frame().includes('1–6 of 30'), { what: 'home' });
  });

  it('Enter goes to the selected note', async () => {
    const m = mount();
    await settle();
    await press(m.stdin, KEYS.down, KEYS.down);
    await settle();
    await press(m.stdin, KEYS.enter ?? '\r');
    await waitUntil(() => m.calls.length === 1, { what: 'the jump' });
    expect(m.calls).toEqual(['jump 28']);
  });

  it('c clears, Esc closes', async () => {
    const m = mount();
    await settle();
    await press(m.stdin, 'c', KEYS.escape);
    await waitUntil(() => m.calls.length === 2, { what: 'both' });
    expect(m.calls).toEqual(['clear', 'close']);
  });

  it('says when there is nothing', () => {
    expect(mount([]).frame()).toContain('nothing yet');
  });
});
