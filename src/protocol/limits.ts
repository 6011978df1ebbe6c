// Defaults for every bound the hub enforces; each can be overridden by config or `swb hub` flags.
import { swbError, type SwbErrorValue } from './error-codes.js';

export interface HubLimits {
  /** Longest NDJSON line accepted, in bytes, checked before parsing. */
  maxFrameBytes: number;
  /** Longest message text, in UTF-8 bytes. */
  maxMessageBytes: number;
  /** Unread messages a recipient may hold before QUEUE_FULL; 0 = unlimited. */
  maxUnread: number;
  /** Messages per second per sender (token bucket, burst = 2 s worth); 0 = unlimited. */
  ratePerSecond: number;
  /** Most recipients of one message. */
  maxRecipients: number;
  /** Read/replied mail older than this is deleted; 0 = keep forever. Unread mail is never deleted. */
  retentionDays: number;
  /** Unread mail older than this is marked expired; 0 = never expires. */
  expiryHours: number;
  /** Longest single mail.wait, in milliseconds. */
  maxWaitMs: number;
  /** Bytes queued to a slow client before the hub stops reading (and decoding) its requests. */
  maxPendingWriteBytes: number;
  /** Bytes queued to a client that does not read before the hub closes that connection with a final error. */
  maxConnectionBacklogBytes: number;
  /** How long a connection may leave its answers unread (over maxPendingWriteBytes) before it is closed. */
  stallTimeoutMs: number;
  /** Largest answer frame; lists are paged to fit (`more: true`), so a reply never outgrows a client. */
  maxReplyBytes: number;
  /** Connections at once whose answers sit unread over maxPendingWriteBytes; one more is closed. */
  maxStalledConnections: number;
  /** Open connections at once; one more is answered HUB_BUSY and closed. */
  maxConnections: number;
  /** A connection must finish its hello, and any frame it starts, within this time. */
  idleTimeoutMs: number;
  /** Bytes of unfinished frames held for all connections together. */
  maxUnfinishedBytes: number;
  /** A tokenless handle unused this long (and with no unread mail) is forgotten; 0 = never. */
  participantTtlHours: number;
  /** How long a store call waits for another process's lock on mail.db before DB_LOCKED. */
  storeLockWaitMs: number;
  /** Messages two rows may send each other between two operator turns (the reply budget); 0 = unlimited. */
  automaticReplies: number;
  /** Deepest replyTo chain among rows without the operator; 0 = unlimited. */
  maxReplyDepth: number;
  /** Count tokenless participants (scripts, --as handles) in the reply budget like rows. */
  budgetParticipants: boolean;
  /** New tokenless handles per minute, all connections together (junk hellos cannot fill the store); 0 = unlimited. */
  newHandlesPerMinute: number;
}

export const DEFAULT_LIMITS: HubLimits = {
  maxFrameBytes: 64 * 1024,
  maxMessageBytes: 16 * 1024,
  maxUnread: 256,
  ratePerSecond: 50,
  maxRecipients: 64,
  retentionDays: 30,
  expiryHours: 0,
  maxWaitMs: 30_000,
  maxPendingWriteBytes: 1024 * 1024,
  maxConnectionBacklogBytes: 4 * 1024 * 1024,
  stallTimeoutMs: 10_000,
  maxReplyBytes: 512 * 1024,
  maxStalledConnections: 32,
  maxConnections: 1024,
  idleTimeoutMs: 10_000,
  maxUnfinishedBytes: 16 * 1024 * 1024,
  participantTtlHours: 24,
  storeLockWaitMs: 5000,
  automaticReplies: 8,
  maxReplyDepth: 16,
  budgetParticipants: false,
  newHandlesPerMinute: 120,
};

export const PROTOCOL_VERSION = 1;

/** The hub's refusal of a text over maxMessageBytes; the CLI says the same before sending (checkMessageSize). */
export function messageTooLarge(bytes: number, limit: number): SwbErrorValue {
  return swbError('MESSAGE_TOO_LARGE', `The message is ${bytes} bytes; the limit is ${limit}.`, { limit });
}

/**
 * How much of a turn's prompt a hook passes on (its first line, in characters): enough to know the
 * prompt again where the agent gives it back into its input (one screen row), no more.
 */
export const HOOK_PROMPT_MAX_CHARS = 200;

/**
 * A session id swb takes from a hook (Claude Code's `session_id`): a plain token that starts with a
 * letter or digit (never `.` or `..`) and holds no `/`, since it becomes an argument of a relaunch
 * and part of a file name.
 */
export const HOOK_SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

/**
 * A word a hook passes on (Claude Code's SessionStart `source`, a compaction's `trigger`): it becomes
 * part of the event's name in explain, the row's events and the page (`SessionStart(clear)`), so only
 * letters, digits, `_` and `-`.
 */
export const HOOK_WORD = /^[A-Za-z0-9_-]{1,32}$/;
