// Defaults for every bound the hub enforces; each can be overridden by config or `swb hub` flags.

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
  /** Bytes queued to a slow client before the hub stops reading its requests. */
  maxPendingWriteBytes: number;
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
};

export const PROTOCOL_VERSION = 1;
