import { Text } from 'ink';
import React from 'react';
import { formatAge, type RowView } from '../src/app/app-state.js';
import type { Theme } from '../src/config/theme.js';
import { padToWidth, truncateToWidth } from '../src/text/cell-width.js';

export interface RowHeaderProps {
  row: RowView;
  width: number;
  focused: boolean;
  now: number;
  theme: Theme;
}

const STATE_GLYPH: Record<string, string> = { busy: '◐', idle: '●', waiting: '?', exited: '■', unknown: '○' };

/** One line: name, profile, state, unread badge, time since output, exit status. */
export function RowHeader({ row, width, focused, now, theme }: RowHeaderProps) {
  const colors = focused ? theme.header.focused : theme.header.unfocused;
  const state = row.running ? (row.agentState ?? 'unknown') : 'exited';
  const exit = row.running ? '' : row.exitSignal ? ` signal ${row.exitSignal}` : ` exit ${row.exitCode ?? '?'}`;
  const left = ` ${STATE_GLYPH[state] ?? '○'} ${row.name}${row.profile ? ` · ${row.profile}` : ''} · ${state}${exit}${row.wakeFailed ? ' · wake failed' : ''}`;
  const badge = row.unread > 0 ? ` ✉ ${row.unread} ` : '';
  const right = ` ${formatAge(row.lastOutputAt, now)} `;
  const room = Math.max(0, width - badge.length - right.length);
  const main = padToWidth(truncateToWidth(left, room), room);
  return (
    <Text backgroundColor={colors.bg} color={colors.fg} wrap="truncate">
      <Text bold={focused}>{main}</Text>
      {badge ? (
        <Text backgroundColor={theme.unread.bg} color={theme.unread.fg} bold>
          {badge}
        </Text>
      ) : null}
      <Text>{right}</Text>
    </Text>
  );
}
