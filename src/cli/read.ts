import { UsageError, type CommandDescriptor } from './command.js';
import { parseMessageIds } from './parse-message-id.js';

export const readCommand: CommandDescriptor = {
  name: 'read',
  summary: 'Mark messages read (the sender sees it in `swb status`).',
  usage: 'ID [ID ...]',
  minArgs: 1,
  flags: [],
  async run(ctx) {
    const ids = parseMessageIds(ctx.args);
    if (ids.length > 1000) throw new UsageError('at most 1000 ids at once');
    const client = await ctx.connect();
    const r = await client.request<{ updated: number; notFound: number[] }>('mail.read', { ids });
    ctx.result(r);
    ctx.print(`marked ${r.updated} read${r.notFound.length > 0 ? `; not yours: ${r.notFound.map((n) => `#${n}`).join(' ')}` : ''}`);
    return 0;
  },
};
