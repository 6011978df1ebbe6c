// Receipt states as stored integers. Order matters: a receipt only ever moves to a larger number
// (accepted → delivered → read → replied). Expired is terminal and only reachable from unread.
import type { ReceiptState } from '../protocol/methods.js';

export const STATE_CODE = { accepted: 0, delivered: 1, read: 2, replied: 3, expired: 9 } as const satisfies Record<
  ReceiptState,
  number
>;

const BY_CODE = new Map<number, ReceiptState>(Object.entries(STATE_CODE).map(([k, v]) => [v, k as ReceiptState]));

export function stateName(code: number): ReceiptState {
  return BY_CODE.get(code) ?? 'accepted';
}

/**
 * Unread = accepted or delivered (not yet read, replied or expired), and not parked for the
 * operator's review (a row's new conversation never saw it). Written so that it also reads right
 * after a `d.` prefix: `parked_at` is a column of deliveries only.
 */
export const UNREAD_SQL = `state IN (${STATE_CODE.accepted}, ${STATE_CODE.delivered}) AND parked_at IS NULL`;
