// The `notify` section of the config as the notifier (src/notify/) reads it: plain types and the word
// lists the schema offers. The zod schema that checks the file is in config-schema.ts (it type-checks
// its output against this shape, so the two cannot drift); the notifier needs no zod. These are the
// config's words, so they live with the config and the notifier stands above it.

/** The kinds of event an operator may route to a channel (src/notify/notify-event.ts gives their shapes). */
export const NOTIFY_EVENT_KINDS = ['waiting', 'turn-ended', 'mail', 'row-exited', 'wake-held'] as const;
export type NotifyEventKind = (typeof NOTIFY_EVENT_KINDS)[number];

export function isNotifyEventKind(word: string): word is NotifyEventKind {
  return (NOTIFY_EVENT_KINDS as readonly string[]).includes(word);
}

/** A local time of day in the config ("22:00"), as quiet hours take it. */
export const CLOCK_TIME_PATTERN = /^([01]\d|2[0-3]):([0-5]\d)$/;

/** The channels a kind of event can go to. */
export const NOTIFY_CHANNELS = ['terminal', 'command'] as const;
export type NotifyChannel = (typeof NOTIFY_CHANNELS)[number];

/** How a notification reaches the operator's terminal: detected, one sequence, or none. */
export const TERMINAL_NOTIFY_SETTINGS = ['auto', 'osc9', 'osc777', 'osc99', 'bell', 'off'] as const;
export type TerminalNotifySetting = (typeof TERMINAL_NOTIFY_SETTINGS)[number];
/** The sequences themselves (what `auto` resolves to for one terminal). */
export type TerminalNotifyKind = Exclude<TerminalNotifySetting, 'auto' | 'off'>;

/** "none": row, event and reason only (the default); "first-line": the body's first line too. */
export const NOTIFY_BODY_MODES = ['none', 'first-line'] as const;
export type NotifyBodyMode = (typeof NOTIFY_BODY_MODES)[number];

/** During quiet hours the terminal stays silent; the command too unless this says "send". */
export const QUIET_HOURS_COMMAND = ['silent', 'send'] as const;

export const NOTIFY_DEFAULTS = {
  coalesceMs: 2000,
  commandTimeoutS: 10,
  /** The kinds that go to every configured channel when `events` is not given. */
  events: ['waiting', 'mail', 'row-exited', 'wake-held'] as readonly NotifyEventKind[],
} as const;

export interface NotifySettings {
  terminal?: TerminalNotifySetting;
  command?: readonly string[];
  events?: Partial<Record<NotifyEventKind, readonly NotifyChannel[]>>;
  body?: NotifyBodyMode;
  coalesceMs?: number;
  commandTimeoutS?: number;
  quietHours?: { from: string; to: string; command?: (typeof QUIET_HOURS_COMMAND)[number] };
}

/** The older `notifications: {bell, desktop}` key (config before the `notify` section). */
export interface LegacyNotifications {
  bell?: boolean;
  desktop?: boolean;
}
