// `swb usage`: the workspace's usage history (the ledger's totals per row, UTC day, model and source)
// summed into groups — by row, by agent, by model or by day — and priced at the current table, so a
// price the config changes applies to the whole history. Rows that no longer run are included: the
// totals persist in mail.db. A model without a price adds its tokens and no cost (named in `unpriced`).
import { costOf, type Prices } from './price-table.js';
import { addTokens, type TokenCounts, zeroTokens } from './token-counts.js';
import type { UsageTotalRecord } from './usage-ledger.js';

export const USAGE_GROUPINGS = ['row', 'agent', 'model', 'day'] as const;
export type UsageGrouping = (typeof USAGE_GROUPINGS)[number];

/** Groups in one answer at most (a year of days, or many rows, still fits one reply). */
export const MAX_USAGE_GROUPS = 1000;

export interface UsageGroup {
  /** The row, the agent's profile id, the model ("(unnamed)": the transcript named none) or the UTC day. */
  key: string;
  turns: number;
  tokens: TokenCounts;
  /** Dollars at list price of the priced models in the group. */
  cost: number;
  /** Models in the group without a price (their tokens count, their cost is not known). */
  unpriced: string[];
}

export interface UsageReport {
  by: UsageGrouping;
  /** First UTC day included (YYYY-MM-DD), or null: all history. */
  since: string | null;
  groups: UsageGroup[];
  total: Omit<UsageGroup, 'key'>;
  /** More groups than MAX_USAGE_GROUPS: the largest by cost, then tokens, are kept (the total has all). */
  truncated: boolean;
}

export const UNNAMED_MODEL = '(unnamed)';

/** Every token a response billed: input, cache reads and writes, output (reasoning is part of output). */
export function billedTokens(t: Readonly<TokenCounts>): number {
  return t.input + t.cacheRead + t.cacheWrite + t.output;
}

/** Sums `records` into groups priced with `prices`; `agentOf` names a row's agent (its profile). */
export function usageReport(
  records: readonly UsageTotalRecord[],
  prices: Prices,
  o: { by: UsageGrouping; since?: string | null; agentOf?: (row: string) => string | null; maxGroups?: number },
): UsageReport {
  const groups = new Map<string, UsageGroup>();
  const total: UsageGroup = { key: '', turns: 0, tokens: zeroTokens(), cost: 0, unpriced: [] };
  for (const r of records) {
    const key = keyOf(r, o.by, o.agentOf);
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { key, turns: 0, tokens: zeroTokens(), cost: 0, unpriced: [] }));
    const priced = prices.lookup(r.model);
    const cost = priced ? costOf(priced.price, r.tokens, r.longTokens) : null;
    for (const into of [g, total]) {
      into.turns += r.turns;
      addTokens(addTokens(into.tokens, r.tokens), r.longTokens);
      if (cost !== null) into.cost += cost;
      else if (!into.unpriced.includes(r.model ?? UNNAMED_MODEL)) into.unpriced.push(r.model ?? UNNAMED_MODEL);
    }
  }
  let list = [...groups.values()];
  const max = o.maxGroups ?? MAX_USAGE_GROUPS;
  const truncated = list.length > max;
  if (truncated) list = list.sort((a, b) => b.cost - a.cost || billedTokens(b.tokens) - billedTokens(a.tokens)).slice(0, max);
  list.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const { key: _none, ...sum } = total;
  return { by: o.by, since: o.since ?? null, groups: list, total: sum, truncated };
}

function keyOf(r: UsageTotalRecord, by: UsageGrouping, agentOf?: (row: string) => string | null): string {
  switch (by) {
    case 'row':
      return r.row;
    case 'agent':
      return agentOf?.(r.row) ?? '(unknown)';
    case 'model':
      return r.model ?? UNNAMED_MODEL;
    case 'day':
      return r.day;
  }
}
