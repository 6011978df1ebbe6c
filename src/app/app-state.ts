// The UI's state as plain, immutable data (herdr's state/actions split): components render it,
// the controller changes it only through the named actions in app-store.ts.
import { initialComposer, type ComposerState, type PeerView } from './composer-state.js';
import type { LayoutMode } from './layout.js';
import { initialMailView, type MailViewState } from './mail-view-state.js';
import type { RowReservations } from './row-reservations.js';
import { initialResourcesView, type ResourcesViewState } from './resources-view-state.js';
import type { RowUsageView } from '../usage/row-usage-view.js';

export type AgentState = 'busy' | 'idle' | 'waiting' | 'exited' | 'unknown';
export type WakePolicy = 'auto' | 'notify' | 'off';

export interface RowView {
  name: string;
  profile: string | null;
  /** The command line as the operator gave it (for the header tooltip and explain). */
  command: string;
  running: boolean;
  exitCode: number | null;
  exitSignal: string | null;
  agentState: AgentState | null;
  /** Why the detector chose agentState (rule id), for explain. */
  stateRule: string | null;
  /** Why a `waiting` row waits (permission, question, idle prompt), when known. */
  waitingReason?: 'permission' | 'question' | 'idle-prompt' | null;
  unread: number;
  /** ms epoch of the last output byte, 0 if none yet. */
  lastOutputAt: number;
  /** The program's window title, already sanitized. */
  title: string;
  wakePolicy: WakePolicy;
  wakeFailed: boolean;
  incarnation: number;
  /** Relaunched from the server's record after it stopped: its agent resumed, or started fresh. */
  restored: 'resumed' | 'fresh' | null;
  /** ms epoch its program exited (the header's age then counts from it), or absent. */
  exitedAt?: number;
  /** A worktree row's git state (branch, ahead/behind its base, dirty), or null. */
  git?: { branch: string; ahead: number; behind: number; dirty: boolean; missing: boolean } | null;
  /** What it holds (⚿) and waits for (⧗) in the hub's reservations; absent: nothing. */
  reservations?: RowReservations | null;
  /** Its notifications are muted (the mute key; the server's, shown on every client). */
  muted?: boolean;
  /** Its agent's usage, cost, context fill, plan windows and budget mark; absent or null: not tracked. */
  usage?: RowUsageView | null;
}

export type NoteKind = 'mail' | 'error' | 'info';

export interface Note {
  id: number;
  at: number;
  kind: NoteKind;
  /** Already sanitized, single line. */
  text: string;
  row: string | null;
  /** For mail: the id of the message it answers, if it is a reply. */
  replyTo?: number;
  /** For mail: the message itself (Enter in the list opens it). */
  mailId?: number;
}

export type Overlay = null | 'help' | 'quit' | 'mail' | 'notifications' | 'explain' | 'audit' | 'confirm' | 'reopen' | 'wakePolicy' | 'newRow' | 'parked' | 'review' | 'history' | 'resources' | 'usage';

/** A question the operator answers y or n before something that ends a running program. */
export interface PendingConfirm {
  action: 'close' | 'restart';
  row: string;
  /** Closing a worktree row: the answer may also remove its worktree (where it is). */
  worktree?: string;
}

/** Mail parked when a row came back as a fresh conversation, waiting for the operator's call. */
export interface ParkedReview {
  row: string;
  count: number;
}

/** A row closed during this dashboard, kept so it can be reopened (newest first). */
export interface ClosedRow {
  name: string;
  command: string;
  profile: string | null;
  at: number;
}

export interface AppState {
  size: { cols: number; rows: number };
  rows: RowView[];
  focused: string | null;
  layoutMode: LayoutMode;
  zoomed: boolean;
  attached: string | null;
  overlay: Overlay;
  themeName: string;
  notes: Note[];
  /** The newest note, shown in the strip until dismissed, replaced, aged out or no longer true. */
  strip: Note | null;
  /** Notes that reached the strip since the notification list was last opened. */
  unseen: number;
  /** Coarse clock for "time since output", updated only when a shown age would change. */
  now: number;
  /** Text for the explain overlay (already sanitized). */
  explainText: string;
  /** The shared composer (drawn over the chrome lines while open). */
  composer: ComposerState;
  /** The mail view (overlay 'mail'). */
  mailView: MailViewState;
  /** Handles the hub knows (for completion and the mail view's filters); refreshed on peer changes. */
  peers: readonly PeerView[];
  /** What the 'confirm' overlay asks about. */
  confirm: PendingConfirm | null;
  /** The row whose wake policy the 'wakePolicy' picker sets. */
  wakePick: string | null;
  /** Rows closed during this dashboard, newest first (the 'reopen' overlay lists them). */
  closed: readonly ClosedRow[];
  /** Why the "new row" dialog's last attempt was refused (null: none yet). */
  newRowProblem: string | null;
  /** What the 'parked' overlay asks about. */
  parked: ParkedReview | null;
  /** The 'history' overlay: a row's kept lines (sanitized), oldest first. */
  history: {
    row: string;
    lines: readonly string[];
    /** Where the last y or s put its text, said in the view at once (seq tells two alike apart). */
    done?: { text: string; seq: number } | null;
  } | null;
  /** The 'review' overlay: a worktree row's changes, ready to paint. */
  review: { row: string; title: string; lines: readonly string[] } | null;
  /** The server's paste buffer (already plain text), for the composer's Ctrl-Y; null when empty. */
  pasteBuffer: string | null;
  /** The hub's reservations as last read (each event reads them again), and the 'resources' overlay's selection. */
  resources: ResourcesViewState;
}

