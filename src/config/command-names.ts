// The names of swb's subcommands, as data below the CLI: the command table (src/cli/commands.ts) is
// typed by them, so the two cannot drift, and the dashboard's argument check (src/app/dashboard-args.ts)
// suggests the nearest of them for a mistyped ROW without importing the CLI.
export const COMMAND_NAMES = [
  'send',
  'inbox',
  'read',
  'reply',
  'wait',
  'ask',
  'peers',
  'status',
  'explain',
  'grant',
  'release',
  'ls',
  'new',
  'kill',
  'review',
  'merge',
  'rm',
  'kill-server',
  'events',
  'run',
  'resource',
  'interrupt',
  'hook',
  'mcp',
  'hub',
  'trust',
  'untrust',
  'schema',
  'notify',
] as const;

export type CommandName = (typeof COMMAND_NAMES)[number];

const NAMES: ReadonlySet<string> = new Set(COMMAND_NAMES);

/** Whether `word` names a subcommand: an own name only, never `constructor` or `__proto__`. */
export function isCommandName(word: string): word is CommandName {
  return NAMES.has(word);
}
