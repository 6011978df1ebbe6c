// The composer's key handling as a pure reducer: line editing, '@' completion (Up/Down choose,
// Tab or Enter take, Esc dismisses), history (Up/Down when not completing), Enter sends, Esc closes,
// Ctrl-Y pastes the paste buffer (as one line: its line breaks become spaces).
// Side effects come back as data for the component to carry out through intents.
import type { InkKeyLike } from '../config/match-ink-input.js';
import { completeMention, mentionAt, type MentionAtCursor } from '../text/mentions.js';
import type { Candidate } from './composer-completion.js';
import { editLine, insertText, type Line } from './composer-line-edit.js';

export interface EditorState {
  line: Line;
  /** Index into the history while walking it; null while editing the draft. */
  historyIndex: number | null;
  /** The draft set aside while walking the history. */
  stash: string;
  /** The highlighted completion. */
  selected: number;
  /** The mention whose completion list Esc dismissed ("start:prefix"), until it changes. */
  dismissed: string | null;
}

export type EditorEffect = { type: 'send'; text: string } | { type: 'close'; text: string } | { type: 'bind'; candidate: Candidate };

export interface EditorEnv {
  /** Sent texts, oldest first. */
  history: readonly string[];
  candidates: (prefix: string) => Candidate[];
  /** The paste buffer's text (Ctrl-Y), or null when it is empty. */
  paste?: string | null;
}

export interface Completion {
  mention: MentionAtCursor;
  candidates: Candidate[];
  selected: number;
}

export function editorFor(text: string): EditorState {
  return { line: { text, cursor: text.length }, historyIndex: null, stash: '', selected: 0, dismissed: null };
}

function mentionKey(m: MentionAtCursor): string {
  return `${m.start}:${m.prefix}`;
}

/** The completion list shown for this state, if any. */
export function activeCompletion(state: EditorState, env: Pick<EditorEnv, 'candidates'>): Completion | null {
  const mention = mentionAt(state.line.text, state.line.cursor);
  if (!mention || state.dismissed === mentionKey(mention)) return null;
  const candidates = env.candidates(mention.prefix);
  if (candidates.length === 0) return null;
  return { mention, candidates, selected: Math.min(state.selected, candidates.length - 1) };
}

export function editorKey(state: EditorState, input: string, key: InkKeyLike, env: EditorEnv): { state: EditorState; effects: EditorEffect[] } {
  const same = { state, effects: [] as EditorEffect[] };
  const completion = activeCompletion(state, env);
  if (completion) {
    const n = completion.candidates.length;
    if (key.downArrow) {
      return { state: { ...state, selected: (completion.selected + 1) % n }, effects: [] };
    }
    if (key.upArrow || (key.tab && key.shift)) {
      return { state: { ...state, selected: (completion.selected - 1 + n) % n }, effects: [] };
    }
    if (key.tab || key.return) {
      const candidate = completion.candidates[completion.selected]!;
      const done = completeMention(state.line.text, state.line.cursor, candidate.handle);
      return {
        state: { ...state, line: { text: done.text, cursor: done.cursor }, selected: 0, historyIndex: null },
        effects: [{ type: 'bind', candidate }],
      };
    }
    if (key.escape) return { state: { ...state, dismissed: mentionKey(completion.mention) }, effects: [] };
  }
  if (key.return) return { state, effects: [{ type: 'send', text: state.line.text }] };
  if (key.escape) return { state, effects: [{ type: 'close', text: state.line.text }] };
  if (key.upArrow) {
    if (env.history.length === 0) return same;
    const index = state.historyIndex === null ? env.history.length - 1 : Math.max(0, state.historyIndex - 1);
    const stash = state.historyIndex === null ? state.line.text : state.stash;
    const text = env.history[index]!;
    return { state: { ...state, historyIndex: index, stash, line: { text, cursor: text.length }, selected: 0, dismissed: null }, effects: [] };
  }
  if (key.downArrow) {
    if (state.historyIndex === null) return same;
    const index = state.historyIndex + 1;
    const text = index >= env.history.length ? state.stash : env.history[index]!;
    return {
      state: { ...state, historyIndex: index >= env.history.length ? null : index, line: { text, cursor: text.length }, selected: 0, dismissed: null },
      effects: [],
    };
  }
  const line = key.ctrl && input === 'y' ? (env.paste ? insertText(state.line, env.paste) : null) : editLine(state.line, input, key);
  if (!line || (line.text === state.line.text && line.cursor === state.line.cursor)) return same;
  const edited = line.text !== state.line.text;
  return {
    state: { ...state, line, selected: edited ? 0 : state.selected, historyIndex: edited ? null : state.historyIndex },
    effects: [],
  };
}
