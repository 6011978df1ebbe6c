// The shape of switchboard.json / config.json (documented in docs/CONFIG.md). Strict: unknown fields are
// errors, so a typo never passes silently. Semantic checks that need other modules (key strings, theme
// files, profile names) happen in load-config. Every schema here is built at its first use
// (protocol/lazy-schema.ts says why): a server started without a config file never builds them.
import * as z from 'zod';
import { lazySchema } from '../protocol/lazy-schema.js';
import { DEFAULT_LIMITS, type HubLimits } from '../protocol/limits.js';
import { HANDLE_HINT, HANDLE_PATTERN } from '../protocol/handle.js';
import { checkFile, editorSchemaField, ownRecord, parse, type Checked } from '../util/schema.js';
import { ACTIONS, type ActionName } from './key-actions.js';
import { THEME_NAME_PATTERN } from './theme.js';
import { RESERVED_ROW_NAMES } from './reserved-row-names.js';
import { federationSettingsSchema } from './federation-config.js';
import { UsageConfigSchema } from './usage-config.js';
import {
  CLOCK_TIME_PATTERN,
  NOTIFY_BODY_MODES,
  NOTIFY_CHANNELS,
  NOTIFY_DEFAULTS,
  NOTIFY_EVENT_KINDS,
  QUIET_HOURS_COMMAND,
  TERMINAL_NOTIFY_SETTINGS,
  type NotifyEventKind,
  type NotifySettings,
} from './notify-settings.js';

export const WAKE_POLICIES = ['auto', 'notify', 'off'] as const;
export type WakePolicy = (typeof WAKE_POLICIES)[number];

export const LAYOUTS = ['stack', 'grid'] as const;
export type Layout = (typeof LAYOUTS)[number];

export { RESERVED_ROW_NAMES };

export const CONFIG_LIMITS = {
  rows: 64,
  commandLength: 8192,
  envVars: 256,
  envValueLength: 32 * 1024,
  keysPerAction: 8,
  /** maxMessageBytes must leave this much of a frame for the JSON-RPC envelope. */
  frameEnvelopeBytes: 1024,
} as const;

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const PROFILE_ID_PATTERN = /^[a-z0-9][a-z0-9._-]{0,63}$/;
const noNul = (s: string) => !s.includes('\0');
const NUL = 'contains a NUL character';

const rowName = lazySchema(() =>
  z
    .string()
    .regex(HANDLE_PATTERN, { error: HANDLE_HINT })
    .refine((name) => !RESERVED_ROW_NAMES.has(name), {
      error: (iss) => `"${String(iss.input)}" is reserved (it addresses ${iss.input === 'all' ? 'every peer' : 'you, the operator'})`,
    }),
);

const envSchema = lazySchema(() =>
  ownRecord(
    z
      .string()
      .regex(ENV_NAME, { error: 'not a valid environment variable name' })
      .refine((key) => !key.startsWith('SWB_'), { error: 'SWB_* variables are set by Switchboard for each row' }),
    z.string().max(CONFIG_LIMITS.envValueLength).refine(noNul, { error: NUL }),
    { maxKeys: CONFIG_LIMITS.envVars, keyProblem: 'not a valid environment variable name' },
  ).describe('Extra environment variables for the row (string values; SWB_* is reserved for Switchboard).'),
);

const worktreeSchema = lazySchema(() =>
  z
    .union([z.boolean(), z.strictObject({ branch: z.optional(z.string().min(1).max(200)), base: z.optional(z.string().min(1).max(200)) })])
    .describe('Run the row in a git worktree of its own: true for the defaults (branch swb/<name>, base HEAD).'),
);

