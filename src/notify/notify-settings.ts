// The `notify` section of the config as the notifier reads it. The zod schema that checks the file
// is in src/config/config-schema.ts (it type-checks its output against this shape, so the two cannot
// drift); this side is plain types and the word lists the schema offers, so the notifier needs no
// zod and src/notify never imports src/config.
import type { NotifyEventKind } from './notify-event.js';

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
