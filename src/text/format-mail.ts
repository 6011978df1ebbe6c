// How mail looks in a terminal. Every peer-supplied string passes sanitize() first: mail is
// data, and an agent's terminal must not obey escape sequences hidden in it.
import type { MailItem, ReceiptResult } from '../protocol/methods.js';
import { sanitize } from '../text/sanitize.js';

export function formatTime(ms: number | null): string {
  if (ms === null) return '-';
  const d = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

export function formatMailHeader(m: MailItem): string {
  const thread = m.replyTo !== null ? ` re #${m.replyTo}` : '';
  const state = m.state && m.state !== 'accepted' && m.state !== 'delivered' ? ` [${m.state}]` : '';
  return `#${m.id}  from ${sanitize(m.from, { singleLine: true })}  ${m.kind}${thread}  ${formatTime(m.createdAt)}${state}`;
}

/** The full message: header, then the text indented (bounded, sanitized). */
export function formatMail(m: MailItem): string {
  const body = sanitize(m.text, { maxChars: 16_384, maxLines: 400 })
    .split('\n')
    .map((l) => `    ${l}`)
    .join('\n');
  return `${formatMailHeader(m)}\n${body}`;
}

export function formatReceipts(r: ReceiptResult): string {
  const lines = [`#${r.id} (${sanitize(r.messageId, { singleLine: true })}) from ${r.from}, ${r.kind}, sent ${formatTime(r.createdAt)}`];
  for (const x of r.recipients) {
    const woken = x.wokenAt !== null && x.state !== 'read' && x.state !== 'replied' ? ' (woken)' : '';
    const steps = [
      `accepted ${formatTime(x.acceptedAt)}`,
      x.deliveredAt !== null ? `delivered ${formatTime(x.deliveredAt)}` : null,
      x.wokenAt !== null ? `${x.wokenBy === 'hook' ? 'told by its hook' : 'woken'} ${formatTime(x.wokenAt)}` : null,
      x.readAt !== null ? `read ${formatTime(x.readAt)}` : null,
      x.repliedAt !== null ? `replied ${formatTime(x.repliedAt)}` : null,
    ].filter(Boolean);
    lines.push(`  @${x.to}: ${x.state}${woken}  (${steps.join(', ')})`);
  }
  return lines.join('\n');
}

/** The most advanced step per recipient, counting a wake between delivered and read. */
export function receiptSummary(r: ReceiptResult): Array<{ to: string; state: string }> {
  return r.recipients.map((x) => ({ to: x.to, state: x.wokenAt !== null && (x.state === 'accepted' || x.state === 'delivered') ? 'woken' : x.state }));
}