const rowSchema = lazySchema(() =>
  z
    .strictObject({
      name: z.optional(rowName().describe("The row's handle; derived from the command or profile when absent.")),
      command: z.optional(
        z
          .string()
          .min(1)
          .max(CONFIG_LIMITS.commandLength)
          .refine((c) => c.trim() !== '', { error: 'is blank' })
          .refine(noNul, { error: NUL })
          .describe('Shell command line, run with `$SHELL -c`.'),
      ),
      profile: z.optional(
        z
          .string()
          .regex(PROFILE_ID_PATTERN, { error: 'a profile id: lower-case letters, digits, ".", "_" or "-"' })
          .describe('Agent profile id (claude, codex, gemini, aider, bash, sh, ...).'),
      ),
      cwd: z.optional(
        z
          .string()
          .min(1)
          .max(4096)
          .refine(noNul, { error: NUL })
          .describe('Working directory; relative paths are relative to the config file\'s directory; "~/" is home.'),
      ),
      env: z.optional(envSchema()),
      wake: z.optional(z.enum(WAKE_POLICIES).describe('What to do when mail arrives for an idle agent: type its wake line, only notify you, or nothing.')),
      worktree: z.optional(worktreeSchema()),
      nativeTools: z.optional(z.boolean().describe("Hand the agent swb's own tools (its profile's MCP server and hooks); default true.")),
    })
    .refine((row) => row.command !== undefined || row.profile !== undefined, { error: 'a row needs a "command" or a "profile"' })
    .describe('A row needs a command or a profile (or both: the profile then supplies detection and wake rules).'),
);
export type RowConfig = z.output<ReturnType<typeof rowSchema>>;

const keySpecs = lazySchema(() =>
  z
    .union([z.string().max(40), z.array(z.string().max(40)).max(CONFIG_LIMITS.keysPerAction)])
    .meta({ id: 'keySpec', description: 'A key ("ctrl+a", "alt+x", "f5", "q") or a list of keys; [] unbinds the action.' }),
);
// One optional field per action, so an editor offers the action names; buildKeymap checks the keys themselves.
const keysSchema = lazySchema(() =>
  z
    .strictObject(Object.fromEntries(ACTIONS.map((action) => [action, z.optional(keySpecs())])) as Record<ActionName, z.ZodOptional<ReturnType<typeof keySpecs>>>, {
      error: (iss) => (iss.code === 'unrecognized_keys' ? `unknown action (expected one of: ${ACTIONS.join(', ')})` : undefined),
    })
    .describe('Per action, the key or keys replacing its defaults ([] unbinds it).'),
);

const limitsSchema = lazySchema(() =>
  z
    .strictObject({
      maxUnread: z.optional(z.int().min(0).max(1_000_000).describe('Unread messages a recipient may hold; 0 = unlimited.')),
      rate: z.optional(z.number().min(0).max(100_000).describe('Messages per second per sender; 0 = unlimited.')),
      maxFrameBytes: z.optional(z.int().min(4096).max(16 * 1024 * 1024).describe('Longest protocol line, checked before parsing.')),
      maxMessageBytes: z.optional(z.int().min(1).max(16 * 1024 * 1024).describe(`Longest message text in UTF-8 bytes; must leave ${CONFIG_LIMITS.frameEnvelopeBytes} bytes of a frame for the envelope.`)),
      maxRecipients: z.optional(z.int().min(1).max(10_000).describe('Recipients of one message.')),
      retentionDays: z.optional(z.int().min(0).max(36_500).describe('Read mail older than this is deleted; 0 = keep forever.')),
      expiryHours: z.optional(z.int().min(0).max(876_000).describe('Unread mail older than this is marked expired; 0 = never.')),
      participantTtlHours: z.optional(z.number().min(0).max(876_000).describe('Tokenless handles unused this long (and with no unread mail) are forgotten; 0 = never.')),
      newHandlesPerMinute: z.optional(z.int().min(0).max(1_000_000).describe('New tokenless handles per minute, all clients together; 0 = unlimited.')),
      maxConnections: z.optional(z.int().min(8).max(100_000).describe('Open connections at once.')),
      automaticReplies: z.optional(z.int().min(0).max(1_000_000).describe('Messages two rows may send each other between two operator turns; 0 = unlimited.')),
      maxReplyDepth: z.optional(z.int().min(0).max(1_000_000).describe('Deepest replyTo chain among rows without the operator; 0 = unlimited.')),
      budgetParticipants: z.optional(z.boolean().describe('Count scripts and --as handles in the reply budget like rows.')),
    })
    .superRefine((limits, ctx) => {
      const frame = limits.maxFrameBytes ?? DEFAULT_LIMITS.maxFrameBytes;
      const message = limits.maxMessageBytes ?? DEFAULT_LIMITS.maxMessageBytes;
      if (message + CONFIG_LIMITS.frameEnvelopeBytes <= frame) return;
      ctx.addIssue({
        code: 'custom',
        path: [limits.maxMessageBytes !== undefined ? 'maxMessageBytes' : 'maxFrameBytes'],
        message: `a message (${message} bytes) plus ${CONFIG_LIMITS.frameEnvelopeBytes} bytes of envelope must fit in a frame (${frame} bytes)`,
      });
    })
    .describe('The mail hub\'s limits.'),
);
export type LimitsConfig = z.output<ReturnType<typeof limitsSchema>>;

