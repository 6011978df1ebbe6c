// A row's kept history, full screen (`[` or PgUp on the dashboard): scroll with ↑↓ PgUp PgDn g G,
// search with / (newest match first), n and N for the next older and newer one, matches shown
// inverse; v selects the screen and scrolling either way extends the selection, y copies the selection or else what is on screen (to the clipboard by OSC 52 when the
// config allows it, else to a file), s saves the whole history to a file, Esc goes back. Where a copy
// or a save went shows on the status line at once, until the next key.
import { Box, Text, useInput } from 'ink';
import { useMemo, useReducer, useRef, useState, type ReactNode } from 'react';
import { findHits, nextHit } from '../src/app/history-search.js';
import { clampOffset } from '../src/app/scroll-window.js';
import type { Theme } from '../src/config/theme.js';

export interface HistoryViewProps {
  row: string;
  /** Plain text, oldest first, already sanitized (matches are found in what is shown). */
  lines: readonly string[];
  theme: Theme;
  width: number;
  height: number;
  onClose: () => void;
  onCopy: (text: string) => void;
  onSave: () => void;
  /** Where the last y or s put its text (from the store, once it went through). */
  done?: { text: string; seq: number } | null;
}

export function HistoryView({ row, lines, theme, width, height, onClose, onCopy, onSave, done = null }: HistoryViewProps) {
  const visible = Math.max(1, height - 3);
  // The scroll offset and the mark live in refs as well as state: keys that arrive before the next
  // render ("kky", "y" then Esc) must each see what the keys before them did.
  const [top, setTopState] = useState(Math.max(0, lines.length - visible));
  const topRef = useRef(top);
  const setTop = (next: number | ((t: number) => number)) => {
    topRef.current = typeof next === 'function' ? next(topRef.current) : next;
    setTopState(topRef.current);
  };
  const [query, setQuery] = useState('');
  const [typing, setTyping] = useState(false);
  const [hitIndex, setHitIndex] = useState(-1);
  /** v: the screen when the selection began; scrolling either way extends it from there. */
  const [mark, setMarkState] = useState<{ top: number; bottom: number } | null>(null);
  const markRef = useRef(mark);
  const setMark = (next: { top: number; bottom: number } | null) => {
    markRef.current = next;
    setMarkState(next);
  };
  const draft = useRef('');
  const [draftShown, setDraftShown] = useState('');
  const hits = useMemo(() => findHits(lines, query), [lines, query]);
  // A copy's news stays on the status line until the key after the one that made it.
  const keys = useRef(0);
  const doneShown = useRef<{ seq: number; atKey: number } | null>(null);
  if (done && done.seq !== doneShown.current?.seq) doneShown.current = { seq: done.seq, atKey: keys.current };
  const news = done && doneShown.current?.atKey === keys.current ? done.text : null;
  const [, redraw] = useReducer((n: number) => n + 1, 0);
  const at = clampOffset(top, lines.length, visible);
  const selectionOf = (m: typeof mark, from: number) => (m === null ? null : { from: Math.min(m.top, from), to: Math.min(lines.length - 1, Math.max(m.bottom, from + visible - 1)) });
  const selection = selectionOf(mark, at);
  const show = (line: number) => setTop(clampOffset(line - Math.floor(visible / 2), lines.length, visible));
  const go = (backward: boolean) => {
    const from = hitIndex >= 0 ? hits[hitIndex]!.line : backward ? at + visible : at - 1;
    const i = nextHit(hits, from, backward);
    setHitIndex(i);
    if (i >= 0) show(hits[i]!.line);
  };

  // One handler, and the query in a ref: keys that arrive together ("/42\r") land where they belong.
  const typingRef = useRef(false);
  const submit = (q: string) => {
    typingRef.current = false;
    setTyping(false);
    setQuery(q);
    const found = findHits(lines, q);
    const i = nextHit(found, at + visible, true);
    setHitIndex(i);
    if (i >= 0) show(found[i]!.line);
  };
  const typeQuery = (input: string, key: { return?: boolean; escape?: boolean; backspace?: boolean; delete?: boolean }) => {
    if (key.escape) {
      typingRef.current = false;
      setTyping(false);
      return;
    }
    if (key.backspace || key.delete) draft.current = draft.current.slice(0, -1);
    else {
      const enter = input.indexOf('\r');
      const text = enter >= 0 ? input.slice(0, enter) : input;
      draft.current += text.replace(/[\x00-\x1f\x7f]/g, '');
      if (key.return || enter >= 0) return submit(draft.current);
    }
    setDraftShown(draft.current);
  };

  useInput((input, key) => {
    keys.current += 1;
    if (news) redraw(); // even a key that changes nothing else takes the news away
    if (typingRef.current) return typeQuery(input, key);
    const atNow = clampOffset(topRef.current, lines.length, visible);
    const markNow = markRef.current;
    if (key.escape && markNow !== null) return setMark(null);
    if (key.escape || input === 'q') return onClose();
    if (input === 'v') return setMark(markNow === null ? { top: atNow, bottom: atNow + visible - 1 } : null);
    if (input.startsWith('/')) {
      typingRef.current = true;
      setTyping(true);
      draft.current = '';
      setDraftShown('');
      if (input.length > 1) typeQuery(input.slice(1), {});
      return;
    }
    if (input === 'n') return go(true);
    if (input === 'N') return go(false);
    if (input === 'y') {
      const chosen = selectionOf(markNow, atNow);
      if (chosen) {
        setMark(null);
        return onCopy(lines.slice(chosen.from, chosen.to + 1).join('\n'));
      }
      return onCopy(lines.slice(atNow, atNow + visible).join('\n'));
    }
    if (input === 's') return onSave();
    // From the newest state, not this render's: two keys may come before the next render.
    const by = (delta: number) => setTop((t) => clampOffset(clampOffset(t, lines.length, visible) + delta, lines.length, visible));
    if (key.upArrow || input === 'k') by(-1);
    else if (key.downArrow || input === 'j') by(1);
    else if (key.pageUp || input === 'b') by(-visible);
    else if (key.pageDown || input === ' ') by(visible);
    else if (key.home || input === 'g') setTop(0);
    else if (key.end || input === 'G') setTop(clampOffset(lines.length, lines.length, visible));
  });

  const shown = lines.slice(at, at + visible);
  const current = hitIndex >= 0 ? hits[hitIndex] : undefined;
  const status = typing
    ? null
    : news
      ? `✓ ${news} · Esc back`
      : query
        ? hits.length === 0
          ? `/${query}: no match`
          : `/${query}: ${hitIndex + 1} of ${hits.length}${hits.length >= 10_000 ? '+' : ''} · n older N newer`
        : selection
          ? `selected ${selection.to - selection.from + 1} lines (the marked screen, extended by scrolling) · y copy · v or Esc drop the mark`
          : `${lines.length === 0 ? 0 : at + 1}–${at + shown.length} of ${lines.length} lines · ↑↓ PgUp PgDn g G · / search · v mark · y copy · s save · Esc back`;
  return (
    <Box flexDirection="column" width={width} height={height}>
      <Text bold color={theme.help.fg} wrap="truncate">
        {` History of @${row}`}
      </Text>
      {shown.map((raw, i) => {
        const n = at + i;
        const line = raw;
        const mine = query ? hits.filter((h) => h.line === n) : [];
        const selected = selection !== null && n >= selection.from && n <= selection.to;
        if (mine.length === 0) {
          return (
            <Text key={n} wrap="truncate" inverse={selected}>
              {line || ' '}
            </Text>
          );
        }
        const parts: ReactNode[] = [];
        let pos = 0;
        for (const h of mine) {
          parts.push(line.slice(pos, h.start));
          parts.push(
            <Text key={h.start} inverse color={current === h ? theme.state.waiting : undefined}>
              {line.slice(h.start, h.end)}
            </Text>,
          );
          pos = h.end;
        }
        parts.push(line.slice(pos));
        return (
          <Text key={n} wrap="truncate">
            {parts}
          </Text>
        );
      })}
      {Array.from({ length: Math.max(0, visible - shown.length) }, (_, i) => (
        <Text key={`pad${i}`}> </Text>
      ))}
      {typing ? (
        <Text color={theme.help.key} wrap="truncate">
          {`/${draftShown}`}
          <Text inverse> </Text>
        </Text>
      ) : (
        <Text color={theme.help.fg} dimColor wrap="truncate">
          {status}
        </Text>
      )}
    </Box>
  );
}
