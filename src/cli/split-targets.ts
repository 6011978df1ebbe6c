// `swb send @a @b some text` → recipients [a, b] and the text words, with the composer's own
// mention parser (src/text/mentions) so the CLI and the TUI agree on what a mention is.
import { splitCliTargets } from '../text/mentions.js';
import { UsageError } from './command.js';

export function splitTargets(args: readonly string[]): { recipients: string[]; textArgs: string[] } {
  const r = splitCliTargets(args);
  if (!r.ok) throw new UsageError(r.problem);
  if (r.recipients.length === 0) throw new UsageError('name at least one recipient as @peer (or @all)');
  return { recipients: r.recipients, textArgs: r.textArgs };
}
