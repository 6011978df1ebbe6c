// The composer's side effects: opening it (with the hub's known handles for completion), binding
// completed mentions to what they name now, and sending as `operator` — parsed with the shared
// mention parser, refused while a bound row has been restarted or closed since it was picked, then
// sent with a fresh messageId; the hub's answer and later receipt changes update the composer line.
import type { ComposerIntents } from './intents.js';
import { randomBytes } from 'node:crypto';
import type { OperatorPort } from '../hub/operator-port.js';
import type { SwbErrorValue } from '../protocol/error-codes.js';
import { BROADCAST, HANDLE_HINT, OPERATOR } from '../protocol/handle.js';
import type { SendParams, SendResult } from '../protocol/methods.js';
import { parseMentions } from '../text/mentions.js';
import { sanitize } from '../text/sanitize.js';
import type { NoteKind } from './app-state.js';
import type { AppStore } from './app-store.js';
import { describeStale, staleMentions } from './composer-completion.js';
import type { MentionBinding, PeerView, SendStatus } from './composer-state.js';
import type { MailEntry } from './mail-view-state.js';

/** The part of the hub the composer uses (the embedded Hub satisfies it). */
/** What the composer needs of the mail core: send as the operator, and who can be addressed. */
export type ComposerPort = Pick<OperatorPort, 'send' | 'peers'>;

export interface ComposerControllerOptions {
  store: AppStore;
  port: ComposerPort;
  /** Adds a notification (strip + list, and the bell when configured). */
  note: (kind: NoteKind, text: string, row: string | null) => void;
  newMessageId?: () => string;
  now?: () => number;
  /** Close the composer once the hub accepted the message (the strip says so; the mail view keeps the receipts). */
  closeAfterSend?: boolean;
}

const line = (text: string, maxChars = 200) => sanitize(text, { singleLine: true, maxChars });

export function operatorMessageId(): string {
  return `op-${Date.now().toString(36)}-${randomBytes(6).toString('base64url')}`;
}

export class ComposerController implements ComposerIntents {
  private disposed = false;

  constructor(private readonly o: ComposerControllerOptions) {}

  refreshPeers(): void {
    const peers: PeerView[] = this.o.port.peers().map((p) => ({ handle: p.handle, online: p.online, role: p.role }));
    this.o.store.setPeers(peers);
  }

  open(): void {
    this.refreshPeers();
    this.o.store.openComposer();
  }

  /**
   * `@` pressed where it opens the composer: the key is the start of a mention, not only a way in,
   * so it lands in the draft (after what was kept there) and the completion list shows at once.
   */
  openAtMention(): void {
    const c = this.o.store.getState().composer;
    const draft = c.draft === '' || /\s$/.test(c.draft) ? `${c.draft}@` : `${c.draft} @`;
    this.refreshPeers();
    this.o.store.openComposer({ draft, replyTo: c.replyTo, bindings: c.bindings });
  }

  close(draft: string): void {
    this.o.store.closeComposer(draft);
  }

  saveDraft(draft: string): void {
    this.o.store.saveDraft(draft);
  }

  bind(binding: MentionBinding): void {
    this.o.store.bindMention(binding);
  }

  /** Opens the composer addressed to one row (bound to its current incarnation): a note about its review. */
  writeTo(row: string): void {
    const view = this.o.store.getState().rows.find((r) => r.name === row);
    this.refreshPeers();
    this.o.store.openComposer({
      draft: `@${row} `,
      replyTo: null,
      bindings: view ? [{ handle: row, target: 'row', incarnation: view.incarnation }] : [],
    });
  }

  /** Opens the composer to answer `entry`: "@sender ", threaded when the operator received it. */
  reply(entry: MailEntry): void {
    const state = this.o.store.getState();
    const own = entry.from === OPERATOR;
    const targets = own ? entry.to.filter((t) => t !== OPERATOR) : [entry.from];
    const bindings: MentionBinding[] = [];
    for (const t of targets) {
      const row = state.rows.find((r) => r.name === t);
      bindings.push(row ? { handle: t, target: 'row', incarnation: row.incarnation } : { handle: t, target: 'peer', incarnation: null });
    }
    const threaded = !own && entry.to.includes(OPERATOR);
    this.refreshPeers();
    this.o.store.openComposer({
      draft: targets.map((t) => `@${t} `).join(''),
      replyTo: threaded ? { id: entry.id, from: entry.from } : null,
      bindings,
      warning: threaded ? null : `#${entry.id} was not sent to operator: this goes out as a new message, outside its thread.`,
    });
  }

