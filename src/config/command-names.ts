// The names of swb's subcommands and the line `swb --help` says for each, as data below the CLI:
// the command table (src/cli/commands.ts) is typed by them, so the two cannot drift; the top-level
// help (src/config/top-level-help.ts) lists them for the CLI and the thin client alike; and the
// dashboard's argument check (src/app/dashboard-args.ts) suggests the nearest of them for a mistyped
// ROW without importing the CLI.
export const COMMAND_SUMMARIES = {
  send: 'send a message to peers',
  inbox: 'show your unread mail',
  read: 'mark messages read',
  reply: 'reply to a message',
  wait: 'block until mail arrives',
  ask: 'send, then wait for the reply',
  peers: 'list known sessions',
  status: "show a message's receipts",
  explain: "why a row is busy, idle or waiting",
  grant: 'give two rows another reply budget',
  release: "give a row's handle back",
  ls: "list the server's rows",
  usage: 'tokens, cost and plan windows per row, agent, model or day',
  new: 'add a row to the server',
  kill: 'close one row',
  review: "a worktree row's changes",
  merge: "merge a worktree row's branch",
  rm: 'close a worktree row, remove its tree',
  'kill-server': 'end the server and its rows',
  events: 'stream mail, states, wakes, rows',
  web: 'serve the browser client, print its URL',
  run: 'run a command once its resources are reserved',
  resource: 'reservations: status, request, release, policy, grant',
  interrupt: "cancel a busy agent's turn",
  hook: "an agent's end-of-turn hook",
  mcp: 'serve swb mail and reservations as MCP tools (stdio)',
  hub: 'run the hub headless',
  trust: "trust a workspace's switchboard.json",
  untrust: "take back a config's trust",
  notify: 'send a test notification of each kind',
  schema: 'the JSON Schema of a config, theme or profile',
} as const;

export type CommandName = keyof typeof COMMAND_SUMMARIES;

export const COMMAND_NAMES = Object.keys(COMMAND_SUMMARIES) as readonly CommandName[];

const NAMES: ReadonlySet<string> = new Set(COMMAND_NAMES);

/** Whether `word` names a subcommand: an own name only, never `constructor` or `__proto__`. */
export function isCommandName(word: string): word is CommandName {
  return NAMES.has(word);
}
