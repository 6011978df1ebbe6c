// The mail view as plain data: the loaded pages of history (newest first, paged from the store, never
// loaded whole), the row filter, the selection and the opened message. Pure transitions below.
import type { MailItem, RecipientReceipt } from '../protocol/methods.js';
import { advanceRecipients } from './composer-receipts.js';
import type { PeerView, RecipientStatus } from './composer-state.js';

export interface MailEntry {
  id: number;
  from: string;
  to: readonly string[];
  kind: string;
  /** Raw peer text: sanitize before showing (the mail-view selectors do). */
  text: string;
  replyTo: number | null;
  createdAt: number;
  receipts: readonly RecipientStatus[];
}

export interface MailViewState {
  /** Only mail from or to this handle; null = all mail. */
  filter: string | null;
  /** Loaded messages, newest first. */
  entries: readonly MailEntry[];
  /** Older pages remain in the store. */
  hasMore: boolean;
  selectedId: number | null;
  /** The message shown in full, if any. */
  openId: number | null;
}

export const MAIL_PAGE = 100;

export function initialMailView(): MailViewState {
  return { filter: null, entries: [], hasMore: false, selectedId: null, openId: null };
}

export function toMailEntry(item: MailItem, receipts: readonly RecipientReceipt[] | undefined): MailEntry {
  return {
    id: item.id,
    from: item.from,
    to: item.to,
    kind: item.kind,
    text: item.text,
    replyTo: item.replyTo,
    createdAt: item.createdAt,
    receipts: (receipts ?? []).map((r) => ({ to: r.to, state: r.state, woken: r.wokenAt !== null })),
  };
}

export function matchesFilter(entry: Pick<MailEntry, 'from' | 'to'>, filter: string | null): boolean {
  return filter === null || entry.from === filter || entry.to.includes(filter);
}

/** A fresh view (filter set, nothing loaded yet). */
export function resetMailView(filter: string | null): MailViewState {
  return { ...initialMailView(), filter, hasMore: true };
}

/** An older page arrived (newest first); duplicates are ignored. */
export function appendPage(mv: MailViewState, page: readonly MailEntry[], hasMore: boolean): MailViewState {
  const seen = new Set(mv.entries.map((e) => e.id));
  const fresh = page.filter((e) => !seen.has(e.id));
  return { ...mv, entries: fresh.length > 0 ? [...mv.entries, ...fresh] : mv.entries, hasMore };
}

/** New mail while the view is open: shown at once if it passes the filter. */
export function addArrived(mv: MailViewState, entry: MailEntry): MailViewState {
  if (!matchesFilter(entry, mv.filter) || mv.entries.some((e) => e.id === entry.id)) return mv;
  return { ...mv, entries: [entry, ...mv.entries] };
}

export function applyReceiptToView(mv: MailViewState, change: { id: number; to: string; state: RecipientStatus['state'] | 'woken' }): MailViewState {
  let changed = false;
  const entries = mv.entries.map((e) => {
    if (e.id !== change.id || change.state === 'sending') return e;
    const receipts = advanceRecipients(e.receipts, change.to, change.state);
    if (receipts === e.receipts) return e;
    changed = true;
    return { ...e, receipts };
  });
  return changed ? { ...mv, entries } : mv;
}

/** The filters the view cycles through: all mail, the focused row, the other rows, other known handles. */
export function mailFilters(rows: readonly { name: string }[], peers: readonly PeerView[], focused: string | null): Array<string | null> {
  const out: Array<string | null> = [null];
  if (focused && rows.some((r) => r.name === focused)) out.push(focused);
  for (const r of rows) if (!out.includes(r.name)) out.push(r.name);
  for (const p of peers) if (!out.includes(p.handle)) out.push(p.handle);
  return out;
}

export function nextFilter(current: string | null, filters: readonly (string | null)[], step: number): string | null {
  if (filters.length === 0) return null;
  const i = filters.indexOf(current);
  const n = filters.length;
  return filters[((i < 0 ? 0 : i) + step + n * Math.abs(step)) % n] ?? null;
}
