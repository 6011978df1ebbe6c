import { HANDLE_HINT, isValidHandle } from '../protocol/handle.js';
import { UsageError, type CommandDescriptor } from './command.js';

export const releaseCommand: CommandDescriptor = {
  name: 'release',
  summary: "Give a row's handle back (operator only): its token stops working and a client without a token may take the name.",
  usage: 'HANDLE',
  minArgs: 1,
  maxArgs: 1,
  flags: [],
  details:
    'A row keeps its handle across hub restarts, so nobody can take its name and read its mail while it is away. ' +
    'Release it once the row is gone for good. Its mail stays in the store.',
  async run(ctx) {
    const handle = ctx.args[0]!;
    if (!isValidHandle(handle)) throw new UsageError(`${JSON.stringify(handle)}: ${HANDLE_HINT}`);
    const client = await ctx.connect({ autoStart: false });
    const r = await client.request<{ released: boolean }>('session.release', { handle });
    ctx.result({ handle, ...r });
    ctx.print(r.released ? `released ${handle}` : `${handle} was not a row's handle; nothing to release`);
    return 0;
  },
};