const worktreesSchema = lazySchema(() =>
  z
    .strictObject({
      root: z.optional(z.string().min(1).max(4096).describe("Directory for the worktrees; relative to the repository's top; default `<repo>/../<repo>.swb`.")),
      setup: z.optional(z.string().min(1).max(CONFIG_LIMITS.commandLength).describe("Shell command run in a new worktree before the row's program (its output shows in the row).")),
      setupTimeoutS: z.optional(z.int().min(1).max(3600).describe('Seconds the setup may take (default 300).')),
    })
    .describe('Where worktree rows go and what prepares them.'),
);
export type WorktreesConfig = z.output<ReturnType<typeof worktreesSchema>>;

const clockTime = lazySchema(() => z.string().regex(CLOCK_TIME_PATTERN, { error: 'a local time "HH:MM", 00:00 to 23:59' }));
const notifyChannels = lazySchema(() => z.array(z.enum(NOTIFY_CHANNELS)).max(NOTIFY_CHANNELS.length));
// One optional field per event kind, so an editor offers the kinds.
const notifyEventsSchema = lazySchema(() =>
  z
    .strictObject(Object.fromEntries(NOTIFY_EVENT_KINDS.map((kind) => [kind, z.optional(notifyChannels())])) as Record<NotifyEventKind, z.ZodOptional<ReturnType<typeof notifyChannels>>>, {
      error: (iss) => (iss.code === 'unrecognized_keys' ? `unknown event kind (expected one of: ${NOTIFY_EVENT_KINDS.join(', ')})` : undefined),
    })
    .describe(`Per event kind, the channels it goes to ("terminal", "command"); a kind not named goes nowhere. Default: ${NOTIFY_DEFAULTS.events.join(', ')} to every channel.`),
);

const notifySchema = lazySchema(() =>
  z
    .strictObject({
      terminal: z.optional(
        z.enum(TERMINAL_NOTIFY_SETTINGS).describe('How a notification reaches your terminal: "auto" (detected), "osc9" (iTerm2, WezTerm, Windows Terminal), "osc777" (urxvt, Ghostty, foot), "osc99" (kitty), "bell", or "off". Default "auto".'),
      ),
      command: z.optional(
        z
          .array(z.string().min(1).max(4096).refine(noNul, { error: NUL }))
          .min(1)
          .max(64)
          .describe('A program and its arguments (an argv, never a shell line), run for each notification with the event as JSON on its stdin.'),
      ),
      events: z.optional(notifyEventsSchema()),
      body: z.optional(z.enum(NOTIFY_BODY_MODES).describe('"none" (default): a notification names the row, the event and the reason only; "first-line": the message\'s first line too.')),
      coalesceMs: z.optional(z.int().min(0).max(600_000).describe(`A burst of one row's events of one kind within this many ms is one notification (default ${NOTIFY_DEFAULTS.coalesceMs}).`)),
      commandTimeoutS: z.optional(z.number().min(0.1).max(600).describe(`Seconds the command may run before its process group is killed (default ${NOTIFY_DEFAULTS.commandTimeoutS}).`)),
      quietHours: z.optional(
        z
          .strictObject({
            from: clockTime().describe('Start, local time "HH:MM".'),
            to: clockTime().describe('End, local time "HH:MM" (may be earlier than from: the span wraps past midnight).'),
            command: z.optional(z.enum(QUIET_HOURS_COMMAND).describe('"silent" (default): the command is quiet too; "send": it still runs.')),
          })
          .describe('Local hours during which the terminal stays silent (and the command, unless command is "send").'),
      ),
    })
    .describe('Notifications that reach you: which events, on your terminal and/or through a command (docs/CONFIG.md, "Notifications").'),
);
export type NotifyConfig = z.output<ReturnType<typeof notifySchema>>;
// The notifier reads the section as src/notify's NotifySettings: this fails to compile if they drift.
const _notifyConfigFits: (config: NotifyConfig) => NotifySettings = (config) => config;
void _notifyConfigFits;

