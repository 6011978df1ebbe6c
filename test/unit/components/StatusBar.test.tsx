import { cleanup, render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { StatusBar } from '../../../components/StatusBar.js';
import { initialState } from '../../../src/app/app-state.js';
import { defaultKeymap } from '../../../src/config/keymap.js';
import { row } from '../app/fixtures.js';
import { darkTheme, plain } from './ink-test.js';

afterEach(() => cleanup());

describe('StatusBar', () => {
  it('says rows are hidden before the key hints, so a narrow terminal still shows it', () => {
    const state = initialState({ cols: 40, rows: 10 }, 'stack', 'dark');
    const frame = plain(render(<StatusBar state={state} theme={darkTheme()} keymap={defaultKeymap()} hidden={3} />).lastFrame());
    expect(frame.split('\n')[1]).toMatch(/^ \+3 more \(tab reaches them\)/);
  });

  it('shows no such note when every row is on screen', () => {
    const state = initialState({ cols: 80, rows: 10 }, 'stack', 'dark');
    const frame = plain(render(<StatusBar state={state} theme={darkTheme()} keymap={defaultKeymap()} hidden={0} />).lastFrame());
    expect(frame).not.toContain('more');
    expect(frame.split('\n')[1]).toMatch(/^ enter attach/);
  });

  it('sums the fleet up at the right end of the strip line: busy, idle, waiting for you, exited, unread mail', () => {
    const state = {
      ...initialState({ cols: 80, rows: 10 }, 'stack', 'dark'),
      rows: [
        row('a', { agentState: 'busy', unread: 2 }),
        row('b', { agentState: 'busy' }),
        row('c', { agentState: 'idle' }),
        row('d', { agentState: 'waiting', unread: 1 }),
        row('e', { running: false, agentState: 'exited' }),
      ],
    };
    const first = plain(render(<StatusBar state={state} theme={darkTheme()} keymap={defaultKeymap()} hidden={0} />).lastFrame()).split('\n')[0]!;
    expect(first).toMatch(/^ {10,}2 busy · 1 idle · 1 waiting for you · 1 exited · ✉ 3 unread\s*$/);
    expect(first.trimEnd().length).toBeGreaterThanOrEqual(78);
  });

  it('news on the strip comes first: the summary shows only where it leaves room', () => {
    const base = { ...initialState({ cols: 60, rows: 10 }, 'stack', 'dark'), rows: [row('a', { agentState: 'busy' })] };
    const strip = { id: 1, at: 0, kind: 'info' as const, text: 'x'.repeat(55), row: null };
    const first = plain(render(<StatusBar state={{ ...base, strip }} theme={darkTheme()} keymap={defaultKeymap()} hidden={0} />).lastFrame()).split('\n')[0]!;
    expect(first).toContain('x'.repeat(55));
    expect(first).not.toContain('busy');
  });
});
