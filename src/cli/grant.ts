import { HANDLE_HINT, isValidHandle } from '../protocol/handle.js';
import { UsageError, type CommandDescriptor } from './command.js';

export const grantCommand: CommandDescriptor = {
  name: 'grant',
  summary: 'Give two rows another reply budget (operator only): they may send each other that many more messages.',
  usage: 'ROW ROW',
  minArgs: 2,
  maxArgs: 2,
  flags: [],
  details:
    'Rows that mail each other count against a budget per pair (limits.automaticReplies, default 8). When it runs out ' +
    'their sends are refused with REPLY_BUDGET until you write to either of them or grant another budget.',
  async run(ctx) {
    const [a, b] = ctx.args.map((h) => h.replace(/^@/, '')) as [string, string];
    for (const h of [a, b]) if (!isValidHandle(h)) throw new UsageError(`${JSON.stringify(h)}: ${HANDLE_HINT}`);
    const client = await ctx.connect({ autoStart: false });
    const r = await client.request<{ granted: boolean; budget: number }>('budget.grant', { a, b });
    ctx.result({ a, b, ...r });
    ctx.print(`@${a} ↔ @${b}: a new budget of ${r.budget} messages${r.granted ? '' : ' (they had used none)'}`);
    return 0;
  },
};
