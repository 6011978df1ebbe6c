// Every RPC method's params as a strict zod schema (docs/PROTOCOL.md), parsed by the hub before a
// handler sees them (src/hub/rpc-handlers.ts). Apart from methods.ts, which holds the constants and
// result types the CLI client needs: `swb send` must not load zod. Each schema is built at its
// first use (lazy-schema.ts says why): a server builds a method's params when a client first calls it.
import * as z from 'zod';
import { lazySchema } from './lazy-schema.js';
import { HANDLE_HINT, HANDLE_PATTERN } from './handle.js';
import { HOOK_PROMPT_MAX_CHARS, HOOK_SESSION_ID, HOOK_WORD } from './limits.js';
import { MESSAGE_ID_PATTERN, MESSAGE_KINDS } from './message-rules.js';
import { MAX_CAPACITY, MAX_REASON_CHARS, MAX_RESOURCES_PER_REQUEST, RESOURCE_NAME_HINT, RESOURCE_NAME_PATTERN } from './resource-name.js';

const handle = lazySchema(() => z.string().regex(HANDLE_PATTERN, { error: HANDLE_HINT }));
// Ids are SQLite integers: anything past 2^53 could not name a message and would not fit the column.
const messageRef = lazySchema(() => z.int().min(1));
const messageRefs = lazySchema(() => z.array(messageRef()).min(1).max(1000));

export const helloParams = lazySchema(() =>
  z.strictObject({
    version: z.int().min(1),
    session: z.optional(handle()),
    token: z.optional(z.string().min(1).max(256)),
    /** Push mail.arrived / receipt.changed / peer.changed on this connection. */
    subscribe: z.optional(z.boolean()),
    /** Free-form client label shown in `swb peers` (e.g. "cli", "tui"). */
    client: z.optional(z.string().max(32)),
  }),
);
export type HelloParams = z.infer<ReturnType<typeof helloParams>>;

export const sendParams = lazySchema(() =>
  z.strictObject({
    // A handle, or handle@node on another machine (src/protocol/remote-address.ts).
    to: z.array(z.string().min(1).max(129)).min(1).max(256),
    text: z.string(),
    kind: z.optional(z.enum(MESSAGE_KINDS)),
    replyTo: z.optional(messageRef()),
    messageId: z.optional(z.string().regex(MESSAGE_ID_PATTERN, { error: 'a messageId is 1-128 of A-Z a-z 0-9 . _ : -' })),
  }),
);
export type SendParams = z.infer<ReturnType<typeof sendParams>>;

const SEND_KEYS: ReadonlySet<string> = new Set(['to', 'text', 'kind', 'replyTo', 'messageId']);
const KINDS: ReadonlySet<string> = new Set(MESSAGE_KINDS);

/**
 * The common `mail.send` checked by hand, as the hub's hot path (issue #33): the params themselves
 * when `sendParams` would accept them as they are, else undefined (the schema then parses them and
 * words any refusal). It accepts nothing the schema refuses; anything unusual is left to the schema.
 */
export function plainSendParams(raw: unknown): SendParams | undefined {
  if (typeof raw !== 'object' || raw === null || Object.getPrototypeOf(raw) !== Object.prototype) return undefined;
  const p = raw as Record<string, unknown>;
  for (const key in p) if (!SEND_KEYS.has(key)) return undefined;
  const { to, text, kind, replyTo, messageId } = p;
  if (!Array.isArray(to) || to.length < 1 || to.length > 256 || typeof text !== 'string') return undefined;
  for (const t of to) if (typeof t !== 'string' || t.length < 1 || t.length > 129) return undefined;
  if (kind !== undefined && !(typeof kind === 'string' && KINDS.has(kind))) return undefined;
  if (replyTo !== undefined && !(Number.isSafeInteger(replyTo) && (replyTo as number) >= 1)) return undefined;
  if (messageId !== undefined && !(typeof messageId === 'string' && MESSAGE_ID_PATTERN.test(messageId))) return undefined;
  // Absent, not undefined: the schema's output has no key for an optional field left out.
  if (('kind' in p && kind === undefined) || ('replyTo' in p && replyTo === undefined) || ('messageId' in p && messageId === undefined)) return undefined;
  return p as SendParams;
}

export const listParams = lazySchema(() =>
  z.strictObject({
    /** Only mail with a per-recipient sequence above this. */
    after: z.optional(z.int().min(0)),
    unreadOnly: z.optional(z.boolean()),
    limit: z.optional(z.int().min(1).max(1000)),
  }),
);
export type ListParams = z.infer<ReturnType<typeof listParams>>;

export const readParams = lazySchema(() => z.strictObject({ ids: messageRefs() }));
export type ReadParams = z.infer<ReturnType<typeof readParams>>;

