// The rows on a phone (a narrow viewport): a list — each row's state, unread mail and its
// screen's last non-empty line — and one row opened full screen, with an on-screen key bar and the
// tools one tap away. The list views every row (their last lines need their screens); an open row
// views only itself.
import type { PageRow } from '../page-protocol.js';
import type { Attachment } from './attachment.js';
import { keyBar } from './key-bar.js';
import { RowHeader } from './row-header.js';
import type { RowsModel } from './rows-model.js';
import type { ViewTracker } from './view-tracker.js';
import { button } from './button.js';

interface ListItem {
  element: HTMLElement;
  state: HTMLElement;
  name: HTMLElement;
  unread: HTMLElement;
  line: HTMLElement;
}

export class PhoneBoard {
  readonly element: HTMLElement;
  private readonly list: HTMLElement;
  private readonly full: HTMLElement;
  private readonly fullHeader = new RowHeader();
  private readonly fullTerm: HTMLElement;
  private readonly items = new Map<string, ListItem>();
  private openName: string | null = null;
  private active = false;
  private readonly openListeners = new Set<(name: string | null) => void>();

  constructor(
    private readonly model: RowsModel,
    private readonly attachment: Attachment,
    private readonly views: ViewTracker,
    openTools: () => void,
  ) {
    this.element = document.createElement('main');
    this.element.id = 'phone';
    this.element.hidden = true;
    this.list = document.createElement('ul');
    this.list.className = 'phone-list';
    this.full = document.createElement('section');
    this.full.className = 'phone-row';
    this.full.hidden = true;
    const bar = document.createElement('div');
    bar.className = 'phone-bar';
    const back = button('‹ Rows', 'back', () => this.open(null));
    const tools = button('Tools', 'tools', openTools);
    bar.append(back, this.fullHeader.element, tools);
    this.fullTerm = document.createElement('div');
    this.fullTerm.className = 'term';
    const keys = keyBar(
      (bytes) => this.attachment.input(bytes),
      () => (this.openName ? this.model.term(this.openName).terminal : null),
    );
    this.full.append(bar, this.fullTerm, keys);
    this.element.append(this.list, this.full);
    model.onRows((rows) => this.render(rows));
    model.onOutput((name) => this.refreshLine(name));
    window.visualViewport?.addEventListener('resize', () => this.attachment.offerSize());
  }

  get opened(): string | null {
    return this.openName;
  }

  onOpen(fn: (name: string | null) => void): () => void {
    this.openListeners.add(fn);
    return () => this.openListeners.delete(fn);
  }

  setActive(on: boolean): void {
    this.active = on;
    this.element.hidden = !on;
    if (!on && this.openName) this.open(null);
    if (on) this.render(this.model.rows);
    this.tellView();
  }

  /** Opens a row full screen (attached, unless the page is read-only), or goes back to the list (null). */
  open(name: string | null): void {
    if (name === this.openName) return;
    if (this.openName && this.attachment.attached === this.openName) this.attachment.detach();
    this.openName = name;
    this.list.hidden = name !== null;
    this.full.hidden = name === null;
    if (name !== null) {
      const row = this.model.row(name);
      if (row) this.fullHeader.update(row);
      this.model.term(name).mount(this.fullTerm);
      this.attachment.attach(name);
      requestAnimationFrame(() => this.attachment.tell());
    }
    this.openListeners.forEach((fn) => fn(name));
    this.tellView();
  }

  private render(rows: readonly PageRow[]): void {
    const names = new Set(rows.map((r) => r.name));
    for (const [name, item] of this.items) {
      if (names.has(name)) continue;
      item.element.remove();
      this.items.delete(name);
    }
    rows.forEach((row, i) => {
      const item = this.items.get(row.name) ?? this.makeItem(row.name);
      const state = RowHeader.stateOf(row);
      item.state.textContent = state;
      item.state.dataset['state'] = state;
      item.name.textContent = row.name;
      item.unread.textContent = row.unread > 0 ? `✉ ${row.unread}` : '';
      const at = this.list.children[i];
      if (at !== item.element) this.list.insertBefore(item.element, at ?? null);
      this.refreshLine(row.name);
    });
    if (this.openName !== null) {
      const row = this.model.row(this.openName);
      if (row) this.fullHeader.update(row);
      else this.open(null);
    }
    this.tellView();
  }

  private refreshLine(name: string): void {
    // A hidden list reads no lines (a desktop's output would pay for it); showing it renders them all.
    if (!this.active) return;
    const item = this.items.get(name);
    if (item && this.model.hasTerm(name)) item.line.textContent = this.model.term(name).lastLine();
  }

  private makeItem(name: string): ListItem {
    const element = document.createElement('li');
    element.className = 'phone-item';
    element.dataset['row'] = name;
    element.tabIndex = 0;
    const top = document.createElement('div');
    top.className = 'phone-item-top';
    const state = document.createElement('span');
    state.className = 'state';
    const nameEl = document.createElement('span');
    nameEl.className = 'name';
    const unread = document.createElement('span');
    unread.className = 'unread';
    top.append(state, nameEl, unread);
    const line = document.createElement('div');
    line.className = 'last-line';
    element.append(top, line);
    element.addEventListener('click', () => this.open(name));
    element.addEventListener('keydown', (e) => e.key === 'Enter' && this.open(name));
    const item = { element, state, name: nameEl, unread, line };
    this.items.set(name, item);
    return item;
  }

  tick(now: number): void {
    const row = this.openName ? this.model.row(this.openName) : undefined;
    if (row) this.fullHeader.tick(now);
  }

  private tellView(): void {
    if (!this.active) return;
    this.views.set(this.openName !== null ? [this.openName] : this.model.rows.map((r) => r.name));
  }
}
