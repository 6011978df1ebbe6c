import { Box, useInput } from 'ink';
import React from 'react';
import { runningCount } from '../src/app/app-state.js';
import { useServices } from '../src/app/app-context.js';
import { computeLayout } from '../src/app/layout.js';
import { useAppState } from '../src/app/use-app-state.js';
import { useTheme } from '../src/app/use-theme.js';
import { matchInkInput } from '../src/config/keymap.js';
import { Dashboard } from './Dashboard.js';
import { HelpOverlay } from './HelpOverlay.js';
import { QuitConfirm } from './QuitConfirm.js';
import { StatusBar } from './StatusBar.js';
import { TextOverlay } from './TextOverlay.js';

/** The root: the dashboard chrome, or one full-screen overlay. Keys map to intents here. */
export function App() {
  const { intents, keymap, chromeHeight } = useServices();
  const state = useAppState();
  const theme = useTheme();
  const { cols, rows } = state.size;

  useInput(
    (input, key) => {
      if (state.overlay === 'quit') {
        if (input === 'y' || input === 'Y') intents.confirmQuit(true);
        else if (input === 'n' || input === 'N' || key.escape) intents.confirmQuit(false);
        return;
      }
      if (state.overlay !== null && (key.escape || (state.overlay === 'help' && input === '?'))) {
        intents.closeOverlay();
        return;
      }
      const action = matchInkInput(keymap, input, key);
      if (action) intents.action(action);
      else if (key.escape && state.strip) intents.closeOverlay();
    },
    { isActive: state.attached === null },
  );

  if (state.attached !== null) return null;
  if (state.overlay === 'help') return <HelpOverlay keymap={keymap} theme={theme} width={cols} height={rows} />;
  if (state.overlay === 'quit') return <QuitConfirm running={runningCount(state)} theme={theme} width={cols} height={rows} />;
  if (state.overlay === 'explain' || state.overlay === 'notifications' || state.overlay === 'audit') {
    const title = state.overlay === 'explain' ? `Why ${state.focused ?? ''} is ${state.rows.find((r) => r.name === state.focused)?.agentState ?? 'unknown'}` : state.overlay === 'audit' ? 'Audit log' : 'Notifications';
    const lines = state.overlay === 'notifications' ? state.notes.map((n) => `${new Date(n.at).toLocaleTimeString()}  ${n.text}`) : state.explainText.split('\n');
    return <TextOverlay title={title} lines={lines} theme={theme} width={cols} height={rows} />;
  }
  const layout = computeLayout({
    cols,
    rows,
    names: state.rows.map((r) => r.name),
    focused: state.focused,
    mode: state.layoutMode,
    zoomed: state.zoomed,
    chromeHeight,
  });
  return (
    <Box flexDirection="column" width={cols} height={rows}>
      <Dashboard state={state} layout={layout} theme={theme} height={layout.chrome.y} />
      <StatusBar state={state} theme={theme} keymap={keymap} hidden={layout.hidden.length} />
    </Box>
  );
}
