// `swb usage` (issue #38): what the workspace's agents spent, from their own transcripts, summed per
// row, agent, model or UTC day over the whole history (rows that no longer run included: the totals
// live in mail.db), priced at list price — a model without a price shows its tokens and "no price".
// The operator sees every row; inside a row, an agent sees its own usage (an orchestrator dispatching
// by what is left). Asks the workspace server (`usage.report`), as `swb ls` does.
import type { UsageReport } from '../usage/usage-report.js';
import { USAGE_GROUPINGS } from '../usage/usage-report.js';
import { dollars } from '../usage/row-usage-view.js';
import { sanitize } from '../text/sanitize.js';
import { UsageError, type CommandDescriptor } from './command.js';

export const usageCommand: CommandDescriptor = {
  name: 'usage',
  summary: 'Tokens (in, cached, out) and cost at list price, per row, agent, model or day, over the workspace\'s history.',
  usage: '[--by row|agent|model|day] [--since DAY]',
  maxArgs: 0,
  flags: [
    { name: 'by', type: 'string', value: 'WHAT', description: `group by ${USAGE_GROUPINGS.join(', ')} (default row)` },
    { name: 'since', type: 'string', value: 'DAY', description: 'from this UTC day on: YYYY-MM-DD, "today", or Nd (the last N days)' },
  ],
  details:
    'Read from the agents\' own transcripts (Claude Code, Codex, Gemini CLI), each turn counted once; requests the agent does not record in its transcript (e.g. a title from a small model) are not in it. ' +
    'Costs use the shipped price files and the config\'s usage.prices. Inside a row: that row\'s own usage only. With --json: the report as one document; swb ls --json has each running row\'s context fill and plan windows.',
  async run(ctx) {
    const by = (ctx.flags.by as string | undefined) ?? 'row';
    if (!(USAGE_GROUPINGS as readonly string[]).includes(by)) throw new UsageError(`--by ${JSON.stringify(by)}: one of ${USAGE_GROUPINGS.join(', ')}`);
    const since = ctx.flags.since === undefined ? undefined : sinceDay(ctx.flags.since as string, Date.now());
    const client = await ctx.connect({ autoStart: false, server: true });
    const r = await client.request<UsageReport>('usage.report', { by, ...(since !== undefined ? { since } : {}) });
    ctx.result(r);
    const table = [[by.toUpperCase(), 'TURNS', 'INPUT', 'CACHE-READ', 'CACHE-WRITE', 'OUTPUT', 'COST']];
    for (const g of [...r.groups, { key: 'total', ...r.total }]) {
      table.push([
        sanitize(g.key, { singleLine: true, maxChars: 60 }),
        String(g.turns),
        String(g.tokens.input),
        String(g.tokens.cacheRead),
        String(g.tokens.cacheWrite),
        String(g.tokens.output),
        costText(g.cost, g.unpriced),
      ]);
    }
    const widths = table[0]!.map((_, i) => Math.max(...table.map((t) => t[i]!.length)));
    for (const t of table) ctx.print(t.map((c, i) => (i === 0 || i === t.length - 1 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ').trimEnd());
    if (r.truncated) ctx.print(`(only the ${r.groups.length} largest groups are listed; the total has them all)`);
    return 0;
  },
};

function costText(cost: number, unpriced: readonly string[]): string {
  if (unpriced.length === 0) return dollars(cost);
  const names = sanitize(unpriced.join(', '), { singleLine: true, maxChars: 80 });
  return cost > 0 ? `${dollars(cost)} + no price for ${names}` : `no price (${names})`;
}

/** `--since`: a UTC day, "today", or "Nd" (the last N days, today included). */
export function sinceDay(text: string, now: number): string {
  if (/^\d{4}-\d{2}-\d{2}$/.test(text) && !Number.isNaN(Date.parse(`${text}T00:00:00Z`))) return text;
  if (text === 'today') return new Date(now).toISOString().slice(0, 10);
  const m = /^(\d{1,4})d$/.exec(text);
  if (m && Number(m[1]) >= 1) return new Date(now - (Number(m[1]) - 1) * 86_400_000).toISOString().slice(0, 10);
  throw new UsageError(`--since ${JSON.stringify(text)}: a UTC day YYYY-MM-DD, "today", or Nd (the last N days)`);
}
