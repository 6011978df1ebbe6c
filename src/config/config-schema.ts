// The shape of switchboard.json / config.json (documented in docs/CONFIG.md). Strict: unknown fields are
// errors, so a typo never passes silently. Semantic checks that need other modules (key strings, theme
// files, profile names) happen in load-config.
import { DEFAULT_LIMITS, type HubLimits } from '../protocol/limits.js';
import { HANDLE_HINT, HANDLE_PATTERN } from '../protocol/handle.js';
import { array, bool, int, literal, num, object, optional, parse, record, SchemaError, str, type Schema } from '../util/schema.js';
import { THEME_NAME_PATTERN } from './theme.js';
import { parseFederationSettings, type FederationSettings } from '../federation/federation-config.js';

export const WAKE_POLICIES = ['auto', 'notify', 'off'] as const;
export type WakePolicy = (typeof WAKE_POLICIES)[number];

export const LAYOUTS = ['stack', 'grid'] as const;
export type Layout = (typeof LAYOUTS)[number];

/** Names a row may not take: the broadcast target and the operator's own session. */
export const RESERVED_ROW_NAMES: ReadonlySet<string> = new Set(['all', 'operator']);

export const CONFIG_LIMITS = {
  rows: 64,
  commandLength: 8192,
  envVars: 256,
  envValueLength: 32 * 1024,
  keysPerAction: 8,
  /** maxMessageBytes must leave this much of a frame for the JSON-RPC envelope. */
  frameEnvelopeBytes: 1024,
} as const;

export interface RowConfig {
  /** The row's handle; derived from the command or profile when absent. */
  name?: string;
  /** Shell command line, run with `$SHELL -c`. */
  command?: string;
  /** Agent profile id (claude, codex, gemini, aider, bash, sh, ...). */
  profile?: string;
  /** Working directory; relative paths are relative to the config file's directory; "~/" is home. */
  cwd?: string;
  env?: Record<string, string>;
  wake?: WakePolicy;
  /** Run the row in a git worktree of its own: true for the defaults (branch swb/<name>, base HEAD). */
  worktree?: boolean | { branch?: string; base?: string };
  /** Hand the agent swb's own tools (its profile's MCP server and hooks); default true. */
  nativeTools?: boolean;
}

/** Where worktree rows go and what prepares them (issue #12). */
export interface WorktreesConfig {
  /** Directory for the worktrees; relative to the repository's top; default `<repo>/../<repo>.swb`. */
  root?: string;
  /** Shell command run in a new worktree before the row's program (its output shows in the row). */
  setup?: string;
  /** Seconds the setup may take (default 300). */
  setupTimeoutS?: number;
}

export interface LimitsConfig {
  /** Unread messages a recipient may hold; 0 = unlimited. */
  maxUnread?: number;
  /** Messages per second per sender; 0 = unlimited. */
  rate?: number;
  maxFrameBytes?: number;
  maxMessageBytes?: number;
  maxRecipients?: number;
  /** Read mail older than this is deleted; 0 = keep forever. */
  retentionDays?: number;
  /** Unread mail older than this is marked expired; 0 = never. */
  expiryHours?: number;
  /** Tokenless handles unused this long (and with no unread mail) are forgotten; 0 = never. */
  participantTtlHours?: number;
  /** New tokenless handles per minute, all clients together; 0 = unlimited. */
  newHandlesPerMinute?: number;
  /** Open connections at once. */
  maxConnections?: number;
  /** Messages two rows may send each other between two operator turns; 0 = unlimited. */
  automaticReplies?: number;
  /** Deepest replyTo chain among rows without the operator; 0 = unlimited. */
  maxReplyDepth?: number;
  /** Count scripts and --as handles in the reply budget like rows. */
  budgetParticipants?: boolean;
}

