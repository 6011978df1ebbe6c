import { UsageError, type CommandDescriptor } from './command.js';
import { formatMail } from '../text/format-mail.js';
import { systemClock } from '../util/clock.js';
import { waitForMail } from '../client/wait-for-mail.js';

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
    const messages = await waitForMail(client, { deadline }, (m) => m);
    if (messages) {
      ctx.result({ messages });
      for (const m of messages) ctx.print(formatMail(m));
      return 0;
    }
    ctx.result({ messages: [], timedOut: true });
    ctx.print('TIMEOUT: no mail arrived.');
    return 1;
  },
};
