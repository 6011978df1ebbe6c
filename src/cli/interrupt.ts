import { HANDLE_HINT, isValidHandle } from '../protocol/handle.js';
import { UsageError, type CommandDescriptor } from './command.js';

export const interruptCommand: CommandDescriptor = {
  name: 'interrupt',
  summary: "Cancel a busy agent's turn with its profile's interrupt key (operator only).",
  usage: 'ROW',
  minArgs: 1,
  maxArgs: 1,
  flags: [],
  details: 'Esc for Claude Code, Ctrl-C where that is the agent\'s cancel. Audited like every byte swb types; says whether the row left busy within 5 s. K on the dashboard does the same.',
  async run(ctx) {
    const row = ctx.args[0]!;
    if (!isValidHandle(row)) throw new UsageError(`${JSON.stringify(row)}: ${HANDLE_HINT}`);
    const client = await ctx.connect({ autoStart: false, server: true });
    const r = await client.request<{ key: string; sent: boolean; before: string; after: string; leftBusy: boolean }>('server.interrupt', { row }, { timeoutMs: 20_000 });
    ctx.result({ row, ...r });
    const key = JSON.stringify(r.key).slice(1, -1);
    if (!r.sent) ctx.print(`${row} is ${r.before}, not busy: nothing to interrupt (nothing typed)`);
    else ctx.print(r.leftBusy ? `interrupted ${row} (${key}): busy → ${r.after}` : `sent ${key} to ${row}, but it is still busy after 5 s`);
    return r.sent && !r.leftBusy ? 1 : 0;
  },
};
