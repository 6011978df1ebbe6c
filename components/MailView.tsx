// The mail view: lines sized with ink-width.ts (string-width), because Ink lays them out and cuts them by that count.
import { Box, Text, useInput } from 'ink';
import { useMemo, useRef } from 'react';
import type { ComposerIntents, MailViewIntents } from '../src/app/intents.js';
import type { MailViewState } from '../src/app/mail-view-state.js';
import { buildThreads, mailDetailLines, mailLineView, shownHandle } from '../src/app/mail-view-threads.js';
import { followSelection } from '../src/app/scroll-window.js';
import { defaultKeymap, keysLabel, type ActionName, type Keymap } from '../src/config/keymap.js';
import { matchInkInput } from '../src/config/match-ink-input.js';
import type { Theme } from '../src/config/theme.js';
import { inkWidth, padToInkWidth, truncateToInkWidth } from '../src/text/ink-width.js';

export interface MailViewProps {
  mailView: MailViewState;
  theme: Theme;
  width: number;
  height: number;
  intents: MailViewIntents;
  /** c and @ write a new message. */
  composer: Pick<ComposerIntents, 'open' | 'openAtMention'>;
  /** The operator's keys (the mail view's scope); the defaults when not given. */
  keymap?: Keymap;
  active?: boolean;
}

/** Load the next page when the selection comes this close to the end of what is loaded. */
const PREFETCH = 10;
const DEFAULT_KEYMAP = defaultKeymap();

/** The footer's key hints, from the current bindings (an unbound action is left out). */
function footer(keymap: Keymap): string {
  const hint = (label: string, ...actions: ActionName[]) => {
    const keys = actions.map((a) => keysLabel(keymap, a, 1)).filter((k) => k !== '');
    return keys.length === 0 ? '' : `${keys.join('/')} ${label}`;
  };
  return [
    hint('move', 'mailUp', 'mailDown'),
    hint('open', 'mailOpen'),
    hint('reply', 'mailReply'),
    hint('mark read', 'mailMarkRead'),
    hint('filter', 'mailFilterNext', 'mailFilterPrev'),
    hint('compose', 'mailCompose'),
    hint('close', 'mailBack'),
  ]
    .filter((h) => h !== '')
    .join(' · ');
}

/**
 * All mail as threads (newest activity first), paged from the store as the selection nears the end.
 * Enter opens a message below the list (and marks the operator's copy read).
 */
export function MailView({ mailView, theme, width, height, intents, composer, keymap = DEFAULT_KEYMAP, active = true }: MailViewProps) {
  const lines = useMemo(() => buildThreads(mailView.entries), [mailView.entries]);
  const found = mailView.selectedId === null ? -1 : lines.findIndex((l) => l.entry.id === mailView.selectedId);
  const index = found < 0 ? 0 : found;
  const opened = mailView.openId === null ? undefined : mailView.entries.find((e) => e.id === mailView.openId);

  // Border (2) + title + footer; an opened message takes the lower part.
  const inner = Math.max(1, height - 4);
  const listHeight = opened ? Math.max(1, Math.min(lines.length, Math.floor(inner * 0.4))) : inner;
  const detailHeight = opened ? Math.max(0, inner - listHeight - 1) : 0;
  const offsetRef = useRef(0);
  const top = followSelection(offsetRef.current, index, lines.length, listHeight);
  offsetRef.current = top;

  useInput(
    (input, key) => {
      const current = lines[index];
      const go = (to: number) => {
        if (lines.length === 0) return;
        const next = Math.max(0, Math.min(lines.length - 1, to));
        intents.select(lines[next]!.entry.id);
        if (mailView.hasMore && next >= lines.length - PREFETCH) intents.loadPage();
      };
      switch (matchInkInput(keymap, input, key, 'mailView')) {
        case 'mailBack':
          if (mailView.openId !== null) intents.toggle(mailView.openId);
          else intents.close();
          return;
        case 'mailClose':
          return intents.close();
        case 'mailUp':
          return go(index - 1);
        case 'mailDown':
          return go(index + 1);
        case 'mailPageUp':
          return go(index - listHeight);
        case 'mailPageDown':
          return go(index + listHeight);
        case 'mailFirst':
          return go(0);
        case 'mailLast':
          return go(lines.length - 1);
        case 'mailFilterNext':
          return intents.cycleFilter(1);
        case 'mailFilterPrev':
          return intents.cycleFilter(-1);
        case 'mailCompose':
          return input === '@' ? composer.openAtMention() : composer.open();
        case 'mailOpen':
          if (current) intents.toggle(current.entry.id);
          return;
        case 'mailReply':
          if (current) intents.reply(current.entry.id);
          return;
        case 'mailMarkRead':
          if (current) intents.markRead(current.entry.id);
          return;
        case 'mailMarkAllRead':
          return intents.markAllRead();
        default:
          return;
      }
    },
    { isActive: active },
  );

  const innerWidth = Math.max(1, width - 4);
  const scope = mailView.filter === null ? 'all mail' : `@${shownHandle(mailView.filter)}`;
  const count = `${mailView.entries.length}${mailView.hasMore ? '+' : ''} message${mailView.entries.length === 1 ? '' : 's'}`;
  const shown = lines.slice(top, top + listHeight);
  const detail = opened ? mailDetailLines(opened, Math.max(1, detailHeight - 3)) : null;

  return (
    <Box flexDirection="column" width={width} height={height} borderStyle="round" borderColor={theme.help.border} paddingX={1}>
      <Text bold color={theme.help.fg} wrap="truncate">
        {`Mail — ${scope} · ${count}`}
      </Text>
      <Box flexDirection="column" height={listHeight}>
        {lines.length === 0 ? (
          <Text color={theme.muted}>{mailView.filter === null ? 'No mail yet.' : `No mail from or to ${scope}.`}</Text>
        ) : (
          shown.map((l, i) => {
            const v = mailLineView(l, mailView.filter);
            const badge = v.badge ? ` ${v.badge}` : '';
            const main = `${v.unread ? '●' : ' '} ${v.prefix}${v.head} [${v.kind}] ${v.preview}`;
            const selected = top + i === index;
            return (
              <Text key={v.id} inverse={selected} bold={v.unread} color={theme.help.fg} wrap="truncate">
                {padToInkWidth(truncateToInkWidth(main, Math.max(1, innerWidth - inkWidth(badge))), Math.max(1, innerWidth - inkWidth(badge)))}
                <Text color={selected ? undefined : theme.muted}>{badge}</Text>
              </Text>
            );
          })
        )}
      </Box>
      {detail ? (
        <Box flexDirection="column" height={detailHeight + 1} overflow="hidden">
          <Text color={theme.border.unfocused}>{'─'.repeat(innerWidth)}</Text>
          {detail.header.map((line, i) => (
            <Text key={`h${i}`} color={i === 0 ? theme.accent : theme.muted} wrap="truncate">
              {line}
            </Text>
          ))}
          {detail.body.map((line, i) => (
            <Text key={`b${i}`} color={theme.help.fg} wrap="wrap">
              {line || ' '}
            </Text>
          ))}
        </Box>
      ) : null}
      <Text color={theme.muted} wrap="truncate">
        {footer(keymap)}
      </Text>
    </Box>
  );
}
