// The page's tools panel, mounted by the shell through its host (tools-host.ts): tabs for the mail
// view, the notification list, the composer and a row's tools, and the browser-notification toggle.
// The shell calls compose() (the phone's "composer one tap away") and rowTools() on its rows.
import './tools.css';
import { BrowserNotices } from './browser-notices.js';
import { ComposerPanel } from './composer-panel.js';
import { button, el, fill } from './dom.js';
import { MailPanel } from './mail-panel.js';
import { NotesPanel } from './notes-panel.js';
import { RowPanel } from './row-panel.js';
import { ToolClient } from './tool-client.js';
import type { MountTools, ToolsDisposable, ToolsHost } from './tools-host.js';

type Tab = 'mail' | 'notes' | 'compose' | 'row';
/** The shell's phone width (main.ts): there the tools are a full-screen sheet. */
const PHONE_QUERY = '(max-width: 640px)';
const TAB_LABELS: Record<Tab, string> = { mail: 'mail', notes: 'notifications', compose: 'compose', row: 'row' };

export interface ToolsPanel extends ToolsDisposable {
  /** The composer, addressed to `row` when given. */
  compose(row?: string): void;
  /** A row's tools (explain, wake, restart, close, review). */
  rowTools(row: string): void;
  show(tab: Tab): void;
}

export const mountTools: MountTools = (host) => mountToolsPanel(host);

/** The panel with its handles (tests and a shell that wants more than dispose). */
export function mountToolsPanel(host: ToolsHost): ToolsPanel {
  const client = new ToolClient(host);
  const focused = () => host.focusedRow();
  let unseen = 0;
  const composer = new ComposerPanel({ client, rows: () => host.rows() });
  const mail = new MailPanel({
    client,
    reply: (entry) => {
      composer.reply(entry);
      show('compose');
    },
  });
  const rowPanel = new RowPanel({
    client,
    rows: () => host.rows(),
    focused,
    showRow: (name) => host.focusRow(name),
    writeTo: (name) => {
      composer.writeTo(name);
      show('compose');
    },
  });
  const notes = new NotesPanel({
    client,
    openMail: (id) => {
      mail.show(id);
      show('mail');
    },
    showRow: (name) => host.focusRow(name),
    arrived: () => {
      if (current !== 'notes') unseen += 1;
      renderTabs();
    },
  });
  const notices = new BrowserNotices(client, (name) => host.focusRow(name));
  const sections: Record<Tab, HTMLElement> = { mail: mail.root, notes: notes.root, compose: composer.root, row: rowPanel.root };
  const tabs = el('nav', { class: 'tools-tabs', attrs: { role: 'tablist' } });
  let current: Tab = 'mail';

  function renderTabs(): void {
    fill(tabs, [
      ...(Object.keys(TAB_LABELS) as Tab[]).map((t) => {
        const b = button(t === 'notes' && unseen > 0 ? `${TAB_LABELS[t]} (${unseen})` : TAB_LABELS[t], () => show(t), `tools-tab${t === current ? ' is-current' : ''}`);
        b.setAttribute('role', 'tab');
        b.setAttribute('aria-selected', String(t === current));
        b.dataset.tab = t;
        return b;
      }),
      notices.button,
    ]);
  }

  function show(tab: Tab): void {
    current = tab;
    if (tab === 'notes') unseen = 0;
    if (tab === 'row') rowPanel.refresh();
    for (const [t, section] of Object.entries(sections)) section.hidden = t !== tab;
    renderTabs();
  }

  const root = el('div', { class: 'tools' }, [tabs, ...Object.values(sections)]);
  host.panel.append(root);
  // A header changes with every output a row prints: the row tools follow only while they are shown.
  const rowsChanged = host.onRows(() => current === 'row' && !host.panel.closest('[hidden]') && rowPanel.refresh());
  // On a phone the panel opens on the composer (the "composer one tap away"); on a desk, on the mail.
  show(window.matchMedia(PHONE_QUERY).matches ? 'compose' : 'mail');

  return {
    compose(row) {
      if (row) composer.writeTo(row);
      show('compose');
      host.showPanel(true);
    },
    rowTools(row) {
      rowPanel.choose(row);
      show('row');
      host.showPanel(true);
    },
    show,
    dispose() {
      rowsChanged.dispose();
      for (const part of [composer, mail, rowPanel, notes, notices]) part.dispose();
      root.remove();
    },
  };
}
