// The wait-until-deadline loop over the hub's mail.wait, shared by `swb wait`, `swb ask` and the MCP
// `wait` tool. The hub parks one mail.wait for at most 30 s, so a longer wait is a series of rounds,
// each as long as what is left of the deadline (at most one round), until mail the caller wants comes
// or the deadline has passed. Written once so the three cannot drift apart on the round arithmetic,
// the request's own deadline (the round plus the connection's reply time) or the cursor.
import type { MailItem } from '../protocol/methods.js';
import { type Clock, systemClock } from '../util/clock.js';
import type { HubClient } from './hub-client.js';

/** The longest the hub parks one mail.wait (DESIGN §4: timeoutMs ≤ 30000). */
export const MAIL_WAIT_MAX_ROUND_MS = 30_000;

export interface MailWaitOptions {
  /** Give up once `clock.now()` reaches this; Infinity waits for ever. */
  deadline: number;
  /** The longest one mail.wait request may park (default and ceiling: MAIL_WAIT_MAX_ROUND_MS). */
  roundMs?: number;
  /**
   * Only mail after this inbox sequence number. The cursor moves past every message a round returns,
   * so mail the caller passes over is not offered again.
   */
  after?: number;
  /** Leave the mail unseen (not "delivered"), for `swb inbox` to show later. */
  peek?: boolean;
  clock?: Clock;
}

/**
 * Waits on mail.wait in rounds until `pick` returns something for a round's messages (that value is
 * the result) or the deadline passes (the result is undefined). A round that returns no message, or
 * none `pick` wants, waits again while time is left; the last round may be 0 ms, a last look.
 */
export async function waitForMail<T>(
  client: Pick<HubClient, 'request' | 'requestTimeoutMs'>,
  opts: MailWaitOptions,
  pick: (messages: MailItem[]) => T | undefined,
): Promise<T | undefined> {
  const clock = opts.clock ?? systemClock;
  const maxRound = Math.min(MAIL_WAIT_MAX_ROUND_MS, opts.roundMs ?? MAIL_WAIT_MAX_ROUND_MS);
  let cursor = opts.after;
  for (;;) {
    const round = Math.round(Math.max(0, Math.min(maxRound, opts.deadline - clock.now())));
    const params: Record<string, unknown> = { timeoutMs: round };
    if (cursor !== undefined) params.after = cursor;
    if (opts.peek) params.peek = true;
    const r = await client.request<{ messages: MailItem[] }>('mail.wait', params, { timeoutMs: round + client.requestTimeoutMs });
    if (cursor !== undefined) for (const m of r.messages) cursor = Math.max(cursor, m.seq ?? cursor);
    if (r.messages.length > 0) {
      const picked = pick(r.messages);
      if (picked !== undefined) return picked;
    }
    if (clock.now() >= opts.deadline) return undefined;
  }
}
