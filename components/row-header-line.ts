// A row's header as one ready-to-paint ANSI line: state, name, profile, unread badge, time since
// output, exit status, and marks (wake off, muted, restored, reservations, git). Drawn by the compositor, not Ink, so a header change costs a string and
// a line write rather than a whole-frame Ink render (idle rows must cost next to nothing).
// Measured with cell-width.ts (the terminal's per-code-point cells), not Ink's string-width: Ink never
// lays this line out, and it has to fill exactly its cells on the terminal, beside a row's screen.
import { AGE_CELLS, ageSince, formatAgeField, type RowView } from '../src/app/app-state.js';
import type { Theme } from '../src/config/theme.js';
import type { RenderedHeader } from '../src/terminal/header-age-patch.js';
import { sgr } from '../src/terminal/sgr-color.js';
import { sanitize } from '../src/text/sanitize.js';
import { padToWidth, truncateToWidth, cellWidth } from '../src/text/cell-width.js';
import { HEADER_LEFT_KEEP, usageHeaderPart } from './row-header-usage.js';

const STATE_GLYPH: Record<string, string> = { busy: '◐', idle: '●', waiting: '?', exited: '■', unknown: '○' };

export interface RowHeaderInput {
  row: RowView;
  width: number;
  focused: boolean;
  now: number;
  theme: Theme;
}

/** Plain text parts, for tests and for width decisions. */
export function rowHeaderParts({ row, now }: Pick<RowHeaderInput, 'row' | 'now'>): { left: string; badge: string; right: string; state: string } {
  const state = row.running ? (row.agentState ?? 'unknown') : 'exited';
  const exit = row.running ? '' : row.exitSignal ? ` ${row.exitSignal}` : ` exit ${row.exitCode ?? '?'}`;
  const policy = row.wakePolicy === 'off' ? ' · wake off' : '';
  // Muted (the mute key): nothing about this row reaches the operator's desktop or command.
  const muted = row.muted ? ' · muted' : '';
  // Relaunched by a server that started again: the operator should know the program is new.
  const restored = row.restored === 'resumed' ? ' · restored (resumed)' : row.restored === 'fresh' ? ' · restored' : '';
  // The profile is said once: a row named after its profile (claude) does not repeat it.
  const profile = row.profile && row.profile !== row.name ? ` · ${row.profile}` : '';
  // Why it waits: a human is needed (permission, question), or it sits at an idle prompt.
  const reason = state === 'waiting' && row.waitingReason ? ` (${row.waitingReason})` : '';
  const left = ` ${STATE_GLYPH[state] ?? '○'} ${row.name}${profile} · ${state}${reason}${exit}${row.wakeFailed ? ' · wake failed' : ''}${policy}${muted}${restored}${reservationPart(row.reservations)}${gitPart(row.git)}`;
  const badge = row.unread > 0 ? ` ✉ ${row.unread} ` : '';
  // Right-aligned in a field of its own width: a turn of the clock changes only its cells.
  const right = ` ${formatAgeField(ageSince(row), now)} `;
  return { left, badge, right, state };
}

/** Room for one mark's names: a long list is cut (…), the overlay has them all. */
const MARK_MAX_CELLS = 24;

/** ⚿ what the row holds, ⧗ what it waits for (reservations, issue #35). */
function reservationPart(r: RowView['reservations']): string {
  if (!r) return '';
  // Resource names pass the hub's name rule, but they are peers' text all the same.
  const mark = (glyph: string, names: readonly string[]) =>
    names.length === 0 ? '' : ` ${glyph} ${truncateToWidth(sanitize(names.join(','), { singleLine: true, maxChars: 200 }), MARK_MAX_CELLS)}`;
  const part = `${mark('⚿', r.held)}${mark('⧗', r.waiting)}`;
  return part ? ` ·${part}` : '';
}

/** A worktree row's branch, commits ahead (↑) and behind (↓) its base branch, and * when it has uncommitted changes. */
function gitPart(git: RowView['git']): string {
  if (!git) return '';
  // A branch name is the agent's to choose: data, like any peer text.
  const branch = sanitize(git.branch, { singleLine: true, maxChars: 60 });
  if (git.missing) return ` · ${branch} (worktree gone)`;
  const counts = `${git.ahead > 0 ? ` ↑${git.ahead}` : ''}${git.behind > 0 ? ` ↓${git.behind}` : ''}`;
  return ` · ${branch}${counts}${git.dirty ? ' *' : ''}`;
}

export function rowHeaderLine(input: RowHeaderInput): string {
  return rowHeader(input).line;
}

/** Trailing bytes of every header line: the reset after its last part. */
const LINE_END = '\x1b[0m';

/**
 * The header line and where its age field sits (the age's last cell is one before the line's
 * end, in the header's own colours): the dashboard rewrites just that field at the clock's turn
 * (src/terminal/header-age-patch.ts). A header too narrow for its parts has no such place.
 */
export function rowHeader(input: RowHeaderInput): RenderedHeader {
  const { width, focused, theme } = input;
  const { left, badge, right, state } = rowHeaderParts(input);
  const colors = focused ? theme.header.focused : theme.header.unfocused;
  const base = sgr({ fg: colors.fg, ...(colors.bg ? { bg: colors.bg } : {}), bold: focused });
  // Usage (#38) takes what the name and state leave; it goes first when the header is narrow.
  const usage = usageHeaderPart(input.row.usage, width - cellWidth(badge) - cellWidth(right) - Math.min(cellWidth(left), HEADER_LEFT_KEEP));
  const room = Math.max(0, width - cellWidth(badge) - cellWidth(right) - usage.length);
  if (room === 0) return { line: base + padToWidth(truncateToWidth(left, width), width) + LINE_END, age: null };
  // The state word takes its theme colour; everything else the header's.
  const main = padToWidth(truncateToWidth(left, room), room);
  const stateColor = theme.state[state as keyof Theme['state']] ?? colors.fg;
  const at = main.indexOf(` · ${state}`);
  const painted =
    at >= 0 && !focused
      ? `${main.slice(0, at + 3)}${sgr({ fg: stateColor, ...(colors.bg ? { bg: colors.bg } : {}) })}${state}${base}${main.slice(at + 3 + state.length)}`
      : main;
  const badgePart = badge ? `${sgr({ fg: theme.unread.fg, ...(theme.unread.bg ? { bg: theme.unread.bg } : {}), bold: true })}${badge}${base}` : '';
  const line = `${base}${painted}${usage}${badgePart}${right}${LINE_END}`;
  // `right` is " " + the field + " ", in the header's colours (the badge ends by restoring them).
  const field = right.slice(1, -1);
  const fits = field.length === AGE_CELLS;
  return { line, age: fits ? { index: line.length - LINE_END.length - 1 - field.length, column: width - 1 - field.length, text: field, style: base } : null };
}
