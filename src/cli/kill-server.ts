import { SwbError } from '../protocol/error-codes.js';
import { askYesNo } from './ask-yes-no.js';
import type { CommandDescriptor } from './command.js';

export const killServerCommand: CommandDescriptor = {
  name: 'kill-server',
  summary: 'End the workspace server and every row it runs (asks first when rows run; operator only).',
  usage: '[--force]',
  maxArgs: 0,
  flags: [{ name: 'force', type: 'boolean', description: 'do not ask, even when rows run' }],
  details:
    'The rows are recorded: the next swb starts them again (agents resume their conversations where their profile can); swb --fresh starts without them. ' +
    'Works on a server of an older swb too.',
  async run(ctx) {
    const client = await ctx.connect({ autoStart: false });
    let force = ctx.flags.force === true;
    for (;;) {
      try {
        const r = await client.request<{ stopping: boolean; rows: number }>('server.stop', { force });
        ctx.result(r);
        ctx.print(r.rows > 0 ? `the server is stopping; ${r.rows} row${r.rows === 1 ? '' : 's'} end` : 'the server is stopping');
        return 0;
      } catch (err) {
        if (!(err instanceof SwbError) || err.code !== 'ROWS_RUNNING' || force || !process.stdin.isTTY || ctx.json) throw err;
        if (!(await askYesNo(`${err.message.replace(/ \(--force.*$/, '')}. End them? [y/N] `))) {
          ctx.print('nothing stopped');
          return 1;
        }
        force = true;
      }
    }
  },
};
