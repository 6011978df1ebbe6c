import { Box, useInput } from 'ink';
import { runningCount, type WakePolicy } from '../src/app/app-state.js';
import { useServices } from '../src/app/app-context.js';
import { useAppState } from '../src/app/use-app-state.js';
import { useTheme } from '../src/app/use-theme.js';
import { keysLabel } from '../src/config/keymap.js';
import { matchInkInput } from '../src/config/match-ink-input.js';
import { sanitize } from '../src/text/sanitize.js';
import { Composer } from './Composer.js';
import { HelpOverlay } from './HelpOverlay.js';
import { NewRowDialog } from './NewRowDialog.js';
import { ResourcesOverlay } from './ResourcesOverlay.js';
import { UsageOverlay } from './UsageOverlay.js';
import { ReviewOverlay } from './ReviewOverlay.js';
import { HistoryView } from './HistoryView.js';
import { MailView } from './MailView.js';
import { NotificationList } from './NotificationList.js';
import { ConfirmBox, QuitConfirm } from './QuitConfirm.js';
import { StatusBar } from './StatusBar.js';
import { TextOverlay } from './TextOverlay.js';

const WAKE_CHOICES: ReadonlyArray<{ policy: WakePolicy; keys: string; meaning: string }> = [
  { policy: 'auto', keys: '1 a', meaning: 'type the wake line once its prompt is free' },
  { policy: 'notify', keys: '2 n', meaning: 'only show new mail here' },
  { policy: 'off', keys: '3 o', meaning: 'never wake it' },
];
const WAKE_KEYS: Readonly<Record<string, WakePolicy>> = { '1': 'auto', a: 'auto', '2': 'notify', n: 'notify', '3': 'off', o: 'off' };

/**
 * The root: the dashboard chrome, or one full-screen overlay. Keys map to intents here, except while
 * the composer, the mail view or the notification list has the keyboard (each reads its own keys).
 */
