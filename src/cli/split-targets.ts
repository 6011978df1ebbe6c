// `swb send @a @b some text` → recipients [a, b] and the text words.
import { HANDLE_HINT, isValidHandle } from '../protocol/handle.js';
import { UsageError } from './command.js';

export function splitTargets(args: readonly string[]): { recipients: string[]; textArgs: string[] } {
  const recipients: string[] = [];
  let i = 0;
  for (; i < args.length && args[i]!.startsWith('@'); i++) {
    const handle = args[i]!.slice(1);
    if (!isValidHandle(handle)) throw new UsageError(`${JSON.stringify(args[i])} is not a peer: ${HANDLE_HINT}`);
    if (!recipients.includes(handle)) recipients.push(handle);
  }
  if (recipients.length === 0) throw new UsageError('name at least one recipient as @peer (or @all)');
  return { recipients, textArgs: args.slice(i) };
}
