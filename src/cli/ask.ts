import { type CommandDescriptor } from './command.js';
import { formatMail } from '../text/format-mail.js';
import { idFlag, kindFlag, messageText, sendMessage } from './send.js';
import { splitTargets } from './split-targets.js';
import { systemClock } from '../util/clock.js';
import { waitForMail } from '../client/wait-for-mail.js';

export const askCommand: CommandDescriptor = {
  name: 'ask',
  summary: 'Send a message, then wait for the reply to it and print it. Exit 1 with TIMEOUT if none came.',
  usage: '@peer [TEXT]',
  minArgs: 1,
  flags: [
    { name: 'timeout', type: 'number', value: 'SECONDS', description: 'give up after SECONDS (default 300)' },
    { name: 'kind', type: 'string', value: 'KIND', description: 'message kind (default task)' },
    { name: 'id', type: 'string', value: 'MESSAGE_ID', description: 'your own id for the question' },
  ],
  async run(ctx) {
    const { recipients, textArgs } = splitTargets(ctx.args);
    const text = await messageText(ctx, textArgs);
    const deadline = systemClock.now() + ((ctx.flags.timeout as number | undefined) ?? 300) * 1000;
    const client = await ctx.connect();
    // Note the inbox position first, so a reply that lands before we start waiting is not missed.
    // Start after everything already in the inbox, without touching it.
    const cursor = (await client.ready).lastSeq;
    const sent = await sendMessage(ctx, { to: recipients, text, kind: kindFlag(ctx, 'task'), messageId: idFlag(ctx) });
    ctx.print(`asked #${sent.id}; waiting for a reply...`);
    // Peek: other mail that arrives meanwhile stays unseen (not "delivered") for `swb inbox`.
    const reply = await waitForMail(client, { deadline, after: cursor, peek: true }, (messages) => messages.find((m) => m.replyTo === sent.id));
    if (reply) {
      await client.request('mail.read', { ids: [reply.id] });
      ctx.result({ question: sent, reply });
      ctx.print(formatMail(reply));
      return 0;
    }
    ctx.result({ question: sent, reply: null, timedOut: true });
    ctx.print(`TIMEOUT: no reply to #${sent.id}.`);
    return 1;
  },
};
