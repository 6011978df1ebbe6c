// What the mail core tells the operator of this client, as notes: new mail for the rows here or
// the operator, a row's own mail the hub refused, two rows held by their reply budget (and the
// grant that lets them go on).
import type { BudgetHeld } from '../hub/hub.js';
import type { OperatorPort } from '../hub/operator-port.js';
import { OPERATOR } from '../protocol/handle.js';
import { sanitize } from '../text/sanitize.js';
import { DisposableStore, type Disposable } from '../util/lifecycle.js';
import type { MailViewController } from './mail-view-controller.js';
import type { Note } from './note-strip.js';

const handle = (t: string) => `@${sanitize(t, { singleLine: true, maxChars: 64 })}`;

export class MailNotices implements Disposable {
  private readonly lifetime = new DisposableStore();

  constructor(
    private readonly o: {
      port: OperatorPort;
      /** Whether a row of this name runs here. */
      isRow: (name: string) => boolean;
      note: Note;
      mailView: MailViewController;
      /** The key shown in the held-pair notification for granting another budget (the keymap's grantBudget). */
      grantKey?: string;
    },
  ) {
    const { port, note, isRow } = o;
    this.lifetime.add(
      port.onMail((m) => {
        const rows = m.to.filter((t) => isRow(t) || t === OPERATOR);
        if (rows.length > 0) {
          const lines = m.text.split(/\r\n|\r|\n/);
          // A multi-line message shows its first line and says there is more.
          const more = lines.length > 1 ? ` (+${lines.length - 1} line${lines.length === 2 ? '' : 's'})` : '';
          const first = sanitize(lines[0] ?? '', { singleLine: true, maxChars: 200 }) + more;
          const line = (t: string) => sanitize(t, { singleLine: true, maxChars: 64 });
          note('mail', `@${line(m.from)} → ${rows.map((r) => `@${line(r)}`).join(' ')} [${line(m.kind)}] ${first}`, rows[0] ?? null, m.from === OPERATOR, m.replyTo, m.id);
        }
        o.mailView.arrived(m);
      }),
    );
    // A row's own mail that the hub refused is a delivery problem the operator should see (the
    // operator's sends report theirs on the composer line).
    this.lifetime.add(
      port.onRefused((r) => {
        if (!isRow(r.sender) || r.error.code === 'REPLY_BUDGET') return; // onHeld says it better
        const to = r.to.map(handle).join(' ');
        note('error', `@${r.sender} → ${to}: ${r.error.code}: ${sanitize(r.error.message, { singleLine: true, maxChars: 200 })}`, r.sender);
      }),
    );
    this.lifetime.add(port.onHeld((h) => this.held(h)));
  }

  /** Two rows ran out of their reply budget: the operator decides whether they go on. */
  private held(h: BudgetHeld): void {
    if (h.kind === 'depth') {
      this.o.note('error', `${handle(h.sender)}: a reply chain ${h.depth} deep among rows without you was refused (limit ${h.limit}); write to it to go on`, h.sender);
      return;
    }
    const keys = this.o.grantKey ? `${this.o.grantKey} grants ${h.limit} more, ` : '';
    this.o.note('error', `${handle(h.a)} ↔ ${handle(h.b)} held: ${h.used} messages to each other without you; ${keys}or write to either to go on`, h.sender);
  }

  /** Grants the newest held pair another budget. */
  grantNewestHeld(): void {
    const { port, note } = this.o;
    const held = port.heldPairs();
    const newest = held[held.length - 1];
    if (!newest) {
      note('info', 'no pair of rows is held by the reply budget', null);
      return;
    }
    void port.grantBudget(newest.a, newest.b).then((r) => {
      if ('error' in r) note('error', `grant failed: ${r.error.code}: ${sanitize(r.error.message, { singleLine: true, maxChars: 200 })}`, null);
      else note('info', `@${newest.a} ↔ @${newest.b}: granted ${r.ok.budget} more messages`, newest.a);
    });
  }

  dispose(): void {
    this.lifetime.dispose();
  }
}
