// What each dashboard key does: a table from the keymap's action names to their handlers, each
// given the dashboard's parts and the focused row. An action the table lacks (the mail view's own
// keys, read by the mail view) says it is not available here.
import type { ActionName } from '../config/keymap.js';
import type { Row } from '../rows/row.js';
import { sanitize } from '../text/sanitize.js';
import { runningCount, type AppState, type RowView } from './app-state.js';
import type { AppStore } from './app-store.js';
import type { ComposerController } from './composer-controller.js';
import { neighbour } from './layout.js';
import type { LayoutSource } from './layout-source.js';
import type { MailNotices } from './mail-notices.js';
import type { MailViewController } from './mail-view-controller.js';
import type { Note } from './note-strip.js';
import type { PasteController } from './paste-controller.js';
import type { RowFlows } from './row-flows.js';
import type { RowMirror } from './row-mirror.js';

/** How many audit entries the audit view shows. */
const AUDIT_VIEW_ENTRIES = 100;

/** The parts of a dashboard the actions work with. */
export interface ActionContext {
  store: AppStore;
  layouts: LayoutSource;
  note: Note;
  composer: ComposerController;
  mailView: MailViewController;
  paste: PasteController | null;
  flows: RowFlows;
  mirror: RowMirror;
  mailNotices: MailNotices;
  themeNames: readonly string[];
  /** The audit view's lines, newest last, and where the full log is. */
  auditLines: (n: number) => string[];
  auditLogPath?: string;
  attach(row: Row): void;
  detach(): void;
  /** The operator leaves this dashboard; the rows run on. */
  leave(): void;
  quit(): void;
}

/** What an action sees when its key is pressed. */
export interface ActionScene {
  state: AppState;
  focused: Row | undefined;
}

type ActionHandler = (c: ActionContext, s: ActionScene) => void;

const focusToward =
  (dir: 'up' | 'down' | 'left' | 'right'): ActionHandler =>
  ({ store, layouts }, { state }) => {
    const next = neighbour(layouts.of(state), state.focused, dir);
    if (next) store.focus(next);
    else store.focusBy(dir === 'up' || dir === 'left' ? -1 : 1);
  };

/** Focuses the next row after the focused one (wrapping) that `wanted` picks, or says there is none. */
const focusNextWhere =
  (wanted: (row: RowView) => boolean, none: string): ActionHandler =>
  ({ store, note }, { state }) => {
    const { rows, focused } = state;
    const start = Math.max(0, rows.findIndex((r) => r.name === focused));
    for (let step = 1; step <= rows.length; step++) {
      const row = rows[(start + step) % rows.length]!;
      if (wanted(row)) return store.focus(row.name);
    }
    note('info', none, null);
  };

/** The focused row's handler; nothing happens without a focused row. */
const withFocused =
  (run: (c: ActionContext, focused: Row, s: ActionScene) => void): ActionHandler =>
  (c, s) => {
    if (s.focused) run(c, s.focused, s);
  };

function auditText(c: ActionContext): string {
  const lines = c.auditLines(AUDIT_VIEW_ENTRIES);
  const where = c.auditLogPath ? `Every byte Switchboard types into a row, newest last (full log: ${sanitize(c.auditLogPath, { singleLine: true, maxChars: 300 })})` : 'Every byte Switchboard types into a row, newest last';
  return [where, '', ...(lines.length > 0 ? lines : ['Nothing typed into any row yet.'])].join('\n');
}

export const DASHBOARD_ACTION_TABLE: { readonly [A in ActionName]?: ActionHandler } = {
  focusNext: ({ store }) => store.focusBy(1),
  focusPrev: ({ store }) => store.focusBy(-1),
  focusUp: focusToward('up'),
  focusDown: focusToward('down'),
  focusLeft: focusToward('left'),
  focusRight: focusToward('right'),
  nextWaiting: focusNextWhere((r) => r.running && r.agentState === 'waiting', 'no row is waiting for you'),
  nextUnread: focusNextWhere((r) => r.unread > 0, 'no row has unread mail'),
  zoom: ({ store }) => store.toggleZoom(),
  layout: ({ store }, { state }) => store.setLayout(state.layoutMode === 'stack' ? 'grid' : 'stack'),
  theme: ({ store, note, themeNames }, { state }) => {
    const i = themeNames.indexOf(state.themeName);
    const next = themeNames[(i + 1) % themeNames.length] ?? state.themeName;
    store.setTheme(next);
    note('info', `theme: ${next}`, null);
  },
  help: ({ store }, { state }) => store.openOverlay(state.overlay === 'help' ? null : 'help'),
  notifications: ({ store }) => store.openOverlay('notifications'),
  compose: ({ composer }) => composer.open(),
  paste: ({ paste }, { focused }) => paste?.pasteInto(focused?.name ?? null),
  mailView: ({ mailView }) => mailView.open(null),
  // The focused row's mail (from or to it); with no row, all mail.
  rowInbox: ({ mailView }, { state }) => mailView.open(state.focused),
  attach: withFocused((c, focused) => c.attach(focused)),
  detach: (c) => c.detach(),
  restart: withFocused(({ flows }, focused) => flows.askRestart(focused)),
  close: withFocused(({ flows }, focused) => flows.askClose(focused)),
  reopen: ({ store, note }) => {
    if (store.getState().closed.length === 0) note('info', 'no row was closed in this dashboard', null);
    else store.openOverlay('reopen');
  },
  detachClient: (c) => c.leave(),
  newRow: ({ store, note, flows }) => {
    if (!flows.canCreateRows) return note('info', 'new rows are started with swb new here', null);
    store.newRowDialog(null);
  },
  history: withFocused(({ store }, focused) => {
    const lines = focused.screen.historyLines().map((l) => sanitize(l, { singleLine: true, maxChars: 1000 }));
    store.showHistory({ row: focused.name, lines });
  }),
  interrupt: withFocused(({ flows }, focused) => flows.interrupt(focused)),
  reviewRow: withFocused(({ flows }, focused) => flows.review(focused)),
  reviewParked: ({ flows }) => flows.pickParked(),
  quit: (c, { state }) => {
    if (runningCount(state) > 0) c.store.openOverlay('quit');
    else c.quit();
  },
  explain: withFocused(({ store, mirror }, focused) => store.openOverlay('explain', mirror.explainText(focused.name))),
  wakePolicy: withFocused(({ flows }, focused) => flows.askWakePolicy(focused)),
  muteRow: withFocused(({ flows }, focused) => flows.toggleMute(focused)),
  resources: ({ store }) => store.openOverlay('resources'),
  usage: ({ store }) => store.openOverlay('usage'),
  auditLog: (c) => c.store.openOverlay('audit', auditText(c)),
  grantBudget: ({ mailNotices }) => mailNotices.grantNewestHeld(),
};

/** Carries out a dashboard action. */
export function runAction(c: ActionContext, action: ActionName, s: ActionScene): void {
  const handler = DASHBOARD_ACTION_TABLE[action];
  if (handler) handler(c, s);
  else c.store.notify('info', `${action}: not available yet`);
}
