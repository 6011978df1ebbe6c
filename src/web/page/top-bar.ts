// The page's top bar: the workspace and whether the page is connected (and read-only), the
// board's layout and zoom, a find box over the focused row's history (xterm's scrollback, with
// addon-search: Enter finds the next match, Shift-Enter the one before), a line for what the
// server refused, and the tools button. Text from the server is set with textContent.
import type { DeskBoard } from './desk-board.js';
import type { ConnectionState } from './connection.js';
import type { RowsModel } from './rows-model.js';
import { button } from './button.js';

export class TopBar {
  readonly element: HTMLElement;
  private readonly workspace: HTMLElement;
  private readonly status: HTMLElement;
  private readonly badge: HTMLElement;
  private readonly note: HTMLElement;
  private readonly find: HTMLInputElement;
  private noteTimer: ReturnType<typeof setTimeout> | null = null;

  constructor(desk: DeskBoard, model: RowsModel, toggleTools: () => void) {
    this.element = document.createElement('header');
    this.element.id = 'top';
    const span = (cls: string) => {
      const s = document.createElement('span');
      s.className = cls;
      return s;
    };
    this.workspace = span('workspace');
    this.workspace.textContent = 'swb';
    this.status = span('conn');
    this.badge = span('ro-badge');
    this.note = span('note');
    const layout = button('Grid / stack', 'layout', () => desk.setLayout(desk.layout === 'grid' ? 'stack' : 'grid'));
    const zoom = button('Zoom', 'zoom', () => desk.toggleZoom());
    this.find = document.createElement('input');
    this.find.type = 'search';
    this.find.className = 'find';
    this.find.placeholder = 'Find in row history';
    this.find.setAttribute('aria-label', 'Find in the focused row’s history');
    this.find.addEventListener('keydown', (e) => {
      if (e.key !== 'Enter' && e.key !== 'Escape') return;
      const name = desk.focused;
      if (e.key === 'Escape') {
        this.find.value = '';
        if (name) model.term(name).find('');
        this.find.blur();
        return;
      }
      if (name && !model.term(name).find(this.find.value, e.shiftKey)) this.problem(`not found in ${name}: ${this.find.value}`);
    });
    const tools = button('Tools', 'tools', toggleTools);
    this.element.append(this.workspace, this.status, this.badge, layout, zoom, this.find, this.note, tools);
  }

  hello(workspace: string, readOnly: boolean): void {
    this.workspace.textContent = workspace;
    document.title = `${workspace} · swb`;
    this.badge.textContent = readOnly ? 'read-only' : '';
  }

  connection(state: ConnectionState, why?: string): void {
    this.status.textContent = state === 'open' ? '● live' : state === 'connecting' ? '○ connecting' : state === 'revoked' ? '○ signed out' : `○ offline${why ? ` (${why})` : ''}`;
    this.status.dataset['state'] = state;
  }

  /** A short line that goes away by itself (what the server refused, a find that found nothing). */
  problem(text: string): void {
    this.note.textContent = text;
    if (this.noteTimer) clearTimeout(this.noteTimer);
    this.noteTimer = setTimeout(() => (this.note.textContent = ''), 6000);
  }

  startFind(): void {
    this.find.focus();
  }
}
