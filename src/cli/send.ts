import { checkMessageSize } from '../client/hub-client.js';
import { SwbError } from '../protocol/error-codes.js';
import { MESSAGE_KINDS, MESSAGE_ID_PATTERN, type SendResult } from '../protocol/methods.js';
import { splitTargets } from './split-targets.js';
import { UsageError, type CommandContext, type CommandDescriptor } from './command.js';
import { newMessageId } from './message-id.js';
import { sleep } from '../util/clock.js';

export const sendCommand: CommandDescriptor = {
  name: 'send',
  summary: 'Send a message to one or more peers (@all: every live session). TEXT may come from stdin.',
  usage: '@peer [@peer ...] [TEXT]',
  minArgs: 1,
  flags: [
    { name: 'kind', type: 'string', value: 'KIND', description: `message kind: ${MESSAGE_KINDS.join(', ')} (default msg)` },
    { name: 'reply-to', type: 'number', value: 'ID', description: 'thread this as a reply to message ID' },
    { name: 'id', type: 'string', value: 'MESSAGE_ID', description: 'your own id for the message (a retry with the same id is stored once)' },
  ],
  async run(ctx) {
    const { recipients, textArgs } = splitTargets(ctx.args);
    const text = await messageText(ctx, textArgs);
    const result = await sendMessage(ctx, {
      to: recipients,
      text,
      kind: kindFlag(ctx),
      ...(ctx.flags['reply-to'] !== undefined ? { replyTo: ctx.flags['reply-to'] as number } : {}),
      messageId: idFlag(ctx),
    });
    ctx.result(result);
    ctx.print(`accepted #${result.id} → ${result.recipients.map((r) => `@${r.to} (${r.state})`).join(', ') || 'nobody live'}${result.duplicate ? ' (already stored: retry)' : ''}`);
    for (const s of result.skipped ?? []) ctx.print(`not sent to @${s.to}: ${s.code}: ${s.message}`);
    return 0;
  },
};

export function kindFlag(ctx: CommandContext, fallback = 'msg'): string {
  const kind = (ctx.flags.kind as string | undefined) ?? fallback;
  if (!(MESSAGE_KINDS as readonly string[]).includes(kind)) throw new UsageError(`--kind must be one of ${MESSAGE_KINDS.join(', ')}`);
  return kind;
}

export function idFlag(ctx: CommandContext): string {
  const id = ctx.flags.id as string | undefined;
  if (id === undefined) return newMessageId();
  if (!MESSAGE_ID_PATTERN.test(id)) throw new UsageError('--id must be 1-128 of A-Z a-z 0-9 . _ : -');
  return id;
}

export async function messageText(ctx: CommandContext, textArgs: string[]): Promise<string> {
  if (textArgs.length > 0) {
    const text = textArgs.join(' ');
    if (text === '') throw new UsageError('no TEXT given (the TEXT argument is empty)');
    return text;
  }
  if ((process.stdin as { isTTY?: boolean }).isTTY) throw new UsageError('no TEXT given (pass it as arguments or on stdin)');
  const text = (await ctx.readStdin(1024 * 1024)).replace(/\n$/, '');
  if (text.length === 0) throw new UsageError('no TEXT given (stdin was empty)');
  return text;
}

/**
 * Sends with the same messageId until the hub answers: if the hub dies mid-send (the answer is
 * lost), the retry either stores the message or returns the receipt of the copy already stored.
 * Only a missing hub is retried: a locked or full store was already waited on by the hub, a full
 * backlog by the connect, and a TIMEOUT means a hub that does not answer at all.
 */
export async function sendMessage(ctx: CommandContext, params: Record<string, unknown>): Promise<SendResult> {
  for (let attempt = 1; ; attempt++) {
    try {
      const client = await ctx.connect();
      if (typeof params.text === 'string') await checkMessageSize(client, params.text);
      return await client.request<SendResult>('mail.send', params);
    } catch (err) {
      // HUB_BUSY is not retried here: the connect already waited out the full backlog for a while.
      const retryable = err instanceof SwbError && err.code === 'NO_HUB';
      if (!retryable || attempt >= 4) throw err;
      await sleep(50 * attempt);
    }
  }
}
