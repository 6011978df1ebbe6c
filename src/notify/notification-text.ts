// The words of a notification. Redacted by default: the row, what happened and why, never a
// message body or screen text (a desktop notification is read over a shoulder, logged by the
// notification daemon, or posted to a chat by the command). `notify.body: "first-line"` adds the
// body's first line. Everything that came from outside swb (the row's name, the body) is sanitized
// first, so the result is one line with no control characters, however it is used later.
import { sanitize } from '../text/sanitize.js';
import type { NotifyEvent } from './notify-event.js';
import type { NotifyBodyMode } from '../config/notify-settings.js';

export const NOTIFICATION_TITLE = 'Switchboard';
/** A body's first line is cut here; the whole text at NOTIFICATION_TEXT_MAX. */
const BODY_LINE_MAX = 120;
export const NOTIFICATION_TEXT_MAX = 200;

const oneLine = (text: string, maxChars: number) => sanitize(text, { singleLine: true, placeholder: 'strip', maxChars }).trim();

/** A row's name as it may be shown (handles are already safe; a name from elsewhere is made so). */
export const safeRowName = (row: string): string => oneLine(row, 64);

/** What happened, in words: "@api waits for you: permission". */
function phrase(event: NotifyEvent, row: string): string {
  switch (event.kind) {
    case 'waiting':
      return event.reason === 'question' ? `${row} asks you a question` : `${row} waits for you: ${event.reason === 'permission' ? 'permission' : 'idle prompt'}`;
    case 'turn-ended':
      return `${row} finished its turn (idle)`;
    case 'mail':
      return `${row} sent you mail`;
    case 'row-exited':
      return `${row} exited with status ${event.exitCode}`;
    case 'wake-held':
      return `${row}'s wake was held: ${event.reason === 'loop-guard' ? 'loop guard' : 'reply budget spent'}`;
  }
}

/** The body's first non-empty line, sanitized and bounded; '' when there is none. */
export function firstLineOf(body: string): string {
  const lines = sanitize(body, { placeholder: 'strip', maxLines: 1000, maxChars: 8000 }).split('\n');
  const first = lines.find((l) => l.trim() !== '') ?? '';
  return oneLine(first, BODY_LINE_MAX);
}

/**
 * One line for the operator. `count` is how many events the notification stands for (a burst
 * coalesced into one says so).
 */
export function notificationText(event: NotifyEvent, opts: { body: NotifyBodyMode; count?: number }): string {
  let text = phrase(event, `@${safeRowName(event.row)}`);
  if (opts.body === 'first-line' && event.body !== undefined) {
    const line = firstLineOf(event.body);
    if (line !== '') text += `: ${line}`;
  }
  const more = (opts.count ?? 1) - 1;
  if (more > 0) text += ` (and ${more} more)`;
  return oneLine(text, NOTIFICATION_TEXT_MAX);
}
