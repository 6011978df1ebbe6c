// The page's composer: "@peer text" as on the dashboard (the same mention parser), `@` completion
// from the rows and the hub's peers (the dashboard's candidates), the kind (msg, task, response,
// data), a reply threaded under its message, and the last send's receipts moving live (the
// dashboard's receipt line). The server refuses a read-only page's send; the page hides the button.
import { applyReceiptToSend, applySendError, applySendResult, summarizeSend } from '../../../app/composer-receipts.js';
import { completionCandidates, type Candidate } from '../../../app/composer-completion.js';
import type { SendStatus } from '../../../app/composer-state.js';
import type { MailEntry } from '../../../app/mail-view-state.js';
import { BROADCAST, OPERATOR } from '../../../protocol/handle.js';
import { MESSAGE_KINDS, type MessageKind } from '../../../protocol/message-rules.js';
import type { PeerInfo } from '../../../protocol/methods.js';
import { completeMention, mentionAt, parseMentions, HANDLE_HINT } from '../../../text/mentions.js';
import type { PageRow } from '../../page-protocol.js';
import { button, el, fill, mutating, option } from './dom.js';
import type { ToolClient } from './tool-client.js';
import type { ToolsDisposable } from './tools-host.js';

export interface ComposerPanelOptions {
  client: ToolClient;
  rows(): readonly PageRow[];
}

let sent = 0;
/** A fresh messageId per send: a retry of the same send (a reconnect) is the same message to the hub. */
function newMessageId(): string {
  sent += 1;
  return `page-${Date.now().toString(36)}-${sent}-${Math.random().toString(36).slice(2, 10)}`;
}

export class ComposerPanel {
  readonly root: HTMLElement;
  private readonly text: HTMLTextAreaElement;
  private readonly kind: HTMLSelectElement;
  private readonly replyLine: HTMLElement;
  private readonly suggestions: HTMLElement;
  private readonly receipts: HTMLElement;
  private readonly send: HTMLButtonElement;
  private peers: PeerInfo[] = [];
  private candidates: Candidate[] = [];
  private picked = 0;
  private replyTo: { id: number; from: string } | null = null;
  private last: SendStatus | null = null;
  private readonly subscriptions: ToolsDisposable[] = [];

  constructor(private readonly o: ComposerPanelOptions) {
    const { client } = o;
    this.text = el('textarea', { class: 'tools-composer-text', attrs: { rows: '4', placeholder: '@peer your message (Tab completes, Ctrl+Enter sends)', 'aria-label': 'message', spellcheck: 'false' } });
    this.text.addEventListener('input', () => this.complete());
    this.text.addEventListener('click', () => this.complete());
    this.text.addEventListener('keydown', (e) => this.key(e));
    this.kind = el('select', { class: 'tools-composer-kind', attrs: { 'aria-label': 'kind' } }, MESSAGE_KINDS.map((k) => option(k)));
    this.replyLine = el('div', { class: 'tools-composer-reply' });
    this.suggestions = el('ul', { class: 'tools-suggestions', attrs: { role: 'listbox', 'aria-label': 'recipients' } });
    this.receipts = el('div', { class: 'tools-composer-receipts', attrs: { role: 'status' } });
    this.send = mutating(button('send', () => void this.submit(), 'tools-button tools-send'));
    this.root = el('section', { class: 'tools-composer', attrs: { 'aria-label': 'composer' } }, [
      this.replyLine,
      this.text,
      this.suggestions,
      el('div', { class: 'tools-actions' }, [this.kind, this.send, el('span', { class: 'tools-readonly', text: 'read-only: this page cannot send' })]),
      this.receipts,
    ]);
    this.subscriptions.push(
      client.on('peers', (p) => (this.peers = p.peers)),
      client.on('receipt', (r) => {
        if (this.last) this.showStatus(applyReceiptToSend(this.last, r));
      }),
    );
    const readPeers = () =>
      void client.ask('peers', {}).then((r) => {
        if ('ok' in r) this.peers = r.ok.peers;
      });
    this.subscriptions.push(client.onReconnect(readPeers));
    readPeers();
    this.renderReply();
  }

  /** Focuses the composer with `text` typed (e.g. "@worker "), keeping a reply it was asked for. */
  writeTo(handle: string): void {
    this.setReply(null);
    this.text.value = `@${handle} `;
    this.focusEnd();
  }

  /** Answers `entry`: "@sender ", threaded when the operator received it (the dashboard's rule). */
  reply(entry: MailEntry): void {
    const own = entry.from === OPERATOR;
    const targets = own ? entry.to.filter((t) => t !== OPERATOR) : [entry.from];
    const threaded = !own && entry.to.includes(OPERATOR);
    this.setReply(threaded ? { id: entry.id, from: entry.from } : null);
    this.text.value = targets.map((t) => `@${t} `).join('');
    if (!threaded) this.receipts.textContent = `#${entry.id} was not sent to operator: this goes out as a new message, outside its thread.`;
    this.focusEnd();
  }

