import { describe, expect, it } from 'vitest';
import { completionCandidates } from '../../../src/app/composer-completion.js';
import { activeCompletion, editorFor, editorKey, type EditorEnv, type EditorState } from '../../../src/app/composer-editor.js';
import { row } from './fixtures.js';
import { key } from './key.js';

const rows = [row('alice', { incarnation: 3 }), row('albert'), row('bob')];
const env = (history: string[] = []): EditorEnv => ({ history, candidates: (p) => completionCandidates(p, rows, []) });

function typeText(state: EditorState, text: string, e = env()): EditorState {
  let s = state;
  for (const ch of text) s = editorKey(s, ch, key(), e).state;
  return s;
}

describe('editorKey', () => {
  it('Ctrl-Y pastes the paste buffer at the cursor, its line breaks as spaces; with an empty buffer it types nothing', () => {
    const s = typeText(editorFor(''), '@bob see ');
    const pasted = editorKey(s, 'y', key({ ctrl: true }), { ...env(), paste: 'line one\nline two' }).state;
    expect(pasted.line.text).toBe('@bob see line one line two');
    expect(editorKey(s, 'y', key({ ctrl: true }), { ...env(), paste: null }).state.line.text).toBe('@bob see ');
  });

  it('offers completions while the cursor is in an @mention', () => {
    const s = typeText(editorFor(''), '@al');
    const c = activeCompletion(s, env());
    expect(c?.candidates.map((x) => x.handle)).toEqual(['alice', 'albert', 'all']);
    expect(activeCompletion(typeText(editorFor(''), 'hello'), env())).toBeNull();
  });

  it('Down/Up choose, Tab takes the candidate and reports the binding', () => {
    let s = typeText(editorFor(''), '@al');
    s = editorKey(s, '', key({ downArrow: true }), env()).state;
    expect(activeCompletion(s, env())!.selected).toBe(1);
    s = editorKey(s, '', key({ upArrow: true }), env()).state;
    const r = editorKey(s, '', key({ tab: true }), env());
    expect(r.state.line).toEqual({ text: '@alice ', cursor: 7 });
    expect(r.effects).toEqual([{ type: 'bind', candidate: expect.objectContaining({ handle: 'alice', target: 'row', incarnation: 3 }) }]);
    expect(activeCompletion(r.state, env())).toBeNull();
  });

  it('Enter takes the completion rather than sending while a list is shown', () => {
    const s = typeText(editorFor(''), '@b');
    const r = editorKey(s, '', key({ return: true }), env());
    expect(r.state.line.text).toBe('@bob ');
    expect(r.effects[0]!.type).toBe('bind');
  });

  it('allows several recipients', () => {
    let s = typeText(editorFor(''), '@b');
    s = editorKey(s, '', key({ tab: true }), env()).state;
    s = typeText(s, '@alb');
    s = editorKey(s, '', key({ tab: true }), env()).state;
    expect(s.line.text).toBe('@bob @albert ');
  });

  it('Esc dismisses the list first, then closes with the draft', () => {
    const typed = typeText(editorFor(''), 'hi @a');
    const dismissed = editorKey(typed, '', key({ escape: true }), env());
    expect(dismissed.effects).toEqual([]);
    expect(activeCompletion(dismissed.state, env())).toBeNull();
    const closed = editorKey(dismissed.state, '', key({ escape: true }), env());
    expect(closed.effects).toEqual([{ type: 'close', text: 'hi @a' }]);
    // Typing on brings the list back.
    expect(activeCompletion(typeText(dismissed.state, 'l'), env())).not.toBeNull();
  });

  it('Enter sends the line when no list is shown', () => {
    const s = typeText(editorFor(''), '@bob hi');
    expect(editorKey(s, '', key({ return: true }), env()).effects).toEqual([{ type: 'send', text: '@bob hi' }]);
  });

  it('Up/Down walk the send history and come back to the draft', () => {
    const e = env(['first', 'second']);
    let s = typeText(editorFor(''), 'draft', e);
    s = editorKey(s, '', key({ upArrow: true }), e).state;
    expect(s.line.text).toBe('second');
    s = editorKey(s, '', key({ upArrow: true }), e).state;
    s = editorKey(s, '', key({ upArrow: true }), e).state;
    expect(s.line.text).toBe('first');
    s = editorKey(s, '', key({ downArrow: true }), e).state;
    expect(s.line.text).toBe('second');
    s = editorKey(s, '', key({ downArrow: true }), e).state;
    expect(s.line).toEqual({ text: 'draft', cursor: 5 });
    expect(s.historyIndex).toBeNull();
  });
});
