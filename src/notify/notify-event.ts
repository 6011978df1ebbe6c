// What the operator may be told about: the events the notifier takes, as plain values. The sources
// (the agent runtime for states and exits, the hub for mail and held wakes) build them where the
// thing happens and hand them to one Notifier; this file only names the kinds and their reasons.
// `body` is the text that came with the event (a message, a question), kept so that
// `notify.body: "first-line"` can show its first line; by default it never leaves swb. The kinds'
// names are the config's words (src/config/notify-settings.ts), where an operator routes them.


/** Why a row waits for the operator (the agent's own words: a permission dialog, a question, its idle prompt). */
export const WAITING_REASONS = ['permission', 'question', 'idle-prompt'] as const;
export type WaitingReason = (typeof WAITING_REASONS)[number];

/** What held a wake back: the wake controller's loop guard, or the reply budget between two rows. */
export const WAKE_HELD_REASONS = ['loop-guard', 'reply-budget'] as const;
export type WakeHeldReason = (typeof WAKE_HELD_REASONS)[number];

interface EventBase {
  /** The row the event is about (for mail: the sender). */
  row: string;
  /** When it happened, on the notifier's clock (ms since the epoch with the system clock). */
  at: number;
  /** Text that came with it (mail text, a question); shown only with `notify.body: "first-line"`. */
  body?: string;
}

export type NotifyEvent = EventBase &
  (
    | { kind: 'waiting'; reason: WaitingReason }
    /** The turn ended with the row idle and nothing queued for it. */
    | { kind: 'turn-ended'; reason: 'idle' }
    /** Mail to the operator. */
    | { kind: 'mail'; reason: 'to-operator' }
    /** The row's program exited with a non-zero status. */
    | { kind: 'row-exited'; reason: 'non-zero'; exitCode: number }
    | { kind: 'wake-held'; reason: WakeHeldReason }
  );
