// Every RPC method's params (parsed with a strict schema) and result types (DESIGN §4, docs/PROTOCOL.md).
import { array, bool, int, literal, object, optional, str, type Infer } from '../util/schema.js';
import { HANDLE_HINT, HANDLE_PATTERN } from './handle.js';
import type { HubLimits } from './limits.js';

const handle = str({ pattern: HANDLE_PATTERN, patternHint: HANDLE_HINT });
// Ids are SQLite integers: anything past 2^53 could not name a message and would not fit the column.
const messageRef = int({ min: 1, max: Number.MAX_SAFE_INTEGER });

export const MESSAGE_KINDS = ['msg', 'task', 'response', 'data'] as const;
export type MessageKind = (typeof MESSAGE_KINDS)[number];

export const MESSAGE_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

export const RECEIPT_STATES = ['accepted', 'delivered', 'read', 'replied', 'expired'] as const;
export type ReceiptState = (typeof RECEIPT_STATES)[number];

export const helloParams = object({
  version: int({ min: 1 }),
  session: optional(handle),
  token: optional(str({ min: 1, max: 256 })),
  /** Push mail.arrived / receipt.changed / peer.changed on this connection. */
  subscribe: optional(bool),
  /** Free-form client label shown in `swb peers` (e.g. "cli", "tui"). */
  client: optional(str({ max: 32 })),
});
export type HelloParams = Infer<typeof helloParams>;

export const sendParams = object({
  // A handle, or handle@node on another machine (src/federation/remote-address.ts).
  to: array(str({ min: 1, max: 129 }), { min: 1, max: 256 }),
  text: str(),
  kind: optional(literal(...MESSAGE_KINDS)),
  replyTo: optional(messageRef),
  messageId: optional(str({ pattern: MESSAGE_ID_PATTERN, patternHint: 'a messageId is 1-128 of A-Z a-z 0-9 . _ : -' })),
});
export type SendParams = Infer<typeof sendParams>;

export const listParams = object({
  /** Only mail with a per-recipient sequence above this. */
  after: optional(int({ min: 0 })),
  unreadOnly: optional(bool),
  limit: optional(int({ min: 1, max: 1000 })),
});
export type ListParams = Infer<typeof listParams>;

export const readParams = object({ ids: array(messageRef, { min: 1, max: 1000 }) });
export type ReadParams = Infer<typeof readParams>;

export const waitParams = object({
  timeoutMs: int({ min: 0, max: 30_000 }),
  /** Wait for mail with a sequence above this; without it, any unread mail ends the wait. */
  after: optional(int({ min: 0 })),
  /** Look without marking anything delivered (a caller watching for one particular reply). */
  peek: optional(bool),
});
export type WaitParams = Infer<typeof waitParams>;

export const receiptParams = object({ id: messageRef });
export type ReceiptParams = Infer<typeof receiptParams>;

/** Operator only: register a row's handle and mint its token (the TUI does this for each row). */
export const registerRowParams = object({ handle });
/** Operator only: record that the wake controller nudged a recipient about these messages. */
export const wokenParams = object({ recipient: handle, ids: array(messageRef, { min: 1, max: 1000 }) });
/** Operator only: a page of all mail, newest first, for the mail view. */
export const historyParams = object({
  before: optional(messageRef),
  limit: optional(int({ min: 1, max: 500 })),
  peer: optional(handle),
});
export type HistoryParams = Infer<typeof historyParams>;

/** Why a row of the dashboard is in its state (answered by the dashboard that runs the row). */
export const explainParams = object({ row: handle, verbose: optional(bool) });
export type ExplainParams = Infer<typeof explainParams>;

export const emptyParams = object({});

/** Operator only, answered by the workspace server: a new row (`swb new`). */
export const newRowParams = object({
  name: optional(handle),
  profile: optional(str({ min: 1, max: 64 })),
  /** The program and its arguments; absent: the profile's own command. */
  command: optional(array(str({ min: 1, max: 4096 }), { min: 1, max: 256 })),
  cwd: optional(str({ min: 1, max: 4096 })),
  /** Run it in a git worktree of its own (branch default swb/<name>, base default HEAD). */
  worktree: optional(object({ branch: optional(str({ min: 1, max: 200 })), base: optional(str({ min: 1, max: 200 })), reuseBranch: optional(bool) })),
});
export type NewRowParams = Infer<typeof newRowParams>;
export const reviewParams = object({ row: handle });
export const eventsParams = object({
  kinds: optional(array(literal('mail', 'receipt', 'state', 'wake', 'row'), { max: 5 })),
  row: optional(handle),
});
export const mergeParams = object({
  row: handle,
  mode: optional(literal('merge', 'rebase', 'squash')),
  into: optional(str({ min: 1, max: 200 })),
  commitAll: optional(bool),
});
export const removeRowParams = object({ row: handle, force: optional(bool), deleteBranch: optional(bool) });
export const killRowParams = object({ row: handle });
export const stopServerParams = object({ force: optional(bool) });
export const parkedParams = object({ row: handle, action: literal('redeliver', 'discard') });