  /** Enter. True when the message went out (the editor clears); false when refused (the reason is shown). */
  send(text: string): boolean {
    const { store } = this.o;
    const state = store.getState();
    const composer = state.composer;
    const parsed = parseMentions(text);
    const bad = parsed.invalid[0];
    if (bad) {
      store.refuseSend(text, `${line(bad.token, 70)} is not a valid recipient: ${HANDLE_HINT}.`);
      return false;
    }
    if (parsed.recipients.length === 0) {
      store.refuseSend(text, 'Start with @peer (or @all); Tab completes a name after @.');
      return false;
    }
    const body = parsed.body.trimEnd();
    if (body.trim() === '') {
      store.refuseSend(text, 'Nothing to send: write the message after the recipients.');
      return false;
    }
    const stale = staleMentions(parsed.recipients, composer.bindings, state.rows);
    if (stale.length > 0) {
      store.refuseSend(text, describeStale(stale), stale.map((s) => s.handle));
      return false;
    }
    // @all is the hub's broadcast, the same operation as `swb send @all`: every online session but
    // the sender (running rows included). `to` is who that is now, for the line shown while sending.
    const named = parsed.recipients.filter((r) => r !== BROADCAST);
    const broadcast = named.length < parsed.recipients.length;
    const to: string[] = [...new Set(named)];
    if (broadcast) for (const p of this.o.port.peers()) if (p.online && p.handle !== OPERATOR && !to.includes(p.handle)) to.push(p.handle);
    if (to.length === 0) {
      store.refuseSend(text, '@all reaches running rows and live sessions, and there are none right now.');
      return false;
    }
    const replyTo = composer.replyTo;
    const messageId = (this.o.newMessageId ?? operatorMessageId)();
    const status: SendStatus = {
      messageId,
      id: null,
      at: (this.o.now ?? Date.now)(),
      recipients: to.map((t) => ({ to: t, state: 'sending', woken: false })),
      error: null,
      duplicate: false,
    };
    store.startSend(text, status);
    const params: SendParams = { to: broadcast ? [...new Set(named), BROADCAST] : to, text: body, kind: replyTo ? 'response' : 'msg', messageId };
    if (replyTo) params.replyTo = replyTo.id;
    this.o.port.send(params).then(
      (result) => this.answered(messageId, to, result, text),
      (err: unknown) => this.answered(messageId, to, { error: { code: 'INTERNAL', message: err instanceof Error ? err.message : String(err) } }, text),
    );
    return true;
  }

  private answered(messageId: string, to: readonly string[], result: { ok: SendResult } | { error: SwbErrorValue }, text: string): void {
    if (this.disposed) return;
    if ('ok' in result) {
      this.o.store.sendAccepted(messageId, result.ok);
      const c = this.o.store.getState().composer;
      // Not over a new draft the operator has begun meanwhile.
      if (this.o.closeAfterSend && c.open && c.draft === '' && c.lastSend?.messageId === messageId) {
        this.o.store.closeComposer('');
        this.o.note('info', `sent #${result.ok.id} → ${to.map((t) => `@${line(t, 64)}`).join(' ')} (i: the mail view shows its receipts)`, to.length === 1 ? to[0]! : null);
      }
      return;
    }
    const error = { code: line(result.error.code, 40), message: line(result.error.message) };
    this.o.store.sendFailed(messageId, error);
    // Nothing was sent: give the operator the message back to fix and send again (unless they started another).
    this.o.store.restoreDraft(text);
    const row = to.length === 1 ? to[0]! : null;
    this.o.note('error', `not sent to ${to.map((t) => `@${line(t, 64)}`).join(' ')}: ${error.code}: ${error.message}`, row);
  }

  dispose(): void {
    this.disposed = true;
  }
}