/** The browser client (issue #32): serve it from the server's start, and where (docs/CONFIG.md, "Web"). */
export const webSchema = lazySchema(() =>
  z
    .strictObject({
      start: z.optional(z.boolean().describe('Serve the page as soon as the server starts (default false: only once swb web asks).')),
      port: z.optional(z.int().min(0).max(65535).describe('TCP port (default 0: any free port, kept while the server runs).')),
      bind: z.optional(z.string().min(1).max(100).describe('Address to listen on (default 127.0.0.1). Anything but loopback needs tlsCert and tlsKey, or insecure.')),
      tlsCert: z.optional(z.string().min(1).max(4096).describe('PEM certificate file: serve over HTTPS.')),
      tlsKey: z.optional(z.string().min(1).max(4096).describe('PEM private key file for tlsCert.')),
      insecure: z.optional(z.boolean().describe('Allow a non-loopback bind without TLS (the token and the screens cross the network in the clear).')),
      allowedHosts: z.optional(z.array(z.string().regex(/^[A-Za-z0-9.[\]:-]{1,300}$/, { error: 'a host or host:port' })).max(32).describe('Host names (host or host:port) the page may be reached by besides its address, e.g. a tailnet name behind tailscale serve.')),
      cookieHours: z.optional(z.number().min(0.01).max(24 * 365).describe("A browser's login lasts this long (default 168: a week).")),
    })
    .describe('The browser client: swb web serves it; this section serves it from the start (docs/CONFIG.md, "Web").'),
);

/**
 * The file's sections, in the file schema's order, each built at its first use: a file is checked
 * with the sections it has (configSchemaFor), so a config of a few lines builds a few schemas.
 * New sections are one more key here.
 */
const SECTIONS = {
  $schema: editorSchemaField,
  rows: lazySchema(() => z.optional(z.array(rowSchema()).max(CONFIG_LIMITS.rows).describe('Rows to start.'))),
  theme: lazySchema(() => z.optional(z.string().regex(THEME_NAME_PATTERN, { error: 'a theme name: lower-case letters, digits, ".", "_" or "-"' }).describe('Theme name (default "dark").'))),
  keys: lazySchema(() => z.optional(keysSchema())),
  detachKey: lazySchema(() => z.optional(z.string().min(1).max(40).describe('Shorthand for keys.detach (give one or the other).'))),
  limits: lazySchema(() => z.optional(limitsSchema())),
  layout: lazySchema(() => z.optional(z.enum(LAYOUTS).describe('Initial layout (default "stack").'))),
  notifications: lazySchema(() => z.optional(z.strictObject({ bell: z.optional(z.boolean()), desktop: z.optional(z.boolean()) }).describe('Ring the terminal bell, or show desktop notifications, on new mail (the older form of notify).'))),
  notify: lazySchema(() => z.optional(notifySchema())),
  scrollback: lazySchema(() => z.optional(z.int().min(0).max(100_000).describe('Scrollback lines kept per row.'))),
  attachedStatus: lazySchema(() => z.optional(z.boolean().describe('Show a status line under an attached row (row, state, news, the detach key); default true.'))),
  composer: lazySchema(() => z.optional(z.strictObject({ closeAfterSend: z.optional(z.boolean()) }).describe('closeAfterSend (default true) closes the composer once a message is accepted.'))),
  clipboard: lazySchema(() => z.optional(z.enum(['osc52', 'file']).describe('Where the history view\'s copies go: "osc52" (the terminal\'s clipboard; some terminals refuse it) or "file" (default).'))),
  mouse: lazySchema(() => z.optional(z.boolean().describe('The mouse on the dashboard: click to focus, again to attach, wheel for history (default true).'))),
  federation: lazySchema(() => z.optional(federationSettingsSchema())),
  worktrees: lazySchema(() => z.optional(worktreesSchema())),
  usage: lazySchema(() => z.optional(UsageConfigSchema())),
  web: lazySchema(() => z.optional(webSchema())),
};
type SectionName = keyof typeof SECTIONS;
const SECTION_NAMES = Object.keys(SECTIONS) as SectionName[];

