import type { MailItem } from '../protocol/methods.js';
import type { CommandDescriptor } from './command.js';
import { formatMail } from '../text/format-mail.js';

export const inboxCommand: CommandDescriptor = {
  name: 'inbox',
  summary: 'Show your unread mail (oldest first). Listing marks it delivered, not read: use `swb read ID`.',
  usage: '',
  maxArgs: 0,
  flags: [
    { name: 'all', type: 'boolean', description: 'show read mail too' },
    { name: 'limit', type: 'number', value: 'N', description: 'at most N messages (default 200)' },
  ],
  async run(ctx) {
    const client = await ctx.connect();
    const limit = Math.max(1, Math.min(1000, (ctx.flags.limit as number | undefined) ?? 200));
    // The hub pages answers to fit one frame; ask again after the last one until the limit is met.
    const messages: MailItem[] = [];
    let after = 0;
    for (;;) {
      const page = await client.request<{ messages: MailItem[]; more?: boolean }>('mail.list', {
        unreadOnly: ctx.flags.all !== true,
        limit: limit - messages.length,
        after,
      });
      messages.push(...page.messages);
      const last = page.messages[page.messages.length - 1];
      if (!page.more || !last || messages.length >= limit) break;
      after = last.seq ?? after;
    }
    ctx.result({ session: client.hello?.session, messages });
    if (messages.length === 0) ctx.print(ctx.flags.all ? 'No mail.' : 'No unread mail.');
    for (const m of messages) ctx.print(formatMail(m));
    return 0;
  },
};
