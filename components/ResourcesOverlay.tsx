// The resources overlay (`r`; reservations, issue #35), full screen: every resource with its
// policy, holders and queue, one line selected. g grants the selected queued ticket, x asks to
// release the selected holder (showing what is known of it first) and y confirms, c picks the
// controller of the selected resource (a row by its digit, o the operator, n none). Its keys are
// its own while it is open; the answers come back from the hub as new statuses and a message line.
import { Box, Text, useInput } from 'ink';
import { entryLine, releaseEvidence } from '../src/app/resource-lines.js';
import { resourceEntries, type ResourcesViewState } from '../src/app/resources-view-state.js';
import type { ResourceIntents } from '../src/app/intents.js';
import type { Theme } from '../src/config/theme.js';
import { OPERATOR } from '../src/protocol/handle.js';
import { sanitize } from '../src/text/sanitize.js';
import { ConfirmBox } from './QuitConfirm.js';

export interface ResourcesOverlayProps {
  view: ResourcesViewState;
  /** The view as it is now (keys that arrive before the next render read it, not the props). */
  current?: () => ResourcesViewState;
  /** The rows, in dashboard order: the controller picker numbers them. */
  rows: readonly string[];
  theme: Theme;
  width: number;
  height: number;
  intents: ResourceIntents;
  active?: boolean;
}

const HINTS = '↑↓ select · g grant · x release (force) · c controller · Esc close';

export function ResourcesOverlay({ view, current, rows, theme, width, height, intents, active = true }: ResourcesOverlayProps) {
  const picks = rows.slice(0, 9);
  useInput(
    (input, key) => {
      const live = current?.() ?? view;
      if (live.confirmRelease) {
        if (input === 'y' || input === 'Y') intents.answerRelease(true);
        else if (input === 'n' || input === 'N' || key.escape) intents.answerRelease(false);
        return;
      }
      if (live.pickController !== null) {
        if (/^[1-9]$/.test(input) && picks[Number(input) - 1] !== undefined) intents.chooseController(picks[Number(input) - 1]);
        else if (input === 'o') intents.chooseController(OPERATOR);
        else if (input === 'n') intents.chooseController(null);
        else if (key.escape) intents.chooseController(undefined);
        return;
      }
      if (key.upArrow || input === 'k') intents.moveResourceSelection(-1);
      else if (key.downArrow || input === 'j') intents.moveResourceSelection(1);
      else if (key.pageUp) intents.moveResourceSelection(-(height - 4));
      else if (key.pageDown) intents.moveResourceSelection(height - 4);
      else if (input === 'g') intents.grantSelected();
      else if (input === 'x') intents.askReleaseSelected();
      else if (input === 'c') intents.askController();
      else if (key.escape || input === 'q') intents.closeOverlay();
    },
    { isActive: active },
  );

  if (view.confirmRelease) {
    const t = view.confirmRelease;
    const lines = [...releaseEvidence(t), 'y: release it · n / Esc: keep it'];
    return <ConfirmBox title={`Release ticket #${t.ticket} of @${sanitize(t.holder, { singleLine: true, maxChars: 64 })}?`} lines={lines} theme={theme} width={width} height={height} />;
  }
  if (view.pickController !== null) {
    const name = sanitize(view.pickController, { singleLine: true, maxChars: 64 });
    const lines = [
      ...picks.map((r, i) => `${i + 1}  @${sanitize(r, { singleLine: true, maxChars: 64 })} grants ${name} by hand`),
      'o  the operator grants it by hand',
      'n  none: the hub grants it in order',
      'Esc: keep it (a change raises the epoch; unused grants of the old one become void)',
    ];
    return <ConfirmBox title={`Controller of ${name}`} lines={lines} theme={theme} width={width} height={height} />;
  }

  const entries = resourceEntries(view.statuses);
  const visible = Math.max(1, height - 5);
  const selected = Math.min(view.selected, Math.max(0, entries.length - 1));
  const top = Math.max(0, Math.min(selected - visible + 1, entries.length - visible));
  const shown = entries.slice(Math.max(0, top), Math.max(0, top) + visible);
  return (
    <Box flexDirection="column" width={width} height={height} borderStyle="round" borderColor={theme.help.border} paddingX={1}>
      <Text bold color={theme.help.fg}>
        Resources — {HINTS}
      </Text>
      {entries.length === 0 ? (
        <Text color={theme.muted} wrap="truncate">No reservations: nothing is held, queued or given a policy (swb run --resource NAME -- CMD).</Text>
      ) : (
        shown.map((e, i) => {
          const at = Math.max(0, top) + i;
          return (
            <Text key={at} color={e.kind === 'resource' ? theme.accent : theme.help.fg} bold={e.kind === 'resource'} inverse={at === selected} wrap="truncate">
              {entryLine(view.statuses, e)}
            </Text>
          );
        })
      )}
      <Box flexGrow={1} />
      {view.message ? (
        <Text color={view.message.kind === 'error' ? theme.error : theme.help.fg} wrap="truncate">
          {view.message.text}
        </Text>
      ) : null}
    </Box>
  );
}