/** The named sections' schemas, as an object shape. */
function sectionShape<K extends SectionName>(names: readonly K[]): { [N in K]: ReturnType<(typeof SECTIONS)[N]> } {
  return Object.fromEntries(names.map((name) => [name, SECTIONS[name]()])) as { [N in K]: ReturnType<(typeof SECTIONS)[N]> };
}

/** The file as written: strict, so an unknown field is an error. */
export const configFileSchema = lazySchema(() =>
  z
    .strictObject(sectionShape(SECTION_NAMES))
    .meta({ title: 'Switchboard config', description: 'Switchboard configuration (switchboard.json or <config dir>/config.json; docs/CONFIG.md).' }),
);

type ConfigFile = z.output<ReturnType<typeof configFileSchema>>;

/** The file's value as swb uses it: rows default to none, the editor's `$schema` dropped. */
function applied({ $schema: _editorOnly, rows, ...rest }: ConfigFile) {
  return { rows: rows ?? [], ...rest };
}
export type SwitchboardConfig = ReturnType<typeof applied>;

/**
 * The schema that checks `value`: for an object whose every field is a section, the strict object of
 * exactly those sections, in the file schema's order: what the whole schema does with such a file
 * (a field it does not have is absent from both), with only its own sections built. Anything else
 * (an unknown field, whose problem names every section; not an object) gets the whole schema.
 * The checked value is then `applied` in plain code, not by a zod transform: on a server's way to
 * its first frame this is zod's first schema, and a transform (a pipe and its transform) was about
 * a fifth of its cold cost (a fresh node, `{ "scrollback": 5000 }`: 8.3 ms with it, 6.5 without;
 * issue #33).
 */
function configSchemaFor(value: unknown): ReturnType<typeof configFileSchema> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return configFileSchema();
  const present = SECTION_NAMES.filter((name) => Object.hasOwn(value, name));
  if (present.length !== Object.keys(value).length) return configFileSchema();
  const key = present.join(',');
  let schema = schemasBySections.get(key);
  if (schema === undefined) {
    // The same parse as the whole schema's for such a file, typed as it is.
    schema = z.strictObject(sectionShape(present)) as unknown as ReturnType<typeof configFileSchema>;
    if (schemasBySections.size >= SCHEMAS_BY_SECTIONS_MAX) schemasBySections.delete(schemasBySections.keys().next().value!);
    schemasBySections.set(key, schema);
  }
  return schema;
}
/** By the sections a file has: a server checks its config at its start and at every client's hello. */
const schemasBySections = new Map<string, ReturnType<typeof configFileSchema>>();
/** A handful of files' shapes: past that, edits piling up, the oldest go first. */
const SCHEMAS_BY_SECTIONS_MAX = 16;

/** Validates parsed JSON as a config: the typed value, or a SchemaError naming the field path. */
export function checkConfig(value: unknown): Checked<SwitchboardConfig> {
  const checked = checkFile(configSchemaFor(value), value);
  return checked.ok ? { ok: true, value: applied(checked.value) } : checked;
}

/**
 * The config when there is no file: what checkConfig makes of `{}` (a test holds the two equal),
 * without building the schema, which a server started without a config file then never needs.
 */
export function defaultConfig(): SwitchboardConfig {
  return { rows: [] };
}

/** checkConfig, throwing the SchemaError. */
export function parseConfig(value: unknown): SwitchboardConfig {
  return applied(parse(configSchemaFor(value), value));
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
