// Every action an operator's key can trigger, one record each: where its keys apply (the dashboard, or the mail
// view in a scope of its own), its default keys, and its line in the help overlay. `ActionName` is this table's
// keys, so an action exists once; the keymap (keymap.ts) is built from it, the config schema offers its names
// and the help overlay reads its descriptions in this order (dashboard first).
//
// The detach key — default Ctrl-\ (0x1C, FS):
//   While attached, every key goes to the agent except this one, so it must be something no agent, editor
//   or shell the operator runs in a row needs. Taken elsewhere: Ctrl-a (readline/emacs line start, screen's
//   prefix), Ctrl-b (tmux prefix, readline back, Claude Code background task), Ctrl-c/d/z (interrupt, EOF,
//   suspend), Ctrl-e/f/k/u/w/y/h/n/p (readline editing, also in Gemini/Codex composers), Ctrl-g (Claude Code
//   and Codex external editor), Ctrl-j (newline in Claude Code/Codex/Gemini), Ctrl-l (clear), Ctrl-o
//   (Claude Code transcript, Gemini show more), Ctrl-q/s (flow control, Gemini copy mode), Ctrl-r (history
//   search everywhere), Ctrl-t (Claude Code todos, Codex transcript, Gemini todos), Ctrl-v (paste image,
//   readline quoted insert), Ctrl-x (readline prefix, Gemini editor), Ctrl-[ (is ESC), Ctrl-] (vim tag
//   jump, bash character-search, telnet escape), Ctrl-^ (vim alternate file), Ctrl-_ (undo in readline
//   and Claude Code), Ctrl-@ (set mark).
//   Ctrl-\ is unbound in Claude Code, Codex and Gemini CLI, unbound in readline (in cooked mode the tty
//   turns it into SIGQUIT, which an operator has no reason to send to an agent), and in vim only starts the
//   rarely typed Ctrl-\ Ctrl-N / Ctrl-G escapes. dtach and abduco use it as their detach key for the same
//   reasons. It is remappable (`detachKey` or `keys.detach`); it must be a ctrl/alt chord or a function key.

/** Where an action's keys apply. Keys must be unique within a scope, not across scopes. */
export type KeyScope = 'dashboard' | 'mailView';
export const KEY_SCOPES: readonly KeyScope[] = ['dashboard', 'mailView'];
export const SCOPE_TITLES: Readonly<Record<KeyScope, string>> = { dashboard: 'Dashboard', mailView: 'Mail view' };

/** What each action carries. `keys` are key strings in key-grammar.ts's syntax. */
export interface KeyAction {
  scope: KeyScope;
  /** The default keys, in the order the help overlay and footer hints show them. */
  keys: readonly string[];
  /** One line for the help overlay. */
  description: string;
}