export const MAX_NOTES = 200;

export function initialState(size: { cols: number; rows: number }, layoutMode: LayoutMode, themeName: string): AppState {
  return {
    size,
    rows: [],
    focused: null,
    layoutMode,
    zoomed: false,
    attached: null,
    overlay: null,
    themeName,
    notes: [],
    strip: null,
    unseen: 0,
    now: Date.now(),
    explainText: '',
    composer: initialComposer(),
    mailView: initialMailView(),
    peers: [],
    confirm: null,
    wakePick: null,
    closed: [],
    newRowProblem: null,
    parked: null,
    review: null,
    history: null,
    pasteBuffer: null,
    resources: initialResourcesView(),
  };
}

/**
 * "now", "<1m", "5m", "2h", "3d": the age of the last output. Coarse, and past the first minute
 * counted in whole minutes (hours, days) of the wall clock, so every idle row's label turns at the
 * same instant: an idle dashboard of a hundred rows repaints its headers once a minute, together,
 * not a few rows every second (issue #10: no bytes while nothing changes). `swb ls` has the exact age.
 */
export function formatAge(lastOutputAt: number, now: number): string {
  if (lastOutputAt === 0) return '-';
  const s = Math.max(0, Math.floor((now - lastOutputAt) / 1000));
  if (s < 10) return 'now';
  const minutes = Math.floor(now / 60_000) - Math.floor(lastOutputAt / 60_000);
  if (s < 60 || minutes < 1) return '<1m';
  if (minutes < 60) return `${minutes}m`;
  const hours = Math.floor(now / 3_600_000) - Math.floor(lastOutputAt / 3_600_000);
  if (hours < 24) return `${Math.max(1, hours)}h`;
  return `${Math.max(1, Math.floor(now / 86_400_000) - Math.floor(lastOutputAt / 86_400_000))}d`;
}

/** The cells a header gives its age: "now", "<1m", "59m", "23h" and "99d" all fit. */
export const AGE_CELLS = 3;

/**
 * The age as a header shows it, right-aligned in AGE_CELLS cells ("  -", " 5m"): every turn of the
 * clock from "now" to "99d" keeps its width, so a turn changes those cells and nothing beside them
 * (the header's other parts stay where they are; terminal/header-age-patch.ts rewrites just these).
 */
export function formatAgeField(lastOutputAt: number, now: number): string {
  return formatAge(lastOutputAt, now).padStart(AGE_CELLS);
}

/** The instant a row's header age counts from: its exit once it ended (it may never have printed), else its last output. */
export function ageSince(row: Pick<RowView, 'running' | 'exitedAt' | 'lastOutputAt'>): number {
  return !row.running && row.exitedAt ? row.exitedAt : row.lastOutputAt;
}

/**
 * The first instant at or after `now` when formatAge(lastOutputAt, ·) reads differently from now
 * (Infinity: never). The dashboard wakes then to repaint headers, not every second.
 */
export function nextAgeChange(lastOutputAt: number, now: number): number {
  if (lastOutputAt === 0) return Infinity;
  const s = Math.floor((now - lastOutputAt) / 1000);
  if (s < 10) return lastOutputAt + 10_000;
  const mark = (t: number, unit: number) => (Math.floor(t / unit) + 1) * unit;
  const minutes = Math.floor(now / 60_000) - Math.floor(lastOutputAt / 60_000);
  // '<1m' lasts until a minute has passed and a minute mark too.
  if (s < 60 || minutes < 1) return Math.max(lastOutputAt + 60_000, mark(lastOutputAt, 60_000));
  if (minutes < 60) return mark(now, 60_000);
  const hours = Math.floor(now / 3_600_000) - Math.floor(lastOutputAt / 3_600_000);
  if (hours < 24) return mark(now, 3_600_000);
  return mark(now, 86_400_000);
}

export function runningCount(state: AppState): number {
  return state.rows.filter((r) => r.running).length;
}
