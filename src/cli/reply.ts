import type { ReceiptResult } from '../protocol/methods.js';
import type { CommandDescriptor } from './command.js';
import { parseMessageId } from './parse-message-id.js';
import { idFlag, kindFlag, messageText, sendMessage } from './send.js';

export const replyCommand: CommandDescriptor = {
  name: 'reply',
  summary: 'Reply to a message you received: goes to its sender, threaded, and marks it replied.',
  usage: 'ID [TEXT]',
  minArgs: 1,
  flags: [
    { name: 'kind', type: 'string', value: 'KIND', description: 'message kind (default response)' },
    { name: 'id', type: 'string', value: 'MESSAGE_ID', description: 'your own id for the reply (retries are stored once)' },
  ],
  async run(ctx) {
    const parent = parseMessageId(ctx.args[0]!);
    const text = await messageText(ctx, ctx.args.slice(1));
    const client = await ctx.connect();
    const original = await client.request<ReceiptResult>('receipt.get', { id: parent });
    const result = await sendMessage(ctx, { to: [original.from], text, kind: kindFlag(ctx, 'response'), replyTo: parent, messageId: idFlag(ctx) });
    ctx.result(result);
    ctx.print(`accepted #${result.id} → @${original.from} (re #${parent})`);
    return 0;
  },
};
