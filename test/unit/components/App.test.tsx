import { cleanup, render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { App } from '../../../components/App.js';
import { AppContext, type AppServices } from '../../../src/app/app-context.js';
import { initialState } from '../../../src/app/app-state.js';
import { AppStore } from '../../../src/app/app-store.js';
import { LayoutSource } from '../../../src/app/layout-source.js';
import type { Intents } from '../../../src/app/intents.js';
import { defaultKeymap } from '../../../src/config/keymap.js';
import { entry, row } from '../app/fixtures.js';
import { darkTheme, plain, press, settle } from './ink-test.js';
import { waitUntil } from '../../helpers/wait-until.js';

function recordingIntents(): { intents: Intents; calls: string[] } {
  const calls: string[] = [];
  const rec =
    (name: string) =>
    (...args: unknown[]) => {
      calls.push(`${name}${args.length ? ` ${args.map((a) => JSON.stringify(a)).join(' ')}` : ''}`);
      return true;
    };
  // The composer's, the mail view's and the row dialogs' intents are recorded as part.method.
  const part = (of: string) => new Proxy({}, { get: (_t, name) => rec(`${of}.${String(name)}`) });
  const parts = new Set(['composer', 'mailView', 'rows']);
  const intents = new Proxy({} as Intents, { get: (_t, name) => (parts.has(String(name)) ? part(String(name)) : rec(String(name))) });
  return { intents, calls };
}

function mount(setup: (store: AppStore) => void) {
  const store = new AppStore(initialState({ cols: 80, rows: 20 }, 'stack', 'dark'), 0);
  store.addRow(row('alice'));
  setup(store);
  const { intents, calls } = recordingIntents();
  const services: AppServices = { store, intents, themes: new Map([['dark', darkTheme()]]), keymap: defaultKeymap(), chromeHeight: 2, layouts: new LayoutSource(2) };
  const r = render(
    <AppContext.Provider value={services}>
      <App />
    </AppContext.Provider>,
  );
  return { ...r, store, calls, frame: () => plain(r.lastFrame()) };
}

afterEach(() => cleanup());

describe('App with the composer', () => {
  it('puts the composer on the chrome lines without changing the layout height', () => {
    const closed = mount(() => undefined);
    const before = closed.frame().split('\n');
    cleanup();
    const open = mount((s) => s.openComposer());
    const after = open.frame().split('\n');
    expect(after).toHaveLength(before.length);
    expect(after[after.length - 2]).toContain('✎');
    expect(before[before.length - 1]).toContain('c write');
  });

  it('while the composer is open, dashboard keys type into it instead of firing', async () => {
    const m = mount((s) => s.openComposer());
    await settle();
    await press(m.stdin, 'q', 'z', 'j');
    await waitUntil(() => m.frame().includes('✎ qzj'), { what: 'typed text' });
    expect(m.calls).toEqual([]);
  });

  it('with the composer closed, keys are dashboard actions', async () => {
    const m = mount(() => undefined);
    await settle();
    await press(m.stdin, 'c', 'i', 'n');
    await waitUntil(() => m.calls.length === 3, { what: 'actions' });
    expect(m.calls).toEqual(['action "compose"', 'action "mailView"', 'action "notifications"']);
  });

  it('@ opens the composer as the start of a mention (c opens it plain)', async () => {
    const m = mount(() => undefined);
    await settle();
    await press(m.stdin, '@', 'c');
    await waitUntil(() => m.calls.length === 2, { what: 'actions' });
    expect(m.calls).toEqual(['composer.openAtMention', 'action "compose"']);
  });

  it('shows the composer under the mail view for a reply, and the mail view stops taking keys', async () => {
    const m = mount((s) => {
      s.openMailView(null);
      s.mailPageLoaded([entry(1, { from: 'alice', to: ['operator'] })], false);
      s.openComposer({ draft: '@alice ', replyTo: { id: 1, from: 'alice' }, bindings: [] });
    });
    const lines = m.frame().split('\n');
    expect(lines).toHaveLength(20);
    expect(lines[0]).toMatch(/╭/);
    expect(lines[18]).toContain('✎ ↩ #1 @alice');
    await settle();
    await press(m.stdin, 'r');
    await waitUntil(() => m.frame().includes('@alice r'), { what: 'typed into the composer' });
    expect(m.calls).toEqual([]);
  });
});
