import { Box, Text, useInput } from 'ink';
import { useState } from 'react';
import type { Note } from '../src/app/app-state.js';
import type { NotificationIntents } from '../src/app/intents.js';
import { clampOffset } from '../src/app/scroll-window.js';
import type { Theme } from '../src/config/theme.js';
import { padToWidth } from '../src/text/cell-width.js';

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

/** Every notification, newest first: ↑↓ PgUp PgDn Home End scroll, c clears, Esc closes. */
export function NotificationList({ notes, theme, width, height, intents, active = true }: NotificationListProps) {
  const [offset, setOffset] = useState(0);
  // Border (2) + title + footer.
  const visible = Math.max(1, height - 4);
  const top = clampOffset(offset, notes.length, visible);

  useInput(
    (input, key) => {
      if (key.escape || input === 'n' || input === 'q') return intents.closeOverlay();
      if (input === 'c') {
        setOffset(0);
        return intents.clearNotes();
      }
      const move = (to: number) => setOffset(clampOffset(to, notes.length, visible));
      if (key.upArrow || input === 'k') move(top - 1);
      else if (key.downArrow || input === 'j') move(top + 1);
      else if (key.pageUp) move(top - visible);
      else if (key.pageDown || input === ' ') move(top + visible);
      else if (key.home || input === 'g') move(0);
      else if (key.end || input === 'G') move(notes.length);
    },
    { isActive: active },
  );

  const inner = Math.max(1, width - 4);
  const shown = notes.slice(top, top + visible);
  const footer =
    notes.length === 0
      ? 'nothing yet'
      : `${top + 1}–${top + shown.length} of ${notes.length} · ↑↓ PgUp PgDn scroll · c clear · Esc close`;
  return (
    <Box flexDirection="column" width={width} height={height} borderStyle="round" borderColor={theme.help.border} paddingX={1}>
      <Text bold color={theme.help.fg} wrap="truncate">
        Notifications — newest first
      </Text>
      <Box flexDirection="column" height={visible}>
        {shown.map((n) => (
          <Text key={n.id} color={n.kind === 'error' ? theme.error : theme.help.fg} wrap="truncate">
            {padToWidth(`${clock(n.at)} ${NOTE_GLYPH[n.kind]} ${n.text}`, inner)}
          </Text>
        ))}
      </Box>
      <Text color={theme.muted} wrap="truncate">
        {footer}
      </Text>
    </Box>
  );
}
