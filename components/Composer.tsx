// The composer: lines sized with ink-width.ts (string-width), because Ink lays them out and cuts them by that count.
import { Box, Text, useInput } from 'ink';
import React, { useEffect, useReducer, useRef } from 'react';
import type { Note, RowView } from '../src/app/app-state.js';
import { bindingFor, completionCandidates, type Candidate } from '../src/app/composer-completion.js';
import { activeCompletion, editorFor, editorKey, type EditorEnv, type EditorState } from '../src/app/composer-editor.js';
import { lineWindow } from '../src/app/composer-line-edit.js';
import { splitKeyBurst } from '../src/app/key-burst.js';
import { summarizeSend } from '../src/app/composer-receipts.js';
import type { ComposerState, PeerView } from '../src/app/composer-state.js';
import type { ComposerIntents } from '../src/app/intents.js';
import { shownHandle } from '../src/app/mail-view-threads.js';
import type { Theme } from '../src/config/theme.js';
import { inkWidth, padToInkWidth } from '../src/text/ink-width.js';
import { NOTE_GLYPH } from './NotificationList.js';

export interface ComposerProps {
  composer: ComposerState;
  rows: readonly RowView[];
  peers: readonly PeerView[];
  /** The notification strip's note: news that arrives while composing shows on the second line. */
  strip?: Note | null;
  theme: Theme;
  width: number;
  intents: ComposerIntents;
  /** Takes the keyboard (false while something else has it). */
  active?: boolean;
  /** The paste buffer's text, which Ctrl-Y pastes into the line. */
  pasteText?: string | null;
}

const HINT = 'Enter send · @ + Tab complete · ↑↓ history · Ctrl-Y paste · Esc close (draft kept)';

/**
 * The shared composer, two lines over the chrome: the input line, then completions, a refusal, news
 * newer than the last send, the last send's live receipts, or a hint. The line is edited locally (typing does not go through the app
 * store) and handed to the store on send, close and unmount.
 */
export const Composer = React.memo(function Composer({ composer, rows, peers, strip = null, theme, width, intents, active = true, pasteText = null }: ComposerProps) {
  const editor = useRef<EditorState>(editorFor(composer.draft));
  const version = useRef(composer.draftVersion);
  if (version.current !== composer.draftVersion) {
    // The draft was replaced from outside (a reply prefill): load it.
    version.current = composer.draftVersion;
    editor.current = editorFor(composer.draft);
  }
  const [, redraw] = useReducer((n: number) => n + 1, 0);
  const env = useRef<EditorEnv>({ history: [], candidates: () => [] });
  env.current = { history: composer.history, candidates: (prefix) => completionCandidates(prefix, rows, peers), paste: pasteText };
  const intentsRef = useRef(intents);
  intentsRef.current = intents;

  // Unmounted (closed, attach, quit): the draft survives in the store.
  useEffect(() => () => intentsRef.current.saveDraft(editor.current.line.text), []);

  useInput(
    (input, key) => {
      // A burst of keys in one read is taken key by key, as if typed slowly (a fast typist, tmux
      // send-keys); one with line breaks inside is a paste and goes in as text (key-burst.ts).
      const steps = splitKeyBurst(input, key);
      for (const [text, k] of steps) {
        // The ref (not this render's closure) is the truth, so keys arriving in one burst all count.
        const { state, effects } = editorKey(editor.current, text, k, env.current);
        editor.current = state;
        for (const effect of effects) {
          if (effect.type === 'bind') intentsRef.current.bind(bindingFor(effect.candidate));
          else if (effect.type === 'close') intentsRef.current.close(effect.text);
          else if (effect.type === 'send' && intentsRef.current.send(effect.text)) editor.current = editorFor('');
        }
      }
      redraw();
    },
    { isActive: active },
  );

  const state = editor.current;
  const colors = theme.composer;
  const reply = composer.replyTo ? `↩ #${composer.replyTo.id} ` : '';
  const prompt = ` ✎ ${reply}`;
  const room = Math.max(1, width - inkWidth(prompt));
  const win = lineWindow(state.line, room);
  const used = inkWidth(prompt) + inkWidth(win.before) + Math.max(1, inkWidth(win.at)) + inkWidth(win.after);

  const completion = activeCompletion(state, env.current);
  // A reply to the last send is news about it: shown after its receipts, which it must not hide.
  const answer = strip && composer.lastSend?.id != null && strip.replyTo === composer.lastSend.id ? strip : null;
  let second: React.ReactNode;
  if (completion) {
    second = <CompletionLine candidates={completion.candidates} selected={completion.selected} width={width} theme={theme} />;
  } else if (composer.warning && state.line.text === composer.draft) {
    second = (
      <Text color={theme.error} wrap="truncate">
        {padToInkWidth(` ! ${composer.warning}`, width)}
      </Text>
    );
  } else if (strip && !answer && strip.at >= (composer.lastSend?.at ?? 0)) {
    second = (
      <Text color={strip.kind === 'error' ? theme.error : theme.notification.fg} backgroundColor={theme.notification.bg} wrap="truncate">
        {padToInkWidth(` ${NOTE_GLYPH[strip.kind]} ${strip.text}`, width)}
      </Text>
    );
  } else if (composer.lastSend) {
    const s = summarizeSend(composer.lastSend);
    second = (
      <Text color={s.tone === 'error' ? theme.error : s.tone === 'pending' ? theme.muted : theme.accent} wrap="truncate">
        {padToInkWidth(` ${s.text}${answer ? ` · ✉ ${answer.text}` : ''}`, width)}
      </Text>
    );
  } else {
    second = (
      <Text color={colors.placeholder} wrap="truncate">
        {padToInkWidth(` ${HINT}`, width)}
      </Text>
    );
  }

  return (
    <Box flexDirection="column" width={width} height={2}>
      <Text color={colors.fg} backgroundColor={colors.bg} wrap="truncate">
        <Text color={colors.border} bold>
          {prompt}
        </Text>
        {win.before}
        <Text inverse>{win.at}</Text>
        {win.after}
        {' '.repeat(Math.max(0, width - used))}
      </Text>
      {second}
    </Box>
  );
});

function CompletionLine({ candidates, selected, width, theme }: { candidates: readonly Candidate[]; selected: number; width: number; theme: Theme }) {
  const items = candidates.map((c) => ({ label: `@${shownHandle(c.handle)}`, note: c.note }));
  const cells = (i: number) => inkWidth(items[i]!.label) + inkWidth(items[i]!.note) + 3;
  // Start far enough left that the selected candidate is on the line.
  let start = 0;
  let span = 1;
  for (let i = selected; i >= 0; i--) {
    span += cells(i);
    if (span > width - 2) break;
    start = i;
  }
  const parts: React.ReactNode[] = [];
  let used = 1;
  if (start > 0) {
    parts.push(<Text key="more-left">…</Text>);
    used += 1;
  }
  for (let i = start; i < items.length; i++) {
    const w = cells(i);
    if (used + w > width) break;
    const item = items[i]!;
    parts.push(
      <Text key={i}>
        {' '}
        <Text inverse={i === selected} color={theme.composer.mention}>
          {item.label}
        </Text>
        <Text color={theme.muted}> {item.note} </Text>
      </Text>,
    );
    used += w;
  }
  return (
    <Text wrap="truncate">
      <Text> </Text>
      {parts}
      <Text>{' '.repeat(Math.max(0, width - used))}</Text>
    </Text>
  );
}

