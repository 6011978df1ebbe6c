// The status bar: lines sized with ink-width.ts (string-width), because Ink lays them out and cuts them by that count.
import { Box, Text } from 'ink';
import type { AppState } from '../src/app/app-state.js';
import { fleetSummary, formatFleetSummary } from '../src/app/fleet-summary.js';
import type { Keymap } from '../src/config/keymap.js';
import { formatKeyCombo } from '../src/config/key-grammar.js';
import type { Theme } from '../src/config/theme.js';
import { inkWidth, padToInkWidth, truncateToInkWidth } from '../src/text/ink-width.js';
import { NOTE_GLYPH } from './NotificationList.js';

export interface StatusBarProps {
  state: AppState;
  theme: Theme;
  keymap: Keymap;
  hidden: number;
}

/**
 * The bottom chrome: the notification strip (with the fleet summary at its right end, where the news
 * leaves room for it), then key hints. Fixed height: the layout never jumps.
 */
export function StatusBar({ state, theme, keymap, hidden }: StatusBarProps) {
  const cols = state.size.cols;
  const key = (action: keyof Keymap['bindings']) => keymap.bindings[action][0];
  const hint = (action: keyof Keymap['bindings'], label: string) => {
    const combo = key(action);
    return combo ? `${formatKeyCombo(combo)} ${label}` : '';
  };
  // More news than the strip shows: say how much, and where it is.
  const unseen = state.unseen > 1 ? `(+${state.unseen - 1} in ${key('notifications') ? formatKeyCombo(key('notifications')!) : 'notes'}) ` : '';
  const strip = state.strip ? `${NOTE_GLYPH[state.strip.kind]} ${unseen}${state.strip.text}` : '';
  const hints = [
    hint('attach', 'attach'),
    hint('compose', 'write'),
    hint('mailView', 'mail'),
    hint('notifications', 'notes'),
    hint('zoom', 'zoom'),
    hint('newRow', 'new'),
    hint('restart', 'restart'),
    hint('help', 'help'),
    hint('detachClient', 'detach'),
    hint('quit', 'quit'),
  ]
    .filter(Boolean)
    .join('  ');
  // First, so a narrow terminal that cuts the hints still says rows are hidden.
  const next = key('focusNext');
  const more = hidden > 0 ? `+${hidden} more${next ? ` (${formatKeyCombo(next)} reaches them)` : ''}  ` : '';
  const stripColors = state.strip?.kind === 'error' ? { fg: theme.error, bg: theme.notification.bg } : theme.notification;
  // News first: the summary takes only the room the strip leaves.
  const news = truncateToInkWidth(` ${strip}`, cols);
  const summary = `${formatFleetSummary(fleetSummary(state.rows))} `;
  const room = cols - inkWidth(news) - inkWidth(summary);
  return (
    <Box flexDirection="column" width={cols} height={2}>
      <Text color={stripColors.fg} backgroundColor={stripColors.bg} wrap="truncate">
        {room >= 2 && summary.trim() !== '' ? (
          <>
            {news}
            {' '.repeat(room)}
            <Text color={theme.muted}>{summary}</Text>
          </>
        ) : (
          padToInkWidth(news, cols)
        )}
      </Text>
      <Text color={theme.muted} wrap="truncate">
        {truncateToInkWidth(` ${more}${hints}`, cols)}
      </Text>
    </Box>
  );
}
