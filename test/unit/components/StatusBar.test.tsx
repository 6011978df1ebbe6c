import { cleanup, render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { StatusBar } from '../../../components/StatusBar.js';
import { initialState } from '../../../src/app/app-state.js';
import { defaultKeymap } from '../../../src/config/keymap.js';
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
});
