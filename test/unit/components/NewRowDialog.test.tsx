import { cleanup, render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { NewRowDialog } from '../../../components/NewRowDialog.js';
import type { NewRowRequest } from '../../../src/app/intents.js';
import { darkTheme, KEYS, plain, press, settle } from './ink-test.js';
import { waitUntil } from '../../helpers/wait-until.js';

function mount() {
  const submitted: NewRowRequest[] = [];
  let cancelled = 0;
  const r = render(
    <NewRowDialog
      theme={darkTheme()}
      width={100}
      height={14}
      defaultCwd="/work"
      profiles={['claude', 'bash']}
      problem={null}
      onSubmit={(req) => submitted.push(req)}
      onCancel={() => cancelled++}
    />,
  );
  return { ...r, submitted, cancelled: () => cancelled, frame: () => plain(r.lastFrame()) };
}

const line = (frame: string, label: string) => frame.split('\n').find((l) => l.includes(label)) ?? '';

afterEach(() => cleanup());

describe('NewRowDialog', () => {
  it('opens on the name field: a name typed first is the name', async () => {
    const d = mount();
    await settle();
    await press(d.stdin, 'w', 'o', 'r', 'k', KEYS.tab, 'b', 'a', 's', 'h', KEYS.enter);
    await waitUntil(() => d.submitted.length === 1, { what: 'submitted' });
    expect(d.submitted[0]).toEqual({ name: 'work', what: 'bash', cwd: '/work' });
  });

  it('Ctrl-U clears the field and Ctrl-W a word, as in the composer; no letter is typed', async () => {
    const d = mount();
    await settle();
    await press(d.stdin, 'o', 'l', 'd', '\x15', 'n', 'e', 'w', KEYS.tab, 'sh -c x', '\x17', 'true', KEYS.enter);
    await waitUntil(() => d.submitted.length === 1, { what: 'submitted' });
    expect(d.submitted[0]).toEqual({ name: 'new', what: 'sh -c true', cwd: '/work' });
    expect(line(d.frame(), 'Name')).not.toContain('u');
  });

  it('a read with several keys moves between fields at its Tabs; Shift-Tab goes back; Esc cancels', async () => {
    const d = mount();
    await settle();
    d.stdin.write('a\tb\tc\t+\r');
    await waitUntil(() => d.submitted.length === 1, { what: 'submitted' });
    expect(d.submitted[0]).toEqual({ name: 'a', what: 'b', cwd: 'c', worktree: '' });
    await press(d.stdin, KEYS.shiftTab, 'X');
    await waitUntil(() => line(d.frame(), 'Working directory').includes('cX'), { what: 'back one field' });
    await press(d.stdin, KEYS.escape);
    await waitUntil(() => d.cancelled() === 1, { what: 'cancelled' });
  });
});
