// Quiet hours: a stretch of local time ("22:00" to "07:00") during which notifications hold their
// tongue. The span may wrap past midnight; from == to is an empty span (never quiet), so a
// misread "all day" needs saying explicitly as, e.g., "00:00" to "23:59". Local time comes from a
// function of the clock's milliseconds, injected so tests need no time zone.

import { CLOCK_TIME_PATTERN } from '../config/notify-settings.js';

export interface QuietSpan {
  /** Minutes after local midnight. */
  fromMinute: number;
  toMinute: number;
}

/** Minutes after midnight of "HH:MM", or null when it is not one. */
export function minuteOfClockTime(text: string): number | null {
  const m = CLOCK_TIME_PATTERN.exec(text);
  return m ? Number(m[1]) * 60 + Number(m[2]) : null;
}

/** The local minute of the day at `ms` (the system's time zone). */
export function localMinuteOfDay(ms: number): number {
  const d = new Date(ms);
  return d.getHours() * 60 + d.getMinutes();
}

/** True when `minute` falls in [from, to), wrapping past midnight when to < from. */
export function isQuietMinute(span: QuietSpan, minute: number): boolean {
  const { fromMinute: from, toMinute: to } = span;
  if (from === to) return false;
  return from < to ? minute >= from && minute < to : minute >= from || minute < to;
}
