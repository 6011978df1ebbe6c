// The notification list: lines sized with ink-width.ts (string-width), because Ink lays them out and cuts them by that count.
import { Box, Text, useInput } from 'ink';
import { useState } from 'react';
import type { Note } from '../src/app/app-state.js';
import type { NotificationIntents } from '../src/app/intents.js';
import { clampOffset } from '../src/app/scroll-window.js';
import type { Theme } from '../src/config/theme.js';
import { padToInkWidth } from '../src/text/ink-width.js';

export interface NotificationListProps {
  /** Newest first; texts already sanitized. */
  notes: readonly Note[];
  theme: Theme;
  width: number;
  height: number;
  intents: NotificationIntents;
  active?: boolean;
}

/** How each kind of note is marked, in the list and on the strip. */
export const NOTE_GLYPH: Record<Note['kind'], string> = { mail: '✉', error: '!', info: '·' };

function clock(at: number): string {
  const d = new Date(at);
  return [d.getHours(), d.getMinutes(), d.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');
}

/** Every notification, newest first: ↑↓ PgUp PgDn Home End move, Enter goes to its message or row, c clears, Esc closes. */
export function NotificationList({ notes, theme, width, height, intents, active = true }: NotificationListProps) {
  // The selection and the window's top in one state: keys that come before a render each move it.
  const [pos, setPos] = useState({ sel: 0, top: 0 });
  // Border (2) + title + footer.
  const visible = Math.max(1, height - 4);
  /** The window follows the selection. */
  const follow = (sel: number, top: number) => clampOffset(sel < top ? sel : sel >= top + visible ? sel - visible + 1 : top, notes.length, visible);
  const sel = Math.min(pos.sel, Math.max(0, notes.length - 1));
  const top = follow(sel, pos.top);

  useInput(
    (input, key) => {
      if (key.escape || input === 'n' || input === 'q') return intents.closeOverlay();
      if (input === 'c') {
        setPos({ sel: 0, top: 0 });
        return intents.clearNotes();
      }
      if (key.return) {
        const note = notes[sel];
        if (note) intents.jumpToNote(note.id);
        return;
      }
      const move = (to: (sel: number) => number) =>
        setPos((p) => {
          const next = Math.max(0, Math.min(notes.length - 1, to(Math.min(p.sel, Math.max(0, notes.length - 1)))));
          return { sel: next, top: follow(next, p.top) };
        });
      if (key.upArrow || input === 'k') move((s) => s - 1);
      else if (key.downArrow || input === 'j') move((s) => s + 1);
      else if (key.pageUp) move((s) => s - visible);
      else if (key.pageDown || input === ' ') move((s) => s + visible);
      else if (key.home || input === 'g') move(() => 0);
      else if (key.end || input === 'G') move(() => notes.length - 1);
    },
    { isActive: active },
  );

  const inner = Math.max(1, width - 4);
  const shown = notes.slice(top, top + visible);
  const footer =
    notes.length === 0
      ? 'nothing yet'
      : `${top + 1}–${top + shown.length} of ${notes.length} · ↑↓ PgUp PgDn move · Enter: its message or row · c clear · Esc close`;
  return (
    <Box flexDirection="column" width={width} height={height} borderStyle="round" borderColor={theme.help.border} paddingX={1}>
      <Text bold color={theme.help.fg} wrap="truncate">
        Notifications — newest first
      </Text>
      <Box flexDirection="column" height={visible}>
        {shown.map((n, i) => (
          <Text key={n.id} color={n.kind === 'error' ? theme.error : theme.help.fg} inverse={top + i === sel} wrap="truncate">
            {padToInkWidth(`${clock(n.at)} ${NOTE_GLYPH[n.kind]} ${n.text}`, inner)}
          </Text>
        ))}
      </Box>
      <Text color={theme.muted} wrap="truncate">
        {footer}
      </Text>
    </Box>
  );
}
