// The command table (like tmux's cmd_table): bin/swb.ts looks names up here, loading each
// command's module only when it runs, so `swb send` never loads the hub, Ink or React.
import type { CommandName } from '../config/command-names.js';
import type { CommandDescriptor } from './command.js';

// Typed by the names in src/config/command-names.ts (which also holds each one's summary line for
// `swb --help`): a name without an entry, or an entry without a name, does not compile. Look a word
// up through isCommandName, never by indexing with it.
export const COMMANDS: Record<CommandName, { load: () => Promise<CommandDescriptor> }> = {
  send: { load: async () => (await import('./send.js')).sendCommand },
  inbox: { load: async () => (await import('./inbox.js')).inboxCommand },
  read: { load: async () => (await import('./read.js')).readCommand },
  reply: { load: async () => (await import('./reply.js')).replyCommand },
  wait: { load: async () => (await import('./wait.js')).waitCommand },
  ask: { load: async () => (await import('./ask.js')).askCommand },
  peers: { load: async () => (await import('./peers.js')).peersCommand },
  status: { load: async () => (await import('./status.js')).statusCommand },
  explain: { load: async () => (await import('./explain.js')).explainCommand },
  grant: { load: async () => (await import('./grant.js')).grantCommand },
  release: { load: async () => (await import('./release.js')).releaseCommand },
  ls: { load: async () => (await import('./ls.js')).lsCommand },
  usage: { load: async () => (await import('./usage.js')).usageCommand },
  new: { load: async () => (await import('./new-row.js')).newRowCommand },
  kill: { load: async () => (await import('./kill.js')).killCommand },
  review: { load: async () => (await import('./review.js')).reviewCommand },
  merge: { load: async () => (await import('./merge.js')).mergeCommand },
  rm: { load: async () => (await import('./rm.js')).rmCommand },
  'kill-server': { load: async () => (await import('./kill-server.js')).killServerCommand },
  events: { load: async () => (await import('./events.js')).eventsCommand },
  web: { load: async () => (await import('./web.js')).webCommand },
  run: { load: async () => (await import('./run.js')).runCommand },
  resource: { load: async () => (await import('./resource.js')).resourceCommand },
  interrupt: { load: async () => (await import('./interrupt.js')).interruptCommand },
  hook: { load: async () => (await import('./hook.js')).hookCommand },
  mcp: { load: async () => (await import('./mcp.js')).mcpCommand },
  hub: { load: async () => (await import('./hub.js')).hubCommand },
  trust: { load: async () => (await import('./trust.js')).trustCommand },
  untrust: { load: async () => (await import('./untrust.js')).untrustCommand },
  notify: { load: async () => (await import('./notify.js')).notifyCommand },
  schema: { load: async () => (await import('./schema.js')).schemaCommand },
};
