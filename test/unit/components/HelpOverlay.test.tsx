import { cleanup, render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { HelpOverlay } from '../../../components/HelpOverlay.js';
import { buildKeymap, describeBindings, defaultKeymap } from '../../../src/config/keymap.js';
import { darkTheme, plain } from './ink-test.js';

afterEach(() => cleanup());

describe('HelpOverlay', () => {
  it('lists the dashboard and the mail view keys in sections, in one column when they fit', () => {
    const frame = plain(render(<HelpOverlay keymap={defaultKeymap()} theme={darkTheme()} width={100} height={70} />).lastFrame());
    const lines = frame.split('\n');
    const at = (text: string) => lines.findIndex((l) => l.includes(text));
    expect(at('Dashboard')).toBeLessThan(at('Quit Switchboard'));
    expect(at('Quit Switchboard')).toBeLessThan(at('Mail view'));
    expect(lines[at('Reply to the selected message')]).toMatch(/│ r {10,}Reply/);
  });

  it('flows into columns on a short terminal instead of cutting bindings off', () => {
    const frame = plain(render(<HelpOverlay keymap={defaultKeymap()} theme={darkTheme()} width={100} height={24} />).lastFrame());
    expect(frame.split('\n').length).toBeLessThanOrEqual(24);
    // Three columns at this size: every binding is there with its keys and the start of what it does.
    for (const b of describeBindings(defaultKeymap())) expect(frame).toContain(`${b.keys.join(', ')} `);
    for (const text of ['Focus the next', 'Quit Switchboa', 'Select the mes', 'Close the mail']) expect(frame).toContain(text);
  });

  it('keeps a gap between columns: a description cut short never runs into the next column', () => {
    const frame = plain(render(<HelpOverlay keymap={defaultKeymap()} theme={darkTheme()} width={100} height={35} />).lastFrame());
    const cut = frame.split('\n').filter((l) => /…\S/.test(l.slice(0, -2)));
    expect(cut).toEqual([]);
    expect(frame).toMatch(/… {2,}pageup /); // the mail view's column, after a cut dashboard line
  });

  it('shows remapped keys', () => {
    const built = buildKeymap({ quit: 'Q', mailReply: 'R' });
    if (!built.ok) throw new Error('keymap');
    const frame = plain(render(<HelpOverlay keymap={built.keymap} theme={darkTheme()} width={100} height={70} />).lastFrame());
    expect(frame).toMatch(/│ Q {10,}Quit Switchboard/);
    expect(frame).toMatch(/│ R {10,}Reply to the selected message/);
  });
});
