// The page's mail view: threads by replyTo (the dashboard's buildThreads), filtered by peer (asked of
// the server, so older pages of that peer's mail load too), kind and unread; each message's receipts
// per recipient, moved live by the pushes; the whole text of the selected message; mark read (the
// dashboard's rule of whose copies) and reply (the composer, addressed and threaded).
import { describeRecipient } from '../../../app/composer-receipts.js';
import { addArrived, appendPage, applyReceiptToView, resetMailView, type MailEntry, type MailViewState } from '../../../app/mail-view-state.js';
import { buildThreads, mailLineView, unreadFor } from '../../../app/mail-view-threads.js';
import { MESSAGE_KINDS } from '../../../protocol/message-rules.js';
import type { PeerInfo } from '../../../protocol/methods.js';
import type { MailEntryView } from '../../tool-protocol.js';
import { button, el, fill, hhmm, mutating, option } from './dom.js';
import { describeError, type ToolClient } from './tool-client.js';
import type { ToolsDisposable } from './tools-host.js';

const PAGE = 100;

export interface MailPanelOptions {
  client: ToolClient;
  /** Answer a message: the composer, addressed to its sender, threaded under it. */
  reply(entry: MailEntry): void;
}

export class MailPanel {
  readonly root: HTMLElement;
  private view: MailViewState = resetMailView(null);
  private kind: string | null = null;
  private unreadOnly = false;
  private peers: PeerInfo[] = [];
  private loading = false;
  private readonly peerSelect: HTMLSelectElement;
  private readonly list: HTMLElement;
  private readonly detail: HTMLElement;
  private readonly status: HTMLElement;
  private readonly more: HTMLButtonElement;
  private readonly subscriptions: ToolsDisposable[] = [];

  constructor(private readonly o: MailPanelOptions) {
    const { client } = o;
    this.peerSelect = el('select', { class: 'tools-mail-peer', attrs: { 'aria-label': 'peer' }, on: { change: () => this.setPeer(this.peerSelect.value || null) } });
    const kindSelect = el('select', { class: 'tools-mail-kind', attrs: { 'aria-label': 'kind' } }, [option('', 'every kind'), ...MESSAGE_KINDS.map((k) => option(k))]);
    kindSelect.addEventListener('change', () => {
      this.kind = kindSelect.value || null;
      this.render();
    });
    const unread = el('input', { class: 'tools-mail-unread', attrs: { type: 'checkbox', 'aria-label': 'unread only' } });
    unread.addEventListener('change', () => {
      this.unreadOnly = unread.checked;
      this.render();
    });
    this.list = el('ul', { class: 'tools-mail-list', attrs: { role: 'listbox', 'aria-label': 'mail' } });
    this.detail = el('div', { class: 'tools-mail-detail' });
    this.status = el('div', { class: 'tools-status', attrs: { role: 'status' } });
    this.more = button('older mail', () => void this.loadPage(), 'tools-button tools-mail-more');
    this.root = el('section', { class: 'tools-mail', attrs: { 'aria-label': 'mail view' } }, [
      el('div', { class: 'tools-filters' }, [this.peerSelect, kindSelect, el('label', { class: 'tools-check' }, [unread, 'unread'])]),
      this.list,
      this.more,
      this.detail,
      this.status,
    ]);
    this.subscriptions.push(
      client.on('mail', (m) => this.update(addArrived(this.view, entryOf(m)))),
      client.on('receipt', (r) => this.update(applyReceiptToView(this.view, r))),
      client.on('peers', (p) => this.setPeers(p.peers)),
      client.onReconnect(() => this.reload()),
    );
    this.fillPeers();
    this.reload();
  }

  /** The peers and the first page again (at the start, and after the socket was down). */
  private reload(): void {
    void this.o.client.ask('peers', {}).then((r) => 'ok' in r && this.setPeers(r.ok.peers));
    this.setPeer(this.view.filter);
  }

  /** Shows message `id` (a note's mail): all mail, that message selected and opened. */
  show(id: number): void {
    if (this.view.filter !== null) this.setPeer(null);
    this.view = { ...this.view, selectedId: id, openId: id };
    this.render();
    if (!this.view.entries.some((e) => e.id === id) && this.view.hasMore) void this.loadPage();
  }

  private setPeers(peers: PeerInfo[]): void {
    this.peers = peers;
    this.fillPeers();
  }

  private fillPeers(): void {
    const current = this.view.filter;
    const handles = [...new Set(this.peers.map((p) => p.handle))].sort();
    if (current !== null && !handles.includes(current)) handles.unshift(current);
    fill(this.peerSelect, [option('', 'all mail', current === null), ...handles.map((h) => option(h, `@${h}`, h === current))]);
  }

