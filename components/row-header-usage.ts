// The usage piece of a row's header (issue #38): tokens, cost, context fill, the plan's short window and
// a budget mark, as many as fit in the room the header's own parts leave (src/usage/row-usage-view.ts
// drops pieces from the end). Empty for a row whose usage swb does not read, or that has none yet.
import type { RowView } from '../src/app/app-state.js';
import { compactUsage } from '../src/usage/row-usage-view.js';

/** The header keeps this much for its name and state before usage takes any room. */
export const HEADER_LEFT_KEEP = 28;

/** " · 12k tok $0.42 ctx 31%" in at most `room` cells, or "". */
export function usageHeaderPart(usage: RowView['usage'], room: number): string {
  const text = compactUsage(usage, room - 3);
  return text ? ` · ${text}` : '';
}
