import type { ReceiptResult } from '../protocol/methods.js';
import type { CommandDescriptor } from './command.js';
import { formatReceipts, receiptSummary } from './format-mail.js';
import { parseMessageId } from './parse-message-id.js';

export const statusCommand: CommandDescriptor = {
  name: 'status',
  summary: 'Show the receipts of a message: accepted, delivered, woken, read, replied, per recipient.',
  usage: 'ID',
  minArgs: 1,
  maxArgs: 1,
  flags: [],
  async run(ctx) {
    const id = parseMessageId(ctx.args[0]!);
    const client = await ctx.connect();
    const r = await client.request<ReceiptResult>('receipt.get', { id });
    ctx.result({ ...r, summary: receiptSummary(r) });
    ctx.print(formatReceipts(r));
    return 0;
  },
};
