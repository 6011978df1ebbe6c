// A row's header in the page: name, profile, state and why (the detector's rule and the waiting
// reason), unread mail, age since output, a worktree row's branch. Every part is a span whose
// text is set with textContent — row names, titles and branches are peers' text, never HTML.
import { ageSince, formatAge } from '../../app/app-state.js';
import type { PageRow } from '../page-protocol.js';

export class RowHeader {
  readonly element: HTMLElement;
  private readonly parts: Record<'state' | 'name' | 'profile' | 'reason' | 'unread' | 'age' | 'branch' | 'title', HTMLSpanElement>;
  private row: PageRow | null = null;

  constructor() {
    this.element = document.createElement('div');
    this.element.className = 'row-head';
    const span = (cls: string) => {
      const s = document.createElement('span');
      s.className = cls;
      this.element.append(s);
      return s;
    };
    this.parts = {
      state: span('state'),
      name: span('name'),
      profile: span('profile'),
      reason: span('reason'),
      branch: span('branch'),
      title: span('title'),
      unread: span('unread'),
      age: span('age'),
    };
  }

  /** The row's state word as the header shows it ('exited' once its program ended). */
  static stateOf(row: PageRow): string {
    return row.running ? (row.agentState ?? 'unknown') : 'exited';
  }

  update(row: PageRow, now = Date.now()): void {
    this.row = row;
    const p = this.parts;
    const state = RowHeader.stateOf(row);
    p.state.textContent = state;
    p.state.dataset['state'] = state;
    p.name.textContent = row.name;
    p.profile.textContent = row.profile && row.profile !== row.name ? row.profile : '';
    const exit = row.running ? '' : row.exitSignal ? row.exitSignal : `exit ${row.exitCode ?? '?'}`;
    const why = [row.waitingReason, row.stateRule ? `rule ${row.stateRule}` : null, exit || null, row.wakeFailed ? 'wake failed' : null].filter(Boolean).join(' · ');
    p.reason.textContent = why;
    p.branch.textContent = row.git ? `${row.git.branch}${row.git.dirty ? '*' : ''}${row.git.ahead ? ` ↑${row.git.ahead}` : ''}${row.git.behind ? ` ↓${row.git.behind}` : ''}${row.git.missing ? ' (worktree gone)' : ''}` : '';
    p.title.textContent = row.title;
    p.unread.textContent = row.unread > 0 ? `✉ ${row.unread}` : '';
    p.age.textContent = formatAge(ageSince(row), now);
  }

  /** Moves the age on (once a second, from the page's clock). */
  tick(now: number): void {
    if (this.row) this.parts.age.textContent = formatAge(ageSince(this.row), now);
  }
}