  private focusEnd(): void {
    this.text.focus();
    this.text.setSelectionRange(this.text.value.length, this.text.value.length);
    this.complete();
  }

  private setReply(replyTo: { id: number; from: string } | null): void {
    this.replyTo = replyTo;
    this.kind.value = replyTo ? 'response' : 'msg';
    this.renderReply();
  }

  private renderReply(): void {
    if (!this.replyTo) return fill(this.replyLine, []);
    fill(this.replyLine, [el('span', { text: `replying to #${this.replyTo.id} from @${this.replyTo.from}` }), button('✕', () => this.setReply(null), 'tools-button tools-small')]);
  }

  private complete(): void {
    const m = mentionAt(this.text.value, this.text.selectionStart ?? this.text.value.length);
    const peers = this.peers.map((p) => ({ handle: p.handle, online: p.online, role: p.role }));
    this.candidates = m ? completionCandidates(m.prefix, this.o.rows(), peers, 8) : [];
    this.picked = Math.min(this.picked, Math.max(0, this.candidates.length - 1));
    fill(
      this.suggestions,
      this.candidates.map((c, i) =>
        el('li', { class: `tools-suggestion${i === this.picked ? ' is-selected' : ''}`, attrs: { role: 'option', 'data-handle': c.handle }, on: { mousedown: (e) => (e.preventDefault(), this.take(c)) } }, [
          el('span', { class: 'tools-suggestion-handle', text: `@${c.handle}` }),
          el('span', { class: 'tools-suggestion-note', text: c.note }),
        ]),
      ),
    );
  }

  private take(c: Candidate): void {
    const done = completeMention(this.text.value, this.text.selectionStart ?? this.text.value.length, c.handle);
    this.text.value = done.text;
    this.text.setSelectionRange(done.cursor, done.cursor);
    this.picked = 0;
    this.complete();
  }

  private key(e: KeyboardEvent): void {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      void this.submit();
      return;
    }
    if (this.candidates.length === 0) return;
    if (e.key === 'Tab' || (e.key === 'Enter' && !e.shiftKey)) {
      e.preventDefault();
      this.take(this.candidates[this.picked]!);
    } else if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      const n = this.candidates.length;
      this.picked = (this.picked + (e.key === 'ArrowDown' ? 1 : n - 1)) % n;
      this.complete();
    } else if (e.key === 'Escape') {
      this.candidates = [];
      fill(this.suggestions, []);
    }
  }

  private refuse(text: string): void {
    this.receipts.textContent = text;
    this.receipts.className = 'tools-composer-receipts is-error';
  }

  private async submit(): Promise<void> {
    const draft = this.text.value;
    const parsed = parseMentions(draft);
    const bad = parsed.invalid[0];
    if (bad) return this.refuse(`${bad.token} is not a valid recipient: ${HANDLE_HINT}.`);
    if (parsed.recipients.length === 0) return this.refuse('Start with @peer (or @all); Tab completes a name after @.');
    const body = parsed.body.trimEnd();
    if (body.trim() === '') return this.refuse('Nothing to send: write the message after the recipients.');
    const named = [...new Set(parsed.recipients.filter((r) => r !== BROADCAST))];
    const broadcast = named.length < parsed.recipients.length;
    const kind = this.kind.value as MessageKind;
    const messageId = newMessageId();
    const status: SendStatus = { messageId, id: null, at: Date.now(), recipients: named.map((to) => ({ to, state: 'sending', woken: false })), error: null, duplicate: false };
    this.showStatus(status);
    this.text.value = '';
    this.complete();
    const replyTo = this.replyTo;
    const r = await this.o.client.ask('mail.send', { to: broadcast ? [...named, BROADCAST] : named, text: body, kind, messageId, ...(replyTo ? { replyTo: replyTo.id } : {}) });
    if (this.last?.messageId !== messageId) return;
    if ('error' in r) {
      this.showStatus(applySendError(status, r.error));
      // Nothing was sent: the draft comes back to fix and send again (unless another was begun).
      if (this.text.value === '') this.text.value = draft;
      return;
    }
    this.setReply(null);
    this.showStatus(applySendResult(this.last, r.ok));
  }

  private showStatus(status: SendStatus): void {
    this.last = status;
    const s = summarizeSend(status);
    this.receipts.textContent = s.text;
    this.receipts.className = `tools-composer-receipts is-${s.tone}`;
    this.receipts.dataset.messageId = status.id === null ? '' : String(status.id);
  }

  dispose(): void {
    for (const s of this.subscriptions) s.dispose();
  }
}
