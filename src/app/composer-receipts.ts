// Live receipts of the operator's last send: the hub's answer, then receipt changes as they happen
// (forward only), and a one-line summary for the composer.
import type { ReceiptState, SendResult } from '../protocol/methods.js';
import { sanitize } from '../text/sanitize.js';
import type { RecipientProgress, RecipientStatus, SendError, SendStatus } from './composer-state.js';

const RANK: Record<RecipientProgress, number> = { sending: -1, accepted: 0, delivered: 1, read: 2, replied: 3, expired: 9 };

/** The later of two states (receipts never move back). */
export function laterState(a: RecipientProgress, b: RecipientProgress): RecipientProgress {
  return RANK[b] > RANK[a] ? b : a;
}

/** Applies one receipt change to a recipient list; the same list when nothing moved. */
export function advanceRecipients(
  recipients: readonly RecipientStatus[],
  to: string,
  state: ReceiptState | 'woken',
): readonly RecipientStatus[] {
  let changed = false;
  const next = recipients.map((r) => {
    if (r.to !== to) return r;
    if (state === 'woken') {
      if (r.woken) return r;
      changed = true;
      return { ...r, woken: true };
    }
    const s = laterState(r.state, state);
    if (s === r.state) return r;
    changed = true;
    return { ...r, state: s };
  });
  return changed ? next : recipients;
}

export function applySendResult(status: SendStatus, result: SendResult): SendStatus {
  const byTo = new Map(status.recipients.map((r) => [r.to, r]));
  const recipients = result.recipients.map((r) => {
    const prior = byTo.get(r.to);
    return { to: r.to, state: prior ? laterState(prior.state, r.state) : r.state, woken: prior?.woken ?? false };
  });
  return { ...status, id: result.id, recipients, duplicate: result.duplicate, error: null };
}

export function applySendError(status: SendStatus, error: SendError): SendStatus {
  return { ...status, error };
}

export function applyReceiptToSend(status: SendStatus, change: { id: number; to: string; state: ReceiptState | 'woken' }): SendStatus {
  if (status.id !== change.id) return status;
  const recipients = advanceRecipients(status.recipients, change.to, change.state);
  return recipients === status.recipients ? status : { ...status, recipients };
}

const GLYPH: Record<RecipientProgress, string> = {
  sending: '…',
  accepted: '·',
  delivered: '✓',
  read: '✓✓',
  replied: '↩',
  expired: '✗',
};

/** "@alice ✓ delivered, woken" — one recipient's progress in words. */
export function describeRecipient(r: RecipientStatus): string {
  return `@${sanitize(r.to, { singleLine: true, maxChars: 64 })} ${GLYPH[r.state]} ${r.state}${r.woken && r.state !== 'read' && r.state !== 'replied' ? ', woken' : ''}`;
}

/** The composer's receipt line: "#42 → @alice ✓ delivered · @bob · accepted" or the error with its code. */
export function summarizeSend(status: SendStatus): { text: string; tone: 'error' | 'pending' | 'ok' } {
  if (status.error) return { text: `✗ ${status.error.code}: ${status.error.message}`, tone: 'error' };
  const head = status.id === null ? 'sending' : `#${status.id}${status.duplicate ? ' (already sent)' : ''}`;
  if (status.recipients.length === 0) return { text: `${head} → nobody`, tone: 'ok' };
  const pending = status.id === null;
  return { text: `${head} → ${status.recipients.map(describeRecipient).join(' · ')}`, tone: pending ? 'pending' : 'ok' };
}