const TABLE = {
  focusNext: { scope: 'dashboard', keys: ['tab'], description: 'Focus the next row' },
  focusPrev: { scope: 'dashboard', keys: ['shift+tab'], description: 'Focus the previous row' },
  focusUp: { scope: 'dashboard', keys: ['up', 'k'], description: 'Focus the row above' },
  focusDown: { scope: 'dashboard', keys: ['down', 'j'], description: 'Focus the row below' },
  focusLeft: { scope: 'dashboard', keys: ['left', 'h'], description: 'Focus the row to the left (grid)' },
  focusRight: { scope: 'dashboard', keys: ['right', 'l'], description: 'Focus the row to the right (grid)' },
  zoom: { scope: 'dashboard', keys: ['z'], description: 'Zoom the focused row / back to all rows' },
  attach: { scope: 'dashboard', keys: ['enter'], description: 'Attach: type straight into the focused row' },
  detach: { scope: 'dashboard', keys: ['ctrl+\\'], description: 'Detach from the attached row (the only key not sent to it)' },
  restart: { scope: 'dashboard', keys: ['R'], description: 'Restart the focused row' },
  close: { scope: 'dashboard', keys: ['X'], description: 'Close the focused row' },
  layout: { scope: 'dashboard', keys: ['g'], description: 'Switch layout (stack / grid)' },
  theme: { scope: 'dashboard', keys: ['t'], description: 'Next theme' },
  help: { scope: 'dashboard', keys: ['?'], description: 'Show these key bindings' },
  compose: { scope: 'dashboard', keys: ['c', '@'], description: 'Write a message (@ opens it with the peers offered)' },
  paste: { scope: 'dashboard', keys: ['p'], description: 'Paste the paste buffer (y in a history view) into the focused row' },
  mailView: { scope: 'dashboard', keys: ['i'], description: 'Open the mail view' },
  rowInbox: { scope: 'dashboard', keys: ['I'], description: 'Open the focused row’s inbox' },
  notifications: { scope: 'dashboard', keys: ['n'], description: 'Show notifications' },
  muteRow: { scope: 'dashboard', keys: ['M'], description: 'Mute / unmute the focused row’s notifications (desktop and command)' },
  explain: { scope: 'dashboard', keys: ['e'], description: 'Explain the focused row’s state' },
  wakePolicy: { scope: 'dashboard', keys: ['w'], description: 'Pick the focused row’s wake policy (auto / notify / off)' },
  resources: { scope: 'dashboard', keys: ['r'], description: 'Reservations: holders, queues; grant, release, set a controller' },
  usage: { scope: 'dashboard', keys: ['$'], description: 'Usage: tokens, cost, context fill, plan windows and budgets of every agent row' },
  auditLog: { scope: 'dashboard', keys: ['a'], description: 'Show what Switchboard typed into rows' },
  grantBudget: { scope: 'dashboard', keys: ['G'], description: 'Grant the newest held pair of rows another reply budget' },
  reopen: { scope: 'dashboard', keys: ['O'], description: 'Reopen a row closed while this server runs' },
  nextWaiting: { scope: 'dashboard', keys: ['W'], description: 'Focus the next row waiting for you (a question or dialog)' },
  nextUnread: { scope: 'dashboard', keys: ['u'], description: 'Focus the next row with unread mail' },
  newRow: { scope: 'dashboard', keys: ['N'], description: 'Start a new row (name, profile or command, working directory)' },
  reviewParked: { scope: 'dashboard', keys: ['V'], description: 'Review mail parked when a row came back as a new conversation' },
  reviewRow: { scope: 'dashboard', keys: ['D'], description: "Review a worktree row's changes since its base (diff, stats)" },
  history: { scope: 'dashboard', keys: ['[', 'pageup'], description: "The focused row's history: scroll, search (/), copy (y), save (s)" },
  interrupt: { scope: 'dashboard', keys: ['K'], description: "Interrupt the focused agent's turn (its profile's interrupt key)" },
  detachClient: { scope: 'dashboard', keys: ['d'], description: 'Leave the dashboard; every row runs on (swb attach comes back)' },
  quit: { scope: 'dashboard', keys: ['q'], description: 'Quit Switchboard: end every row and the server' },
  // The mail view's own keys: a scope of their own, so they may reuse dashboard keys (c, i, q, g ...).
  mailUp: { scope: 'mailView', keys: ['up', 'k'], description: 'Select the message above' },
  mailDown: { scope: 'mailView', keys: ['down', 'j'], description: 'Select the message below' },
  mailPageUp: { scope: 'mailView', keys: ['pageup'], description: 'A page up' },
  mailPageDown: { scope: 'mailView', keys: ['pagedown', 'space'], description: 'A page down' },
  mailFirst: { scope: 'mailView', keys: ['home', 'g'], description: 'The newest thread' },
  mailLast: { scope: 'mailView', keys: ['end', 'G'], description: 'The oldest loaded message' },
  mailOpen: { scope: 'mailView', keys: ['enter', 'o'], description: 'Open / close the selected message' },
  mailReply: { scope: 'mailView', keys: ['r'], description: 'Reply to the selected message' },
  mailMarkRead: { scope: 'mailView', keys: ['m'], description: 'Mark the selected message read' },
  mailMarkAllRead: { scope: 'mailView', keys: ['M'], description: 'Mark all read (yours, or the filtered row’s)' },
  mailFilterNext: { scope: 'mailView', keys: ['f'], description: 'Next filter (all mail, then each row)' },
  mailFilterPrev: { scope: 'mailView', keys: ['F'], description: 'Previous filter' },
  mailCompose: { scope: 'mailView', keys: ['c', '@'], description: 'Write a new message' },
  mailBack: { scope: 'mailView', keys: ['escape'], description: 'Close the open message, else the mail view' },
  mailClose: { scope: 'mailView', keys: ['q', 'i'], description: 'Close the mail view' },
} as const satisfies Record<string, KeyAction>;

export type ActionName = keyof typeof TABLE;

/** Every action's record, by name. */
export const KEY_ACTIONS: Readonly<Record<ActionName, KeyAction>> = TABLE;

/** Every action name, in the table's order (dashboard first). */
export const ACTIONS = Object.keys(TABLE) as readonly ActionName[];

export function scopeOf(action: ActionName): KeyScope {
  return TABLE[action].scope;
}

export function isActionName(value: string): value is ActionName {
  return (ACTIONS as readonly string[]).includes(value);
}
