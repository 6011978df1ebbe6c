// The command table (like tmux's cmd_table): bin/swb.ts looks names up here, loading each
// command's module only when it runs, so `swb send` never loads the hub, Ink or React.
import type { CommandName } from '../config/command-names.js';
import type { CommandDescriptor } from './command.js';

// Typed by the names in src/config/command-names.ts: a name without an entry, or an entry without a
// name, does not compile. Look a word up through isCommandName, never by indexing with it.
export const COMMANDS: Record<CommandName, { summary: string; load: () => Promise<CommandDescriptor> }> = {
  send: { summary: 'send a message to peers', load: async () => (await import('./send.js')).sendCommand },
  inbox: { summary: 'show your unread mail', load: async () => (await import('./inbox.js')).inboxCommand },
  read: { summary: 'mark messages read', load: async () => (await import('./read.js')).readCommand },
  reply: { summary: 'reply to a message', load: async () => (await import('./reply.js')).replyCommand },
  wait: { summary: 'block until mail arrives', load: async () => (await import('./wait.js')).waitCommand },
  ask: { summary: 'send, then wait for the reply', load: async () => (await import('./ask.js')).askCommand },
  peers: { summary: 'list known sessions', load: async () => (await import('./peers.js')).peersCommand },
  status: { summary: "show a message's receipts", load: async () => (await import('./status.js')).statusCommand },
  explain: { summary: "why a row is busy, idle or waiting", load: async () => (await import('./explain.js')).explainCommand },
  grant: { summary: 'give two rows another reply budget', load: async () => (await import('./grant.js')).grantCommand },
  release: { summary: "give a row's handle back", load: async () => (await import('./release.js')).releaseCommand },
  ls: { summary: "list the server's rows", load: async () => (await import('./ls.js')).lsCommand },
  new: { summary: 'add a row to the server', load: async () => (await import('./new-row.js')).newRowCommand },
  kill: { summary: 'close one row', load: async () => (await import('./kill.js')).killCommand },
  review: { summary: "a worktree row's changes", load: async () => (await import('./review.js')).reviewCommand },
  merge: { summary: "merge a worktree row's branch", load: async () => (await import('./merge.js')).mergeCommand },
  rm: { summary: 'close a worktree row, remove its tree', load: async () => (await import('./rm.js')).rmCommand },
  'kill-server': { summary: 'end the server and its rows', load: async () => (await import('./kill-server.js')).killServerCommand },
  events: { summary: 'stream mail, states, wakes, rows', load: async () => (await import('./events.js')).eventsCommand },
  run: { summary: 'run a command once its resources are reserved', load: async () => (await import('./run.js')).runCommand },
  resource: { summary: 'reservations: status, request, release, policy, grant', load: async () => (await import('./resource.js')).resourceCommand },
  interrupt: { summary: "cancel a busy agent's turn", load: async () => (await import('./interrupt.js')).interruptCommand },
  hook: { summary: "an agent's end-of-turn hook", load: async () => (await import('./hook.js')).hookCommand },
  mcp: { summary: 'serve swb mail and reservations as MCP tools (stdio)', load: async () => (await import('./mcp.js')).mcpCommand },
  hub: { summary: 'run the hub headless', load: async () => (await import('./hub.js')).hubCommand },
  trust: { summary: "trust a workspace's switchboard.json", load: async () => (await import('./trust.js')).trustCommand },
  untrust: { summary: "take back a config's trust", load: async () => (await import('./untrust.js')).untrustCommand },
  notify: { summary: 'send a test notification of each kind', load: async () => (await import('./notify.js')).notifyCommand },
  schema: { summary: 'the JSON Schema of a config, theme or profile', load: async () => (await import('./schema.js')).schemaCommand },
};