export const waitParams = lazySchema(() =>
  z.strictObject({
    timeoutMs: z.int().min(0).max(30_000),
    /** Wait for mail with a sequence above this; without it, any unread mail ends the wait. */
    after: z.optional(z.int().min(0)),
    /** Look without marking anything delivered (a caller watching for one particular reply). */
    peek: z.optional(z.boolean()),
  }),
);
export type WaitParams = z.infer<ReturnType<typeof waitParams>>;

export const subscribeParams = lazySchema(() => z.strictObject({ scope: z.optional(z.enum(['mine', 'all'])) }));

export const receiptParams = lazySchema(() => z.strictObject({ id: messageRef() }));
export type ReceiptParams = z.infer<ReturnType<typeof receiptParams>>;

/** Operator only: register a row's handle and mint its token (the TUI does this for each row). */
export const registerRowParams = lazySchema(() => z.strictObject({ handle: handle() }));
/** Operator only: record that the wake controller nudged a recipient about these messages. */
export const wokenParams = lazySchema(() => z.strictObject({ recipient: handle(), ids: messageRefs() }));
/** Operator only: a page of all mail, newest first, for the mail view. */
export const historyParams = lazySchema(() =>
  z.strictObject({
    before: z.optional(messageRef()),
    limit: z.optional(z.int().min(1).max(500)),
    peer: z.optional(handle()),
  }),
);
export type HistoryParams = z.infer<ReturnType<typeof historyParams>>;

/** Why a row of the dashboard is in its state (answered by the dashboard that runs the row). */
export const explainParams = lazySchema(() => z.strictObject({ row: handle(), verbose: z.optional(z.boolean()) }));
export type ExplainParams = z.infer<ReturnType<typeof explainParams>>;

export const emptyParams = lazySchema(() => z.strictObject({}));

/** A row's own agent hook reporting (`swb hook <event>`): the event and the few payload fields swb reads. */
export const hookEventParams = lazySchema(() =>
  z.strictObject({
    event: z.string().min(1).max(64),
    notificationType: z.optional(z.string().max(64)),
    toolName: z.optional(z.string().max(128)),
    source: z.optional(z.string().regex(HOOK_WORD)),
    trigger: z.optional(z.string().regex(HOOK_WORD)),
    /** The first line of the prompt a turn started with (Claude Code's UserPromptSubmit). */
    prompt: z.optional(z.string().max(HOOK_PROMPT_MAX_CHARS)),
    /** The agent's conversation (Claude Code's `session_id`), a plain token (HOOK_SESSION_ID). */
    sessionId: z.optional(z.string().regex(HOOK_SESSION_ID)),
    /** When the hook process started (ms epoch): hooks an agent runs in the background may arrive out of order. */
    startedAt: z.optional(z.number().nonnegative()),
    /**
     * The native hook client's form of the fields: the payload's top-level string fields as a JSON
     * object (native/hook-json.h bounds it to 16 KiB); the hub picks the fields from it
     * (src/agents/hook-payload-fields.ts). Fields given above win over it.
     */
    payload: z.optional(z.string().max(16_384)),
  }),
);
/** The Stop hook's question (its start time orders it among the row's other hooks). */
export const hookStopParams = lazySchema(() => z.strictObject({ startedAt: z.optional(z.number().nonnegative()) }));

/** Operator only, answered by the workspace server: a new row (`swb new`). */
export const newRowParams = lazySchema(() =>
  z.strictObject({
    name: z.optional(handle()),
    profile: z.optional(z.string().min(1).max(64)),
    /** The program and its arguments; absent: the profile's own command. */
    command: z.optional(z.array(z.string().min(1).max(4096)).min(1).max(256)),
    cwd: z.optional(z.string().min(1).max(4096)),
    /** Run it in a git worktree of its own (branch default swb/<name>, base default HEAD). */
    worktree: z.optional(
      z.strictObject({ branch: z.optional(z.string().min(1).max(200)), base: z.optional(z.string().min(1).max(200)), reuseBranch: z.optional(z.boolean()) }),
    ),
  }),
);
export type NewRowParams = z.infer<ReturnType<typeof newRowParams>>;
export const reviewParams = lazySchema(() => z.strictObject({ row: handle() }));
export const eventsParams = lazySchema(() =>
  z.strictObject({
    kinds: z.optional(z.array(z.enum(['mail', 'receipt', 'state', 'wake', 'row', 'resource', 'usage'])).max(7)),
    row: z.optional(handle()),
  }),
);
export const mergeParams = lazySchema(() =>
  z.strictObject({
    row: handle(),
    mode: z.optional(z.enum(['merge', 'rebase', 'squash'])),
    into: z.optional(z.string().min(1).max(200)),
    commitAll: z.optional(z.boolean()),
  }),
);
export const removeRowParams = lazySchema(() => z.strictObject({ row: handle(), force: z.optional(z.boolean()), deleteBranch: z.optional(z.boolean()) }));
/** `usage.report` (swb usage): grouped by row (default), agent, model or UTC day, from a UTC day on. */
export const usageParams = lazySchema(() =>
  z.strictObject({
    by: z.optional(z.enum(['row', 'agent', 'model', 'day'])),
    since: z.optional(z.string().regex(/^\d{4}-\d{2}-\d{2}$/, { error: 'a UTC day, YYYY-MM-DD' })),
    row: z.optional(handle()),
  }),
);
export const killRowParams = lazySchema(() => z.strictObject({ row: handle() }));
export const stopServerParams = lazySchema(() => z.strictObject({ force: z.optional(z.boolean()) }));
/**
 * Operator only: `swb web` — serve the browser client (start or move the listener) and mint a fresh
 * token for its URL; `rotate` revokes every token and cookie first. The token never reaches a row:
 * the operator identity is refused to a row's process tree.
 */
