import type { LinkStatus } from '../federation/nats-link.js';
import { sanitize } from '../text/sanitize.js';
import type { ReceiptResult } from '../protocol/methods.js';
import type { HeldPair } from '../store/reply-budget.js';
import type { CommandDescriptor } from './command.js';
import { formatReceipts, receiptSummary } from '../text/format-mail.js';
import { parseMessageId } from './parse-message-id.js';

export const statusCommand: CommandDescriptor = {
  name: 'status',
  summary: 'Show the receipts of a message (accepted, delivered, woken, read, replied, per recipient); without ID, pairs of rows held by the reply budget and the link to other nodes.',
  usage: '[ID]',
  maxArgs: 1,
  flags: [],
  async run(ctx) {
    const client = await ctx.connect();
    const { link } = await client.request<{ link: LinkStatus | null }>('federation.status');
    if (ctx.args.length === 0) {
      const { pairs, budget } = await client.request<{ pairs: HeldPair[]; budget: number }>('budget.held');
      ctx.result({ held: pairs, budget, federation: link });
      if (link) ctx.print(linkLine(link));
      if (pairs.length === 0) ctx.print('No pair of rows is held by the reply budget.');
      for (const p of pairs) {
        ctx.print(`held: @${p.a} ↔ @${p.b}, ${p.used} messages (budget ${budget}) since ${new Date(p.heldAt).toISOString()}; swb grant ${p.a} ${p.b}, or write to either`);
      }
      return 0;
    }
    const id = parseMessageId(ctx.args[0]!);
    const r = await client.request<ReceiptResult>('receipt.get', { id });
    ctx.result({ ...r, summary: receiptSummary(r), ...(link ? { federation: link } : {}) });
    ctx.print(formatReceipts(r));
    // Mail to another node that is still only here: say why it waits.
    if (link && link.queued > 0 && r.recipients.some((x) => x.to.includes('@') && x.state === 'accepted')) ctx.print(linkLine(link));
    return 0;
  },
};

/** "federation: node a on nats://..: up; 3 queued" or "queued: link down since ...". */
export function linkLine(link: LinkStatus): string {
  // The problem quotes what the NATS server or the TLS handshake said: text from outside.
  const problem = link.problem === null ? null : sanitize(link.problem, { singleLine: true, maxChars: 300 });
  const since = new Date(link.since).toISOString();
  const queued = link.queued > 0 ? `${link.queued} message${link.queued === 1 ? '' : 's'} and receipts queued${link.oldestQueuedAt ? ` (oldest ${new Date(link.oldestQueuedAt).toISOString()})` : ''}` : 'nothing queued';
  if (link.state === 'up') return `federation: node ${link.node} on ${link.url}: link up since ${since}; ${queued}${link.queued > 0 && problem ? ` (last problem: ${problem})` : ''}`;
  const why = problem ? ` (${problem})` : '';
  return `federation: node ${link.node} on ${link.url}: queued: link ${link.state === 'down' ? 'down' : 'not yet up'} since ${since}${why}; ${queued}`;
}