  private setPeer(peer: string | null): void {
    this.view = resetMailView(peer);
    this.fillPeers();
    this.render();
    void this.loadPage();
  }

  private async loadPage(): Promise<void> {
    if (this.loading || !this.view.hasMore) return;
    this.loading = true;
    const filter = this.view.filter;
    const oldest = this.view.entries[this.view.entries.length - 1]?.id;
    const r = await this.o.client.ask('mail.history', { limit: PAGE, ...(oldest !== undefined ? { before: oldest } : {}), ...(filter !== null ? { peer: filter } : {}) });
    this.loading = false;
    if (this.view.filter !== filter) return; // the filter changed meanwhile: that load asked its own
    if ('error' in r) return this.say(describeError(r.error), true);
    this.update(appendPage(this.view, r.ok.items.map(entryOf), r.ok.more));
    const wanted = this.view.selectedId;
    if (wanted !== null && !this.view.entries.some((e) => e.id === wanted) && this.view.hasMore) void this.loadPage();
  }

  private update(next: MailViewState): void {
    if (next === this.view) return;
    this.view = next;
    this.render();
  }

  private shown(): MailEntry[] {
    return this.view.entries.filter((e) => (this.kind === null || e.kind === this.kind) && (!this.unreadOnly || unreadFor(e, this.view.filter)));
  }

  private render(): void {
    const filter = this.view.filter;
    const lines = buildThreads(this.shown());
    fill(
      this.list,
      lines.map((line) => {
        const v = mailLineView(line, filter);
        const selected = v.id === this.view.selectedId;
        const item = el(
          'li',
          {
            class: `tools-mail-line${v.unread ? ' is-unread' : ''}${selected ? ' is-selected' : ''} depth-${Math.min(line.depth, 6)}`,
            attrs: { role: 'option', 'aria-selected': String(selected), 'data-id': String(v.id) },
            on: { click: () => this.select(v.id) },
          },
          [
            el('span', { class: 'tools-mail-prefix', text: v.prefix }),
            el('span', { class: 'tools-mail-head', text: v.head }),
            el('span', { class: `tools-kind kind-${v.kind}`, text: v.kind }),
            el('span', { class: 'tools-mail-preview', text: v.preview }),
            el('span', { class: 'tools-badge', text: v.badge }),
          ],
        );
        return item;
      }),
    );
    if (lines.length === 0) this.list.append(el('li', { class: 'tools-empty', text: this.view.hasMore ? 'loading …' : 'no mail' }));
    this.more.hidden = !this.view.hasMore;
    this.renderDetail();
  }

  private select(id: number): void {
    this.view = { ...this.view, selectedId: id, openId: this.view.openId === id ? null : id };
    this.render();
  }

  private renderDetail(): void {
    const e = this.view.entries.find((x) => x.id === this.view.openId);
    if (!e) return fill(this.detail, []);
    fill(this.detail, [
      el('div', { class: 'tools-mail-meta', text: `#${e.id} ${hhmm(e.createdAt)} @${e.from} → ${e.to.map((t) => `@${t}`).join(' ')} [${e.kind}]${e.replyTo !== null ? ` re #${e.replyTo}` : ''}` }),
      el('pre', { class: 'tools-mail-text', text: e.text }),
      el('ul', { class: 'tools-receipts', attrs: { 'aria-label': 'receipts' } }, e.receipts.map((r) => el('li', { class: `tools-receipt state-${r.state}`, attrs: { 'data-to': r.to }, text: describeRecipient(r) }))),
      el('div', { class: 'tools-actions' }, [
        mutating(button('mark read', () => void this.markRead(e.id))),
        mutating(button('reply', () => this.o.reply(e))),
      ]),
    ]);
  }

  private async markRead(id: number): Promise<void> {
    const r = await this.o.client.ask('mail.markRead', { id, filter: this.view.filter });
    if ('error' in r) this.say(describeError(r.error), true);
    else this.say(r.ok.updated === 0 ? `#${id}: nothing unread to mark` : `#${id} read for ${r.ok.for.map((h) => `@${h}`).join(' ')}`);
  }

  private say(text: string, error = false): void {
    this.status.textContent = text;
    this.status.classList.toggle('is-error', error);
  }

  dispose(): void {
    for (const s of this.subscriptions) s.dispose();
  }
}

function entryOf(m: MailEntryView): MailEntry {
  return { id: m.id, from: m.from, to: m.to, kind: m.kind, text: m.text, replyTo: m.replyTo, createdAt: m.createdAt, receipts: m.receipts };
}