export const webParams = lazySchema(() =>
  z.strictObject({
    readOnly: z.optional(z.boolean()),
    rotate: z.optional(z.boolean()),
    port: z.optional(z.int().min(0).max(65535)),
    bind: z.optional(z.string().min(1).max(100)),
    tlsCert: z.optional(z.string().min(1).max(4096)),
    tlsKey: z.optional(z.string().min(1).max(4096)),
    insecure: z.optional(z.boolean()),
  }),
);
export type WebParams = z.infer<ReturnType<typeof webParams>>;
export const parkedParams = lazySchema(() => z.strictObject({ row: handle(), action: z.enum(['redeliver', 'discard']) }));

/** A page of known sessions in handle order, after the handle `after`. */
export const peersParams = lazySchema(() => z.strictObject({ after: z.optional(handle()), limit: z.optional(z.int().min(1).max(500)), onlineOnly: z.optional(z.boolean()) }));

/** Operator only: give two rows another reply budget. */
export const grantParams = lazySchema(() => z.strictObject({ a: handle(), b: handle() }));

/** Operator only: give a row's handle back (it stays reserved for its row across restarts until then). */
export const releaseParams = lazySchema(() => z.strictObject({ handle: handle() }));

// Reservations (issue #35, src/hub/resource-handlers.ts). Waits are in ms; a round of waiting is
// capped by the hub's maxWaitMs and the client asks again with the ticket.
const resourceName = lazySchema(() => z.string().regex(RESOURCE_NAME_PATTERN, { error: RESOURCE_NAME_HINT }));
const ticketRef = lazySchema(() => z.int().min(1));
/** A whole wait: up to a day (the client waits in rounds of at most maxWaitMs). */
const totalWaitMs = lazySchema(() => z.int().min(0).max(86_400_000));

export const resourceRequestParams = lazySchema(() =>
  z.strictObject({
    resources: z.array(resourceName()).min(1).max(MAX_RESOURCES_PER_REQUEST),
    reason: z.optional(z.string().max(MAX_REASON_CHARS)),
    /** How long the ticket may stay queued before it is cancelled (RESOURCE_WAIT_TIMEOUT); absent: the policy's default. */
    waitMs: z.optional(totalWaitMs()),
    /**
     * The caller's gated process (swb run), recorded in the launch ledger with the request; the grant
     * then makes the ticket held at once. Checked as `resource.launched` checks its pid.
     */
    pid: z.optional(z.int().min(2).max(4_194_304)),
    command: z.optional(z.string().max(512)),
  }),
);
export const resourceWaitParams = lazySchema(() => z.strictObject({ ticket: ticketRef(), waitMs: z.optional(z.int().min(0).max(86_400_000)) }));
export const resourceLaunchedParams = lazySchema(() =>
  z.strictObject({
    ticket: ticketRef(),
    pid: z.int().min(2).max(4_194_304),
    /** How the command reads to people (display only; the pid is what the hub checks and watches). */
    command: z.optional(z.string().max(512)),
  }),
);
export const resourceReleaseParams = lazySchema(() => z.strictObject({ ticket: ticketRef(), force: z.optional(z.boolean()) }));
export const resourceTicketParams = lazySchema(() => z.strictObject({ ticket: ticketRef() }));
export const resourceStatusParams = lazySchema(() => z.strictObject({ name: z.optional(resourceName()) }));
export const resourcePolicyParams = lazySchema(() =>
  z.strictObject({
    name: resourceName(),
    capacity: z.optional(z.int().min(1).max(MAX_CAPACITY)),
    /** A handle that grants by hand; null gives control back to the hub (automatic grants in order). */
    controller: z.optional(z.nullable(handle())),
    /** The default wait of requests that name none; null: until granted or cancelled. */
    waitMs: z.optional(z.nullable(totalWaitMs())),
  }),
);
export type ResourcePolicyParams = z.infer<ReturnType<typeof resourcePolicyParams>>;
