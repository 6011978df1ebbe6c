import { HANDLE_HINT, isValidHandle } from '../protocol/handle.js';
import { UsageError, type CommandDescriptor } from './command.js';

export const killCommand: CommandDescriptor = {
  name: 'kill',
  summary: "Close one row of the running server: its program ends (operator only).",
  usage: 'ROW',
  minArgs: 1,
  maxArgs: 1,
  flags: [],
  details: 'The row leaves every dashboard; its handle and its mail stay (swb release gives the handle back).',
  async run(ctx) {
    const row = ctx.args[0]!;
    if (!isValidHandle(row)) throw new UsageError(`${JSON.stringify(row)}: ${HANDLE_HINT}`);
    const client = await ctx.connect({ autoStart: false, server: true });
    const r = await client.request<{ closed: boolean }>('server.killRow', { row });
    ctx.result({ row, ...r });
    ctx.print(`closed row ${row}`);
    return 0;
  },
};
