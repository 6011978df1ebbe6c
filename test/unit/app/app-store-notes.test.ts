// A note's text is drawn as is by the strip and the notification list, and many notes carry text from a
// file, git or a peer (a worktree path, a branch, an error message): the store cleans it once, whoever
// wrote the note.
import { describe, expect, it } from 'vitest';
import { initialState } from '../../../src/app/app-state.js';
import { AppStore } from '../../../src/app/app-store.js';

describe('AppStore.notify', () => {
  it('keeps no escape sequence or control byte from a note written with hostile text', () => {
    const store = new AppStore(initialState({ cols: 80, rows: 24 }, 'stack', 'dark'), 0);
    const note = store.notify('error', 'row x did not start in /tmp/\x1b]52;c;ZXZpbA==\x07evil\x1b[2J: git said \x9b31m', null);
    for (const text of [note.text, store.getState().strip?.text ?? '', store.getState().notes[0]?.text ?? '']) {
      expect(text).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/);
      expect(text).toContain('evil');
    }
  });

  it('leaves a clean note exactly as written', () => {
    const store = new AppStore(initialState({ cols: 80, rows: 24 }, 'stack', 'dark'), 0);
    expect(store.notify('info', 'started row build · 2 rows', null).text).toBe('started row build · 2 rows');
  });
});
