import type { MailItem } from '../protocol/methods.js';
import { UsageError, type CommandDescriptor } from './command.js';
import { formatMail } from '../text/format-mail.js';
import { systemClock } from '../util/clock.js';

export const waitCommand: CommandDescriptor = {
  name: 'wait',
  summary: 'Block until you have unread mail, then show it. Exit 1 with TIMEOUT if none came in time.',
  usage: '',
  maxArgs: 0,
  flags: [{ name: 'timeout', type: 'number', value: 'SECONDS', description: 'give up after SECONDS (default: wait forever, in rounds of <= 30 s)' }],
  async run(ctx) {
    const timeoutS = ctx.flags.timeout as number | undefined;
    if (timeoutS !== undefined && timeoutS > 7 * 86400) throw new UsageError('--timeout is at most a week');
    const deadline = timeoutS === undefined ? Infinity : systemClock.now() + timeoutS * 1000;
    const client = await ctx.connect();
    for (;;) {
      const round = Math.max(0, Math.min(30_000, deadline - systemClock.now()));
      const r = await client.request<{ messages: MailItem[] }>('mail.wait', { timeoutMs: Math.round(round) }, { timeoutMs: round + client.requestTimeoutMs });
      if (r.messages.length > 0) {
        ctx.result({ messages: r.messages });
        for (const m of r.messages) ctx.print(formatMail(m));
        return 0;
      }
      if (systemClock.now() >= deadline) {
        ctx.result({ messages: [], timedOut: true });
        ctx.print('TIMEOUT: no mail arrived.');
        return 1;
      }
    }
  },
};
