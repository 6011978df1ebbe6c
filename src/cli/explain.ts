import { isValidHandle, HANDLE_HINT } from '../protocol/handle.js';
import type { RowExplainResult } from '../protocol/methods.js';
import { sanitize } from '../text/sanitize.js';
import { UsageError, type CommandDescriptor } from './command.js';

export const explainCommand: CommandDescriptor = {
  name: 'explain',
  summary:
    'Why a dashboard row is in its state: the rule that decided, the screen region it read, the evidence, the quiet time, and whether swb may type there now.',
  usage: 'ROW',
  minArgs: 1,
  maxArgs: 1,
  flags: [{ name: 'verbose', type: 'boolean', description: 'also list every rule tried on the latest screen' }],
  details:
    'Answered by the swb dashboard that runs ROW (a headless hub watches no rows: NOT_FOUND). The operator may ask about any row, a row only about itself.',
  async run(ctx) {
    const row = ctx.args[0]!.replace(/^@/, '');
    if (!isValidHandle(row)) throw new UsageError(`ROW ${JSON.stringify(row)}: ${HANDLE_HINT}`);
    // Starting a headless hub only to hear that it runs no rows would help nobody.
    const client = await ctx.connect({ autoStart: false });
    const r = await client.request<RowExplainResult>('rows.explain', { row, ...(ctx.flags.verbose === true ? { verbose: true } : {}) });
    ctx.result(r);
    ctx.print(sanitize(r.text, { maxChars: 16_000, maxLines: 200 }));
    return 0;
  },
};
