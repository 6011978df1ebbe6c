// The page's notification list: the dashboard's notes (the server builds them from the dashboard's
// own sources), newest first, live. A note about a message opens it in the mail view; a note about a
// row shows that row.
import type { PageNote } from '../../page-protocol.js';
import { el, fill, hhmm } from './dom.js';
import { describeError, type ToolClient } from './tool-client.js';
import type { ToolsDisposable } from './tools-host.js';

/** The dashboard keeps as many (MAX_NOTES). */
const MAX_NOTES = 200;

export interface NotesPanelOptions {
  client: ToolClient;
  openMail(id: number): void;
  showRow(name: string): void;
  /** A note arrived (the tab counts what was not seen). */
  arrived?(note: PageNote): void;
}

export class NotesPanel {
  readonly root: HTMLElement;
  private notes: PageNote[] = [];
  private readonly list: HTMLElement;
  private readonly subscriptions: ToolsDisposable[];

  constructor(private readonly o: NotesPanelOptions) {
    this.list = el('ul', { class: 'tools-notes-list', attrs: { 'aria-label': 'notifications' } });
    this.root = el('section', { class: 'tools-notes', attrs: { 'aria-label': 'notification list' } }, [this.list]);
    this.subscriptions = [
      o.client.on('note', (n) => {
        this.add([n]);
        o.arrived?.(n);
      }),
      o.client.onReconnect(() => this.load()),
    ];
    this.load();
    this.render();
  }

  /** The list so far (at the start, and after the socket was down). */
  private load(): void {
    void this.o.client.ask('notes', {}).then((r) => {
      if ('error' in r) return fill(this.list, [el('li', { class: 'tools-note is-error', text: describeError(r.error) })]);
      this.add(r.ok.notes);
    });
  }

  private add(notes: readonly PageNote[]): void {
    const seen = new Set(this.notes.map((n) => n.id));
    this.notes = [...this.notes, ...notes.filter((n) => !seen.has(n.id))].sort((a, b) => b.id - a.id).slice(0, MAX_NOTES);
    this.render();
  }

  private render(): void {
    if (this.notes.length === 0) return fill(this.list, [el('li', { class: 'tools-empty', text: 'no notifications yet' })]);
    fill(
      this.list,
      this.notes.map((n) => {
        const target = n.mailId !== undefined || n.row !== null;
        return el(
          'li',
          {
            class: `tools-note kind-${n.kind}${target ? ' is-link' : ''}`,
            attrs: { 'data-id': String(n.id), ...(target ? { tabindex: '0', role: 'button' } : {}) },
            on: target ? { click: () => this.open(n), keydown: (e) => e.key === 'Enter' && this.open(n) } : {},
          },
          [el('span', { class: 'tools-note-time', text: hhmm(n.at) }), el('span', { class: 'tools-note-text', text: n.text })],
        );
      }),
    );
  }

  private open(n: PageNote): void {
    if (n.mailId !== undefined) this.o.openMail(n.mailId);
    else if (n.row !== null) this.o.showRow(n.row);
  }

  dispose(): void {
    for (const s of this.subscriptions) s.dispose();
  }
}