export function App() {
  const { intents, keymap, chromeHeight, layouts, profileIds, cwd, resources, store } = useServices();
  const state = useAppState();
  const theme = useTheme();
  const { cols, rows } = state.size;
  const composing = state.composer.open && state.attached === null;
  const ownKeys = state.overlay === 'mail' || state.overlay === 'notifications' || state.overlay === 'newRow' || state.overlay === 'review' || state.overlay === 'history' || state.overlay === 'resources';

  useInput(
    (input, key) => {
      if (state.overlay === 'quit' && matchInkInput(keymap, input, key) === 'detachClient') {
        // Leaving instead of quitting: the rows run on.
        intents.closeOverlay();
        intents.action('detachClient');
        return;
      }
      if (state.overlay === 'parked') {
        if (input === 'y' || input === 'Y') intents.rows.reviewParked(true);
        else if (input === 'd' || input === 'D') intents.rows.reviewParked(false);
        else if (key.escape || input === 'n' || input === 'N') intents.rows.reviewParked(null);
        return;
      }
      if (state.overlay === 'confirm' && state.confirm?.worktree && (input === 'w' || input === 'W')) {
        intents.rows.confirmRow(true, true);
        return;
      }
      if (state.overlay === 'quit' || state.overlay === 'confirm') {
        const answer = state.overlay === 'quit' ? (yes: boolean) => intents.confirmQuit(yes) : (yes: boolean) => intents.rows.confirmRow(yes);
        if (input === 'y' || input === 'Y') answer(true);
        else if (input === 'n' || input === 'N' || key.escape) answer(false);
        return;
      }
      if (state.overlay === 'wakePolicy') {
        const picked = Object.hasOwn(WAKE_KEYS, input) ? WAKE_KEYS[input] : undefined;
        if (picked) intents.rows.pickWakePolicy(picked);
        else if (key.escape) intents.rows.pickWakePolicy(null);
        return;
      }
      if (state.overlay === 'reopen' && /^[1-9]$/.test(input)) {
        intents.rows.reopenRow(Number(input) - 1);
        return;
      }
      if (state.overlay !== null && (key.escape || (state.overlay === 'help' && input === '?'))) {
        intents.closeOverlay();
        return;
      }
      const action = matchInkInput(keymap, input, key);
      // The composer is drawn on the dashboard, not over a full-screen overlay (explain, help, audit,
      // usage, reopen): opened under one, it took every key unseen, Esc included, and the dashboard
      // seemed frozen. The overlay gives way to it.
      if (action === 'compose' && state.overlay !== null) intents.closeOverlay();
      if (action === 'compose' && input === '@') intents.composer.openAtMention();
      else if (action) intents.action(action);
      else if (key.escape && state.strip) intents.closeOverlay();
    },
    { isActive: state.attached === null && !composing && !ownKeys },
  );

  if (state.attached !== null) return null;
  const composer = composing ? (
    <Composer
      composer={state.composer}
      rows={state.rows}
      peers={state.peers}
      strip={state.strip}
      theme={theme}
      width={cols}
      intents={intents.composer}
      pasteText={state.pasteBuffer}
    />
  ) : null;
  if (state.overlay === 'mail') {
    const height = Math.max(3, rows - (composer ? chromeHeight : 0));
    return (
      <Box flexDirection="column" width={cols} height={rows}>
        <MailView mailView={state.mailView} theme={theme} width={cols} height={height} intents={intents.mailView} composer={intents.composer} keymap={keymap} active={!composing} />
        {composer}
      </Box>
    );
  }
  if (state.overlay === 'notifications') {
    return <NotificationList notes={state.notes} theme={theme} width={cols} height={rows} intents={intents} active={!composing} />;
  }
  if (state.overlay === 'resources' && resources) {
    return (
      <ResourcesOverlay
        view={state.resources}
        current={() => store.getState().resources}
        rows={state.rows.map((r) => r.name)}
        theme={theme}
        width={cols}
        height={rows}
        intents={resources}
        active={!composing}
      />
    );
  }
  if (state.overlay === 'usage') return <UsageOverlay rows={state.rows} focused={state.focused} now={Date.now()} theme={theme} width={cols} height={rows} />;
  if (state.overlay === 'help') return <HelpOverlay keymap={keymap} theme={theme} width={cols} height={rows} />;
  if (state.overlay === 'quit') return <QuitConfirm running={runningCount(state)} detachKey={keysLabel(keymap, 'detachClient', 1)} theme={theme} width={cols} height={rows} />;
  if (state.overlay === 'confirm' && state.confirm) {
    const { action, row, worktree } = state.confirm;
    const later = action === 'close' ? ` (${keysLabel(keymap, 'reopen', 1)} reopens it later)` : '';
    const running = state.rows.find((r) => r.name === row)?.running ?? false;
    const lines = [
      running ? `@${row} is still running; ${action === 'close' ? 'closing' : 'restarting'} it ends its program${later}.` : `@${row} has exited.`,
      ...(worktree ? [`Its worktree: ${sanitize(worktree, { singleLine: true, maxChars: 200 })}`] : []),
      worktree ? 'y: close, keep the worktree · w: close and remove the worktree (refused if work would be lost) · n / Esc: keep it' : `y: ${action} · n / Esc: keep it`,
    ];
    return <ConfirmBox title={`${action === 'close' ? 'Close' : 'Restart'} @${row}?`} lines={lines} theme={theme} width={cols} height={rows} />;
  }
  if (state.overlay === 'wakePolicy' && state.wakePick !== null) {
    const current = state.rows.find((r) => r.name === state.wakePick)?.wakePolicy;
    const lines = WAKE_CHOICES.map((c) => `${c.policy === current ? '●' : '○'} ${c.keys}  ${c.policy.padEnd(6)} ${c.meaning}`);
    return <ConfirmBox title={`Wake policy of @${state.wakePick}`} lines={[...lines, 'Esc: keep it']} theme={theme} width={cols} height={rows} />;
  }
  if (state.overlay === 'newRow') {
    return (
      <NewRowDialog
        theme={theme}
        width={cols}
        height={rows}
        defaultCwd={cwd ?? '.'}
        profiles={profileIds ?? []}
        problem={state.newRowProblem}
        onSubmit={(r) => intents.rows.createRow(r)}
        onCancel={() => intents.closeOverlay()}
      />
    );
  }
  if (state.overlay === 'history' && state.history) {
    return (
      <HistoryView
        row={state.history.row}
        lines={state.history.lines}
        theme={theme}
        width={cols}
        height={rows}
        onClose={() => intents.closeOverlay()}
        onCopy={(text) => intents.copyFromHistory(text)}
        onSave={() => intents.saveHistory()}
        done={state.history.done ?? null}
      />
    );
  }
  if (state.overlay === 'review' && state.review) {
    return (
      <ReviewOverlay
        title={state.review.title}
        lines={state.review.lines}
        theme={theme}
        width={cols}
        height={rows}
        onClose={() => intents.closeOverlay()}
        onCompose={() => intents.rows.composeAboutReview()}
      />
    );
  }
  if (state.overlay === 'parked' && state.parked) {
    const { row, count } = state.parked;
    const lines = [
      `@${row} came back as a new conversation. ${count} unread message${count === 1 ? '' : 's'} sent to its old one`,
      'wait for you: the new conversation has never seen them.',
      'y: hand them to it (it is woken for them) · d: discard them (senders see expired) · Esc: later',
    ];
    return <ConfirmBox title={`Parked mail of @${row}`} lines={lines} theme={theme} width={cols} height={rows} />;
  }
  if (state.overlay === 'reopen') {
    const lines = state.closed.map((c, i) => sanitize(`${i + 1}  @${c.name}  ${c.profile ? `${c.profile} · ` : ''}${c.command}`, { singleLine: true, maxChars: 300 }));
    return <TextOverlay title="Recently closed — a digit reopens that row" lines={lines} theme={theme} width={cols} height={rows} />;
  }
  if (state.overlay === 'explain' || state.overlay === 'audit') {
    const title = state.overlay === 'explain' ? `Why ${state.focused ?? ''} is ${state.rows.find((r) => r.name === state.focused)?.agentState ?? 'unknown'}` : 'Audit log — what Switchboard typed into rows';
    return <TextOverlay title={title} lines={state.explainText.split('\n')} theme={theme} width={cols} height={rows} />;
  }
  const layout = layouts.of(state);
  // On the dashboard Ink draws only the chrome lines at the bottom; the compositor paints the row
  // headers and screens above them (a full-height Ink frame would cost a whole-screen render per change).
  return (
    <Box flexDirection="column" width={cols} height={layout.chrome.height}>
      {composer ?? <StatusBar state={state} theme={theme} keymap={keymap} hidden={layout.hidden.length} />}
    </Box>
  );
}
