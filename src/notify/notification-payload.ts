// The JSON document `notify.command` reads on its stdin: the event as data, redacted as the text is
// (the body only with `notify.body: "first-line"`, and then only its sanitized first line), with the
// ready-made text for commands that just display it. The argv never carries any of it: a command
// is a fixed argv from the config, so nothing in an event can reach a shell or an argument list.
import type { NotifyEvent } from './notify-event.js';
import type { NotifyBodyMode } from '../config/notify-settings.js';
import { firstLineOf, NOTIFICATION_TITLE, notificationText, safeRowName } from './notification-text.js';

export const NOTIFY_PAYLOAD_VERSION = 1;

export interface NotificationPayload {
  version: typeof NOTIFY_PAYLOAD_VERSION;
  kind: NotifyEvent['kind'];
  row: string;
  reason: NotifyEvent['reason'];
  /** ISO 8601, UTC. */
  at: string;
  /** How many events this one stands for (a coalesced burst). */
  count: number;
  title: string;
  text: string;
  exitCode?: number;
  /** Only with notify.body "first-line". */
  body?: string;
}

export function notificationPayload(event: NotifyEvent, opts: { body: NotifyBodyMode; count?: number }): NotificationPayload {
  const count = opts.count ?? 1;
  const body = opts.body === 'first-line' && event.body !== undefined ? firstLineOf(event.body) : '';
  return {
    version: NOTIFY_PAYLOAD_VERSION,
    kind: event.kind,
    row: safeRowName(event.row),
    reason: event.reason,
    at: new Date(event.at).toISOString(),
    count,
    title: NOTIFICATION_TITLE,
    text: notificationText(event, { body: opts.body, count }),
    ...(event.kind === 'row-exited' ? { exitCode: event.exitCode } : {}),
    ...(body !== '' ? { body } : {}),
  };
}
