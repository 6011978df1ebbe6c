// The page's entry: one connection to the server, the rows it tells (RowsModel), the desktop
// board or the phone's list by the viewport's width, the top bar (workspace, connection, layout,
// zoom, find in the focused row's history, tools), the tools panel (mounted through tools-host.ts)
// and the page's own keys while no row is attached. Everything peers wrote is shown as text.
import '@xterm/xterm/css/xterm.css';
import './app.css';
import type { ServerToPage } from '../page-protocol.js';
import { Attachment } from './attachment.js';
import { Connection } from './connection.js';
import { DeskBoard } from './desk-board.js';
import { forgetPageKey, pageKey } from './page-key.js';
import { PhoneBoard } from './phone-board.js';
import { RowsModel } from './rows-model.js';
import { bridgeTerminalStyles } from './style-bridge.js';
import { ToolsPanel } from './tools-panel.js';
import { TopBar } from './top-bar.js';
import { ViewTracker } from './view-tracker.js';

/** At or below this width the page is a phone's: a list and one row full screen. */
const PHONE_QUERY = '(max-width: 640px)';

function boot(): void {
  // Marks for the bench (bench/web.mjs: page load to every row painted, and where the time went).
  performance.mark('swb-boot');
  bridgeTerminalStyles();
  // The WebSocket carries the page key in its query (a browser cannot set a WebSocket's headers); the
  // cookie alone is refused. No key: this browser has not logged in on this origin (login.ts).
  const key = pageKey();
  if (key === null) {
    location.replace('/login');
    return;
  }
  const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws?pageKey=${encodeURIComponent(key)}`;
  // Revoked (`swb web --rotate`): the stored key is worthless; the login page says to run `swb web` again.
  const connection = new Connection(url, key, () => {
    forgetPageKey();
    location.replace('/login#revoked=1');
  });
  const model = new RowsModel();
  let readOnly = false;
  const views = new ViewTracker(connection);
  const attachment = new Attachment(connection, model, () => readOnly);
  const tools = new ToolsPanel(connection, model, () => readOnly);
  const desk = new DeskBoard(model, attachment, views);
  const phone = new PhoneBoard(model, attachment, views, () => tools.show(true));
  const top = new TopBar(desk, model, () => tools.show(!tools.isOpen));
  tools.focusSource = {
    focused: () => (phoneQuery.matches ? phone.opened : desk.focused),
    focus: (name) => (phoneQuery.matches ? phone.open(name) : desk.focus(name)),
  };
  document.body.append(top.element, desk.element, phone.element, tools.element);

  const phoneQuery = window.matchMedia(PHONE_QUERY);
  const applyViewport = () => {
    document.body.classList.toggle('phone', phoneQuery.matches);
    attachment.detach();
    desk.setActive(!phoneQuery.matches);
    phone.setActive(phoneQuery.matches);
  };
  phoneQuery.addEventListener('change', applyViewport);
  applyViewport();

  connection.onState((state, why) => top.connection(state, why));
  let rowsMarked = false;
  let screens = 0;
  connection.onMessage((message: ServerToPage) => {
    if (message.t === 'hello') {
      performance.mark('swb-hello');
      readOnly = message.readOnly;
      top.hello(message.workspace, message.readOnly);
      document.body.classList.toggle('read-only', message.readOnly);
      views.reset();
      attachment.tell();
      return;
    }
    if (message.t === 'refused') {
      top.problem(`${message.code}: ${message.message}`);
      if (message.frame === 'attach' || message.code === 'NOT_ATTACHED') attachment.detach();
      return;
    }
    if (message.t === 'res' || message.t === 'push') return tools.receive(message);
    if (message.t === 'rows' && !rowsMarked) {
      rowsMarked = true;
      performance.mark('swb-rows');
    }
    if (message.t === 'screen') {
      if (++screens === 1) performance.mark('swb-first-screen');
      if (screens === model.rows.length) performance.mark('swb-screens');
    }
    model.receive(message);
  });

  // The page's keys while no row is attached (an attached row takes every key but Ctrl-]).
  document.addEventListener('keydown', (e) => {
    if (attachment.attached !== null || phoneQuery.matches) return;
    const target = e.target as HTMLElement | null;
    // The page's own fields and the tools keep their keys (xterm.js's hidden textarea does not: a tile has it focused).
    if (target && ((target.closest('input, textarea, select, [contenteditable]') && !target.closest('.xterm')) || target.closest('#tools'))) return;
    if (e.key === 'ArrowRight' || e.key === 'ArrowDown' || e.key === 'j') desk.move(1);
    else if (e.key === 'ArrowLeft' || e.key === 'ArrowUp' || e.key === 'k') desk.move(-1);
    else if (e.key === 'Enter' && desk.focused) attachment.attach(desk.focused);
    else if (e.key === 'z') desk.toggleZoom();
    else if (e.key === 'l') desk.setLayout(desk.layout === 'grid' ? 'stack' : 'grid');
    else if (e.key === '/') top.startFind();
    else return;
    e.preventDefault();
    e.stopPropagation();
    // Captured: a focused tile's xterm.js would take (and stop) the key first.
  }, true);

  setInterval(() => {
    const now = Date.now();
    desk.tick(now);
    phone.tick(now);
  }, 1000);
  connection.start();
  if ('serviceWorker' in navigator && (location.protocol === 'https:' || location.hostname === 'localhost' || location.hostname === '127.0.0.1')) {
    void navigator.serviceWorker.register('/sw.js').catch(() => undefined);
  }
  // For the browser tests and the bench: the page's rows and terminals (read only).
  (window as unknown as { swbPage: unknown }).swbPage = { model, attachment, desk, phone, connection };
}

boot();
