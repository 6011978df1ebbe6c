// The protocol's constants and every RPC method's result types (DESIGN §4, docs/PROTOCOL.md). The
// params schemas are zod schemas in method-params.ts, which only the hub loads: this file is on the
// `swb send` path and must stay free of zod.
import type { HubLimits } from './limits.js';
import type { MessageKind } from './message-rules.js';

export type {
  ExplainParams,
  HelloParams,
  HistoryParams,
  ListParams,
  NewRowParams,
  ReadParams,
  ReceiptParams,
  SendParams,
  WaitParams,
} from './method-params.js';

export { MESSAGE_ID_PATTERN, MESSAGE_KINDS, type MessageKind } from './message-rules.js';

export const RECEIPT_STATES = ['accepted', 'delivered', 'read', 'replied', 'expired'] as const;
export type ReceiptState = (typeof RECEIPT_STATES)[number];

/** One row of `swb ls`. */
export interface RowListing {
  name: string;
  profile: string | null;
  command: string;
  running: boolean;
  pid: number | null;
  exitCode: number | null;
  /** Why an exited row's program never ran ("command not found: claude"), else null. */
  exitReason?: string | null;
  state: string | null;
  /** Why a `waiting` row waits: needs a human for a permission or a question, or sits at an idle prompt. */
  reason?: 'permission' | 'question' | 'idle-prompt' | null;
  unread: number;
  wake: string | null;
  /** ms epoch the current incarnation started. */
  startedAt: number;
  restored: 'resumed' | 'fresh' | null;
  attached: boolean;
}

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
  /** The state the dashboard reports: the screen (after the quiet time) fused with the agent's hooks. */
  state: RowAgentState;
  /** Why a waiting row waits for the operator, when known. */
  reason?: 'permission' | 'question' | 'idle-prompt' | null;
  /** Both signals, their ages, which won and why (issue #37). */
  signals?: {
    won: 'screen' | 'hook' | 'both';
    rule: string;
    why: string;
    screen: { state: RowAgentState; detected: RowAgentState; ageMs: number };
    hook: { event: string; kind: string; reason: string | null; ageMs: number } | null;
  };
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