export interface SwitchboardConfig {
  rows: RowConfig[];
  theme?: string;
  /** Per action (ActionName), the key or keys replacing its defaults ([] unbinds). Checked by buildKeymap. */
  keys?: Record<string, string | string[]>;
  /** Shorthand for keys.detach. */
  detachKey?: string;
  limits?: LimitsConfig;
  layout?: Layout;
  notifications?: { bell?: boolean; desktop?: boolean };
  /** Scrollback lines kept per row. */
  scrollback?: number;
  /** Show a status line under an attached row (row, state, news, the detach key); default true. */
  attachedStatus?: boolean;
  worktrees?: WorktreesConfig;
  /** Mail across machines through NATS JetStream (src/federation/). */
  federation?: FederationSettings;
  /** The mouse on the dashboard: click to focus, again to attach, wheel for history (default true). */
  mouse?: boolean;
  /** Where the history view's copies go: "osc52" (the terminal's clipboard; some terminals refuse it) or "file" (default). */
  clipboard?: 'osc52' | 'file';
  /** The composer: closeAfterSend (default true) closes it once a message is accepted. */
  composer?: { closeAfterSend?: boolean };
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

const rowName: Schema<string> = (v, p) => {
  const name = str({ pattern: HANDLE_PATTERN, patternHint: HANDLE_HINT })(v, p);
  if (RESERVED_ROW_NAMES.has(name)) throw new SchemaError(p, `"${name}" is reserved (it addresses ${name === 'all' ? 'every peer' : 'you, the operator'})`);
  return name;
};

const envSchema: Schema<Record<string, string>> = (v, p) => {
  const env = record(str({ max: CONFIG_LIMITS.envValueLength }), { maxKeys: CONFIG_LIMITS.envVars })(v, p);
  if (typeof v === 'object' && v !== null) {
    for (const key of Object.keys(v)) {
      const at = `${p}.${key}`;
      if (!ENV_NAME.test(key) || key === '__proto__') throw new SchemaError(at, 'not a valid environment variable name');
      if (key.startsWith('SWB_')) throw new SchemaError(at, 'SWB_* variables are set by Switchboard for each row');
      const value = (v as Record<string, unknown>)[key];
      if (typeof value === 'string' && value.includes('\0')) throw new SchemaError(at, 'contains a NUL character');
    }
  }
  return env;
};

const rowSchema: Schema<RowConfig> = (v, p) => {
  const row = object({
    name: optional(rowName),
    command: optional(str({ min: 1, max: CONFIG_LIMITS.commandLength })),
    profile: optional(str({ pattern: /^[a-z0-9][a-z0-9._-]{0,63}$/, patternHint: 'a profile id: lower-case letters, digits, ".", "_" or "-"' })),
    cwd: optional(str({ min: 1, max: 4096 })),
    env: optional(envSchema),
    wake: optional(literal(...WAKE_POLICIES)),
    nativeTools: optional(bool),
    worktree: optional((w: unknown, at: string): boolean | { branch?: string; base?: string } =>
      typeof w === 'boolean' ? w : object({ branch: optional(str({ min: 1, max: 200 })), base: optional(str({ min: 1, max: 200 })) })(w, at),
    ),
  })(v, p);
  if (row.command === undefined && row.profile === undefined) throw new SchemaError(p, 'a row needs a "command" or a "profile"');
  if (row.command !== undefined && row.command.trim() === '') throw new SchemaError(`${p}.command`, 'is blank');
  if (row.command?.includes('\0')) throw new SchemaError(`${p}.command`, 'contains a NUL character');
  if (row.cwd?.includes('\0')) throw new SchemaError(`${p}.cwd`, 'contains a NUL character');
  return row;
};

const keySpecs: Schema<string | string[]> = (v, p) => {
  if (typeof v === 'string') return str({ max: 40 })(v, p);
  return array(str({ max: 40 }), { max: CONFIG_LIMITS.keysPerAction })(v, p);
};

const limitsSchema: Schema<LimitsConfig> = (v, p) => {
  const limits = object({
    maxUnread: optional(int({ min: 0, max: 1_000_000 })),
    rate: optional(num({ min: 0, max: 100_000 })),
    maxFrameBytes: optional(int({ min: 4096, max: 16 * 1024 * 1024 })),
    maxMessageBytes: optional(int({ min: 1, max: 16 * 1024 * 1024 })),
    maxRecipients: optional(int({ min: 1, max: 10_000 })),
    retentionDays: optional(int({ min: 0, max: 36_500 })),
    expiryHours: optional(int({ min: 0, max: 876_000 })),
    participantTtlHours: optional(num({ min: 0, max: 876_000 })),
    newHandlesPerMinute: optional(int({ min: 0, max: 1_000_000 })),
    maxConnections: optional(int({ min: 8, max: 100_000 })),
    automaticReplies: optional(int({ min: 0, max: 1_000_000 })),
    maxReplyDepth: optional(int({ min: 0, max: 1_000_000 })),
    budgetParticipants: optional(bool),
  })(v, p);
  const frame = limits.maxFrameBytes ?? DEFAULT_LIMITS.maxFrameBytes;
  const message = limits.maxMessageBytes ?? DEFAULT_LIMITS.maxMessageBytes;
  if (message + CONFIG_LIMITS.frameEnvelopeBytes > frame) {
    throw new SchemaError(
      `${p}.${limits.maxMessageBytes !== undefined ? 'maxMessageBytes' : 'maxFrameBytes'}`,
      `a message (${message} bytes) plus ${CONFIG_LIMITS.frameEnvelopeBytes} bytes of envelope must fit in a frame (${frame} bytes)`,
    );
  }
  return limits;
};

const configShape = object({
  $schema: optional(str()),
  rows: optional(array(rowSchema, { max: CONFIG_LIMITS.rows })),
  theme: optional(str({ pattern: THEME_NAME_PATTERN, patternHint: 'a theme name: lower-case letters, digits, ".", "_" or "-"' })),
  keys: optional(record(keySpecs, { maxKeys: 64 })),
  detachKey: optional(str({ min: 1, max: 40 })),
  limits: optional(limitsSchema),
  layout: optional(literal(...LAYOUTS)),
  notifications: optional(object({ bell: optional(bool), desktop: optional(bool) })),
  scrollback: optional(int({ min: 0, max: 100_000 })),
  attachedStatus: optional(bool),
  composer: optional(object({ closeAfterSend: optional(bool) })),
  clipboard: optional(literal('osc52', 'file')),
  mouse: optional(bool),
  federation: optional((v: unknown, p: string): FederationSettings => {
    const r = parseFederationSettings(v, p);
    if ('error' in r) throw new SchemaError(r.error.path, r.error.message);
    return r.ok;
  }),
  worktrees: optional(
    object({ root: optional(str({ min: 1, max: 4096 })), setup: optional(str({ min: 1, max: CONFIG_LIMITS.commandLength })), setupTimeoutS: optional(int({ min: 1, max: 3600 })) }),
  ),
});

/** Validates parsed JSON as a config; throws SchemaError naming the field path. */
export function parseConfig(value: unknown): SwitchboardConfig {
  const { $schema: _ignored, rows, ...rest } = parse(configShape, value);
  return { rows: rows ?? [], ...rest };
}

/** The hub's limits with the config's overrides applied. */
export function resolveHubLimits(limits: LimitsConfig = {}, base: HubLimits = DEFAULT_LIMITS): HubLimits {
  return {
    ...base,
    ...(limits.maxUnread !== undefined && { maxUnread: limits.maxUnread }),
    ...(limits.rate !== undefined && { ratePerSecond: limits.rate }),
    ...(limits.maxFrameBytes !== undefined && { maxFrameBytes: limits.maxFrameBytes }),
    ...(limits.maxMessageBytes !== undefined && { maxMessageBytes: limits.maxMessageBytes }),
    ...(limits.maxRecipients !== undefined && { maxRecipients: limits.maxRecipients }),
    ...(limits.retentionDays !== undefined && { retentionDays: limits.retentionDays }),
    ...(limits.expiryHours !== undefined && { expiryHours: limits.expiryHours }),
    ...(limits.participantTtlHours !== undefined && { participantTtlHours: limits.participantTtlHours }),
    ...(limits.newHandlesPerMinute !== undefined && { newHandlesPerMinute: limits.newHandlesPerMinute }),
    ...(limits.maxConnections !== undefined && { maxConnections: limits.maxConnections }),
    ...(limits.automaticReplies !== undefined && { automaticReplies: limits.automaticReplies }),
    ...(limits.maxReplyDepth !== undefined && { maxReplyDepth: limits.maxReplyDepth }),
    ...(limits.budgetParticipants !== undefined && { budgetParticipants: limits.budgetParticipants }),
  };
}
