import { resolve } from 'node:path';
import { UsageError, type CommandDescriptor } from './command.js';

export const newRowCommand: CommandDescriptor = {
  name: 'new',
  summary: 'Add a row to the running server, from any shell (operator only).',
  usage: '[--name N] [--profile P] [--cwd DIR] [-- CMD ...]',
  flags: [
    { name: 'name', type: 'string', value: 'N', description: "the row's name (default: the profile or the program)" },
    { name: 'profile', type: 'string', value: 'P', description: 'agent profile (claude, codex, gemini, bash, ...): its command, state detection and wake' },
    { name: 'cwd', type: 'string', value: 'DIR', description: 'working directory (default: this directory)' },
  ],
  details: 'The command after -- runs as given; with only --profile, the profile\'s own command runs. Every dashboard attached to the server shows the new row.',
  async run(ctx) {
    const command = ctx.args;
    const profile = ctx.flags.profile as string | undefined;
    if (command.length === 0 && profile === undefined) throw new UsageError('give a profile (--profile P) or a command after --');
    const cwd = resolve(process.cwd(), (ctx.flags.cwd as string | undefined) ?? '.');
    const client = await ctx.connect({ autoStart: false });
    const r = await client.request<{ name: string }>('server.newRow', {
      ...(ctx.flags.name !== undefined ? { name: ctx.flags.name } : {}),
      ...(profile !== undefined ? { profile } : {}),
      ...(command.length > 0 ? { command } : {}),
      cwd,
    });
    ctx.result(r);
    ctx.print(`started row ${r.name}`);
    return 0;
  },
};
