// Mail as threads by replyTo, and the lines the mail view shows. Threads are ordered by their latest
// message (newest activity first); replies follow their parent oldest first, indented. A reply whose
// parent is not loaded (an older page, or retention) starts its own thread, marked "re #id".
// Every peer string that leaves this module for the screen has been through sanitize.
import { OPERATOR } from '../protocol/handle.js';
import { sanitize } from '../text/sanitize.js';
import type { RecipientStatus } from './composer-state.js';
import { describeRecipient } from './composer-receipts.js';
import type { MailEntry } from './mail-view-state.js';

export interface ThreadLine {
  entry: MailEntry;
  depth: number;
  /** The parent id when this reply's parent is not loaded. */
  orphanOf: number | null;
}

export const MAX_DEPTH = 6;

export function buildThreads(entries: readonly MailEntry[]): ThreadLine[] {
  const byId = new Map(entries.map((e) => [e.id, e]));
  const children = new Map<number, MailEntry[]>();
  const roots: MailEntry[] = [];
  for (const e of entries) {
    if (e.replyTo !== null && e.replyTo !== e.id && byId.has(e.replyTo)) {
      const list = children.get(e.replyTo) ?? [];
      list.push(e);
      children.set(e.replyTo, list);
    } else roots.push(e);
  }
  for (const list of children.values()) list.sort((a, b) => a.id - b.id);
  // Latest activity per root, computed iteratively (threads can be deep).
  const latest = new Map<number, number>();
  const lines: ThreadLine[][] = [];
  const visited = new Set<number>();
  for (const root of roots) {
    const out: ThreadLine[] = [];
    let max = root.id;
    const stack: Array<{ entry: MailEntry; depth: number }> = [{ entry: root, depth: 0 }];
    while (stack.length > 0) {
      const { entry, depth } = stack.pop()!;
      if (visited.has(entry.id)) continue; // a replyTo cycle cannot loop us
      visited.add(entry.id);
      max = Math.max(max, entry.id);
      out.push({ entry, depth, orphanOf: depth === 0 && entry.replyTo !== null && !byId.has(entry.replyTo) ? entry.replyTo : null });
      const kids = children.get(entry.id) ?? [];
      for (let i = kids.length - 1; i >= 0; i--) stack.push({ entry: kids[i]!, depth: depth + 1 });
    }
    latest.set(root.id, max);
    lines.push(out);
  }
  lines.sort((a, b) => (latest.get(b[0]!.entry.id) ?? 0) - (latest.get(a[0]!.entry.id) ?? 0));
  return lines.flat();
}

const isUnread = (r: RecipientStatus | undefined) => r !== undefined && (r.state === 'accepted' || r.state === 'delivered' || r.state === 'sending');

/**
 * Unread from the view's point of view: the filtered handle's copy when it is a recipient, else the
 * operator's copy, else whether any recipient has not read it.
 */
export function unreadFor(entry: MailEntry, filter: string | null): boolean {
  const own = (h: string) => entry.receipts.find((r) => r.to === h);
  if (filter !== null && entry.to.includes(filter)) return isUnread(own(filter));
  if (entry.to.includes(OPERATOR)) return isUnread(own(OPERATOR));
  return entry.receipts.some(isUnread);
}

/** Whose copies "mark read" marks: the filtered handle's, else the operator's, else every unread recipient's. */
export function markReadTargets(entry: MailEntry, filter: string | null): string[] {
  const unread = entry.receipts.filter(isUnread).map((r) => r.to);
  if (filter !== null && entry.to.includes(filter)) return unread.filter((h) => h === filter);
  if (entry.to.includes(OPERATOR)) return unread.filter((h) => h === OPERATOR);
  return unread;
}

/**
 * Who "mark all read" marks for on one message: the filtered handle's copy, or with no filter only
 * the operator's own (reading every row's mail at once would keep those rows from being woken for it).
 */
export function markAllReadTargets(entry: MailEntry, filter: string | null): string[] {
  const who = filter ?? OPERATOR;
  return entry.receipts.filter((r) => r.to === who && isUnread(r)).map((r) => r.to);
}

/** "read 2/3", "delivered", "woken", "expired 1/2": the receipts at a glance. */
export function receiptBadge(receipts: readonly RecipientStatus[]): string {
  const n = receipts.length;
  if (n === 0) return '';
  const read = receipts.filter((r) => r.state === 'read' || r.state === 'replied').length;
  const replied = receipts.filter((r) => r.state === 'replied').length;
  const expired = receipts.filter((r) => r.state === 'expired').length;
  if (n === 1) {
    const r = receipts[0]!;
    return r.woken && (r.state === 'accepted' || r.state === 'delivered') ? 'woken' : r.state;
  }
  const parts: string[] = [];
  if (replied > 0) parts.push(`replied ${replied}/${n}`);
  else parts.push(`read ${read}/${n}`);
  if (expired > 0) parts.push(`expired ${expired}`);
  return parts.join(' ');
}

/** A handle for display (handles are validated by the hub, but shown text always goes through sanitize). */
export function shownHandle(handle: string): string {
  return sanitize(handle, { singleLine: true, maxChars: 64 });
}

function hhmm(at: number): string {
  const d = new Date(at);
  return `${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`;
}

export interface MailLineView {
  id: number;
  unread: boolean;
  /** Indentation and thread glyph. */
  prefix: string;
  /** "#12 10:42 alice → bob, carol" (sanitized). */
  head: string;
  kind: string;
  /** First line of the text (sanitized, single line). */
  preview: string;
  badge: string;
}

export function mailLineView(line: ThreadLine, filter: string | null): MailLineView {
  const e = line.entry;
  const depth = Math.min(line.depth, MAX_DEPTH);
  const prefix = depth === 0 ? (line.orphanOf !== null ? `re #${line.orphanOf} ` : '') : `${'  '.repeat(depth - 1)}└ `;
  const to = e.to.length > 3 ? `${e.to.slice(0, 3).map(shownHandle).join(', ')} +${e.to.length - 3}` : e.to.map(shownHandle).join(', ');
  const firstLine = e.text.split(/\r\n|\r|\n/, 1)[0] ?? '';
  return {
    id: e.id,
    unread: unreadFor(e, filter),
    prefix,
    head: `#${e.id} ${hhmm(e.createdAt)} ${shownHandle(e.from)} → ${to}`,
    kind: sanitize(e.kind, { singleLine: true, maxChars: 16 }),
    preview: sanitize(firstLine, { singleLine: true, maxChars: 300 }),
    badge: receiptBadge(e.receipts),
  };
}

/** The opened message: header lines, receipts, then the text (sanitized, at most `maxLines` lines). */
export function mailDetailLines(e: MailEntry, maxLines: number): { header: string[]; body: string[] } {
  const when = new Date(e.createdAt);
  const date = `${when.getFullYear()}-${String(when.getMonth() + 1).padStart(2, '0')}-${String(when.getDate()).padStart(2, '0')} ${hhmm(e.createdAt)}`;
  const header = [
    `#${e.id}  from @${shownHandle(e.from)}  to ${e.to.map((t) => `@${shownHandle(t)}`).join(' ')}  [${sanitize(e.kind, { singleLine: true, maxChars: 16 })}]  ${date}${e.replyTo !== null ? `  re #${e.replyTo}` : ''}`,
    e.receipts.length > 0 ? `receipts: ${e.receipts.map((r) => describeRecipient(r)).join(' · ')}` : 'receipts: none',
  ];
  const body = maxLines <= 0 ? [] : sanitize(e.text, { maxLines, maxChars: 16_384 }).split('\n');
  return { header, body };
}