/** One row of `swb ls`. */
export interface RowListing {
  name: string;
  profile: string | null;
  command: string;
  running: boolean;
  pid: number | null;
  exitCode: number | null;
  state: string | null;
  unread: number;
  wake: string | null;
  /** ms epoch the current incarnation started. */
  startedAt: number;
  restored: 'resumed' | 'fresh' | null;
  attached: boolean;
}

/** A page of known sessions in handle order, after the handle `after`. */
export const peersParams = object({ after: optional(handle), limit: optional(int({ min: 1, max: 500 })), onlineOnly: optional(bool) });

/** Operator only: give two rows another reply budget. */
export const grantParams = object({ a: handle, b: handle });

/** Operator only: give a row's handle back (it stays reserved for its row across restarts until then). */
export const releaseParams = object({ handle });

/** `remote`: a session on another node (`handle@node`), known here because mail went to or came from it. */
export type SessionRole = 'row' | 'operator' | 'participant' | 'remote';

export interface PeerInfo {
  handle: string;
  online: boolean;
  role: SessionRole;
  unread: number;
  /** Rows this one used up its reply budget with; they wait for the operator. */
  heldWith?: string[];
  /** A session on another node (role remote): that node's name, and ms since it last told its presence. */
  node?: string;
  ageMs?: number;
}

export interface HelloResult {
  session: string;
  role: SessionRole;
  /** The highest per-recipient sequence this session has been given: a cursor for "mail after now". */
  lastSeq: number;
  limits: HubLimits;
  protocolVersion: number;
}

export interface RecipientReceipt {
  to: string;
  seq: number;
  state: ReceiptState;
  acceptedAt: number;
  deliveredAt: number | null;
  wokenAt: number | null;
  /** How it was told: a wake line swb typed, or the agent's own hook at the end of a turn. */
  wokenBy: 'typed' | 'hook' | null;
  readAt: number | null;
  repliedAt: number | null;
}

export interface SendResult {
  id: number;
  messageId: string;
  /** True when this send was a retry of a message already accepted (nothing new stored). */
  duplicate: boolean;
  recipients: Array<{ to: string; seq: number; state: ReceiptState }>;
  /** Broadcast recipients it did not reach (a full inbox), each with the refusal. */
  skipped?: Array<{ to: string; code: string; message: string; details?: Record<string, unknown> }>;
}

export interface MailItem {
  id: number;
  messageId: string;
  from: string;
  to: string[];
  kind: MessageKind;
  text: string;
  replyTo: number | null;
  createdAt: number;
  /** The reading session's per-recipient sequence and receipt (absent in history for non-recipients). */
  seq?: number;
  state?: ReceiptState;
}

export interface ReceiptResult {
  id: number;
  messageId: string;
  from: string;
  kind: MessageKind;
  createdAt: number;
  recipients: RecipientReceipt[];
}

/** Server → client notifications. */
export interface MailArrived {
  message: MailItem;
}
export interface ReceiptChanged {
  id: number;
  to: string;
  state: ReceiptState | 'woken';
  at: number;
}
export interface PeerChanged {
  handle: string;
  online: boolean;
  role: SessionRole;
}

export type RowAgentState = 'busy' | 'idle' | 'waiting' | 'exited' | 'unknown';

/** One rule the detector tried on the row's latest screen, in priority order. */
export interface RuleTrialInfo {
  rule: string;
  state: RowAgentState;
  priority: number;
  matched: boolean;
  region: string;
  /** Matched screen text, or why the rule did not match (sanitized). */
  evidence: string;
}

export interface RowExplainResult {
  row: string;
  profile: string;
  /** The state the dashboard reports (after the quiet time). */
  state: RowAgentState;
  /** What the rules say about the newest screen, before the quiet time. */
  detected: RowAgentState;
  /** The rule that decided, or null (no rule matched, the process exited, or no screen yet). */
  rule: string | null;
  /** The screen region that rule read (e.g. "bottom 2 lines"). */
  region: string;
  /** The text it matched (sanitized, single line). */
  evidence: string;
  quietMs: number;
  stillForMs: number;
  /** The rules say idle, but the screen has not been still for the quiet time yet. */
  idlePending: boolean;
  exitCode: number | null;
  warning: string | null;
  /** May swb type into the row now? */
  prompt: { free: boolean; reason: string; detail: string };
  wake: { policy: 'auto' | 'notify' | 'off'; phase: string; reason: string };
  /** Every rule tried (only with `verbose`). */
  tried?: RuleTrialInfo[];
  /** The explanation as the dashboard's explain view shows it (sanitized lines). */
  text: string;
}

export const METHODS = [
  'hello',
  'mail.send',
  'mail.list',
  'mail.read',
  'mail.wait',
  'mail.subscribe',
  'mail.history',
  'mail.woken',
  'receipt.get',
  'peers.list',
  'rows.explain',
  'session.registerRow',
  'hub.shutdown',
] as const;
export type MethodName = (typeof METHODS)[number];
