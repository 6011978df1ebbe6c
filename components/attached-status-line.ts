// The one line under an attached row (issue #11 defect 4): which row, its state and unread mail,
// the newest notification (mail for the operator, a row waiting) and the detach key, so attached
// mode is never blind. Plain ANSI painted by the compositor, like the row headers, so measured like them
// with cell-width.ts (the terminal's per-code-point cells), not Ink's string-width.
import type { AppState } from '../src/app/app-state.js';
import type { Theme } from '../src/config/theme.js';
import { sgr } from '../src/terminal/sgr-color.js';
import { cellWidth, padToWidth, truncateToWidth } from '../src/text/cell-width.js';
import { NOTE_GLYPH } from './NotificationList.js';

export interface AttachedStatusInput {
  state: AppState;
  width: number;
  theme: Theme;
  /** The detach key as the help shows it (e.g. "ctrl+\\"). */
  detachKey: string;
}

export function attachedStatusLine({ state, width, theme, detachKey }: AttachedStatusInput): string {
  const row = state.rows.find((r) => r.name === state.attached);
  // An exited row can be looked at, not typed into: say where the keys go (nowhere) and what helps.
  const exited = `exited${row?.exitCode !== null && row?.exitCode !== undefined ? ` ${row.exitCode}` : ''} (keys go nowhere; R on the dashboard restarts it)`;
  const agent = row ? (row.running ? (row.agentState ?? 'unknown') : exited) : '';
  const waiting = state.rows.filter((r) => r.name !== state.attached && r.running && r.agentState === 'waiting').map((r) => `@${r.name}`);
  const left = ` ▸ @${state.attached ?? ''}${row?.profile ? ` · ${row.profile}` : ''} · ${agent}${row && row.unread > 0 ? ` · ✉ ${row.unread}` : ''}`;
  const news = state.strip ? ` │ ${NOTE_GLYPH[state.strip.kind]} ${state.strip.text}` : waiting.length > 0 ? ` │ ? waiting: ${waiting.join(' ')}` : '';
  const right = ` ${detachKey} detach `;
  const base = sgr({ fg: theme.header.focused.fg, ...(theme.header.focused.bg ? { bg: theme.header.focused.bg } : {}) });
  const room = Math.max(0, width - cellWidth(right));
  const main = padToWidth(truncateToWidth(left + news, room), room);
  return `${base}${main}${room > 0 ? right : ''}\x1b[0m`;
}
