import { describe, expect, it } from 'vitest';
import { initialState } from '../../../src/app/app-state.js';
import { AppStore } from '../../../src/app/app-store.js';
import { PasteController, type PasteTarget } from '../../../src/app/paste-controller.js';
import { PasteBuffer } from '../../../src/server/paste-buffer.js';

function setup(target: Partial<PasteTarget> = {}) {
  const buffer = new PasteBuffer();
  const stores = [0, 1].map(() => new AppStore(initialState({ cols: 80, rows: 24 }, 'stack', 'dark'), 0));
  const written: string[] = [];
  const typed: string[] = [];
  const notes: string[] = [];
  const row: PasteTarget = { running: true, bracketedPaste: false, write: (b) => written.push(b), ...target };
  // Two clients on one server: one buffer.
  const [first, second] = stores.map(
    (store) =>
      new PasteController({
        store,
        buffer,
        target: (name) => (name === 'dst' ? row : undefined),
        operatorTyped: (name) => typed.push(name),
        note: (_k, text) => notes.push(text),
        pasteKey: 'p',
      }),
  );
  return { buffer, stores, first: first!, second: second!, written, typed, notes };
}

describe('PasteController', () => {
  it('what one client copies, another pastes into a row, as text with CR line breaks; the row counts it as the operator typing', () => {
    const t = setup();
    expect(t.first.keep('alpha\nbeta')).toBe('in the paste buffer: p pastes it into a row');
    expect(t.stores[1]!.getState().pasteBuffer).toBe('alpha\nbeta');
    t.second.pasteInto('dst');
    expect(t.written).toEqual(['alpha\rbeta']);
    expect(t.typed).toEqual(['dst']);
    expect(t.notes).toEqual(['pasted 2 lines into @dst']);
  });

  it('bracketed when the program asked for it (DECSET 2004)', () => {
    const t = setup({ bracketedPaste: true });
    t.first.keep('x');
    t.first.pasteInto('dst');
    expect(t.written).toEqual(['\x1b[200~x\x1b[201~']);
  });

  it('an empty buffer, no row or an exited row: nothing is written and the operator is told why', () => {
    const t = setup({ running: false });
    t.first.pasteInto('dst');
    t.first.keep('x');
    t.first.pasteInto(null);
    t.first.pasteInto('dst');
    expect(t.written).toEqual([]);
    expect(t.notes).toEqual(['the paste buffer is empty: y in a row’s history view fills it', 'no row to paste into', '@dst has exited: nothing to paste into']);
  });
});
