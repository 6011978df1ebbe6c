import type { ReceiptResult } from '../protocol/methods.js';
import type { HeldPair } from '../store/reply-budget.js';
import type { CommandDescriptor } from './command.js';
import { formatReceipts, receiptSummary } from './format-mail.js';
import { parseMessageId } from './parse-message-id.js';

export const statusCommand: CommandDescriptor = {
  name: 'status',
  summary: 'Show the receipts of a message (accepted, delivered, woken, read, replied, per recipient); without ID, pairs of rows held by the reply budget.',
  usage: '[ID]',
  maxArgs: 1,
  flags: [],
  async run(ctx) {
    const client = await ctx.connect();
    if (ctx.args.length === 0) {
      const { pairs, budget } = await client.request<{ pairs: HeldPair[]; budget: number }>('budget.held');
      ctx.result({ held: pairs, budget });
      if (pairs.length === 0) ctx.print('No pair of rows is held by the reply budget.');
      for (const p of pairs) {
        ctx.print(`held: @${p.a} ↔ @${p.b}, ${p.used} messages (budget ${budget}) since ${new Date(p.heldAt).toISOString()}; swb grant ${p.a} ${p.b}, or write to either`);
      }
      return 0;
    }
    const id = parseMessageId(ctx.args[0]!);
    const r = await client.request<ReceiptResult>('receipt.get', { id });
    ctx.result({ ...r, summary: receiptSummary(r) });
    ctx.print(formatReceipts(r));
    return 0;
  },
};
