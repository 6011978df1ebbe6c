// The page's tools as the page and the server both speak them: each method's params and answer, and
// each push topic's data. Types only, like page-protocol.ts (whose `req`/`res`/`push` frames carry
// them): the page bundle must not carry zod, and the server checks every request's params with its
// own schemas (mail-tools.ts, row-tools.ts) before a method runs.
import type { NewRowRequest } from '../app/intents.js';
import type { WakePolicy } from '../app/app-state.js';
import type { MailItem, MessageKind, PeerInfo, ReceiptChanged, RecipientReceipt, ReceiptResult, SendResult } from '../protocol/methods.js';
import type { RowUsageView } from '../usage/row-usage-view.js';
import type { PageNote } from './page-protocol.js';

/**
 * Codes a tool answers with besides the hub's own (UNKNOWN_PEER, MESSAGE_TOO_LARGE, REPLY_BUDGET ...,
 * src/protocol/error-codes.ts), which pass through unchanged from the operator port.
 */
export type ToolErrorCode =
  | 'BAD_REQUEST' // params that do not check (the message says which field and why)
  | 'UNKNOWN_METHOD'
  | 'READ_ONLY' // a view-only page asked for a change
  | 'FORBIDDEN' // a credential that is not the operator's
  | 'NOT_FOUND' // no such row (or message)
  | 'CONFIRM_REQUIRED' // the change would end a running program or a worktree: ask the operator, then send confirm: true
  | 'UNAVAILABLE' // this server does not offer it (no worktrees, no new-row dialog ...)
  | 'REFUSED' // the server tried and could not (the message says why, in the dashboard's words)
  | 'INTERNAL';

/** A message as the mail view lists it: the item and its receipts, one per recipient. */
export interface MailEntryView extends MailItem {
  receipts: Array<Pick<RecipientReceipt, 'to' | 'state'> & { woken: boolean }>;
}

/** One line of a worktree row's review: its text and what kind of diff line it is (for its colour). */
export interface ReviewLine {
  kind: 'add' | 'del' | 'hunk' | 'head' | 'text';
  text: string;
}

/** What a row's tools may offer on this server (the page shows only what works). */
export interface DeskInfo {
  profiles: string[];
  canCreateRows: boolean;
  /** Rows closed while this server runs, newest first (reopen takes one). */
  closed: Array<{ name: string; command: string; at: number }>;
  parked: Array<{ recipient: string; count: number }>;
}

/** Each method's params and its answer. */
export interface ToolMethods {
  peers: { params: Record<string, never>; result: { peers: PeerInfo[] } };
  'mail.send': { params: { to: string[]; text: string; kind?: MessageKind; replyTo?: number; messageId?: string }; result: SendResult };
  'mail.history': { params: { before?: number; limit?: number; peer?: string }; result: { items: MailEntryView[]; more: boolean } };
  'mail.receipts': { params: { id: number }; result: ReceiptResult };
  /** Marks a message read the way the dashboard's mail view does: the filtered handle's copy, else the operator's, else every unread one. */
  'mail.markRead': { params: { id: number; filter?: string | null }; result: { updated: number; for: string[] } };
  notes: { params: Record<string, never>; result: { notes: PageNote[] } };
  explain: { params: { row: string; verbose?: boolean }; result: { row: string; text: string } };
  desk: { params: Record<string, never>; result: DeskInfo };
  'wake.set': { params: { row: string; policy: WakePolicy }; result: { row: string; policy: WakePolicy; said: string } };
  'row.new': { params: NewRowRequest & { cols?: number; rows?: number }; result: { name: string; path?: string; branch?: string; said: string } };
  'row.restart': { params: { row: string; confirm?: boolean }; result: { row: string; resumed: boolean; said: string } };
  'row.close': { params: { row: string; confirm?: boolean }; result: { row: string; said: string } };
  'row.reopen': { params: { row: string; cols?: number; rows?: number }; result: { row: string; said: string } };
  'row.review': { params: { row: string }; result: { row: string; title: string; lines: ReviewLine[] } };
  /** Removes a worktree row's worktree and closes it; git refuses when work would be lost (DIRTY, UNMERGED). */
  'worktree.remove': { params: { row: string; confirm?: boolean }; result: { row: string; said: string } };
  'parked.redeliver': { params: { row: string }; result: { row: string; messages: number; said: string } };
  'parked.discard': { params: { row: string }; result: { row: string; messages: number; said: string } };
  'budget.grant': { params: { a: string; b: string }; result: { granted: boolean; budget: number } };
}

export type ToolMethodName = keyof ToolMethods;

/**
 * What a page is told of, for a browser notification (opt-in): the server's notifier's own
 * events (waiting, mail to the operator, a held wake), and every row that exits.
 */
export interface PageAlert {
  kind: 'waiting' | 'mail' | 'exited' | 'wake-held';
  row: string;
  /** One line, ready to show. */
  text: string;
  at: number;
}

/** Each push topic's data (a `push` frame's `topic` and `data`). */
export interface ToolPushes {
  /** Accepted mail, any sender, any recipient (the operator sees all traffic, as in the mail view). */
  mail: MailEntryView;
  receipt: ReceiptChanged & { from: string };
  /** The peers as they are now (after one or more changes). */
  peers: { peers: PeerInfo[] };
  /** A new note of the notification list (the dashboard's notes, from the same sources). */
  note: PageNote;
  alert: PageAlert;
  /** An agent row's usage, cost or budget mark changed. */
  usage: { row: string; usage: RowUsageView };
  /** A row's wake policy changed (from any client). */
  wake: { row: string; policy: WakePolicy };
}

export type ToolPushTopic = keyof ToolPushes;
