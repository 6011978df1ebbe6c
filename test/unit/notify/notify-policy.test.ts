import { describe, expect, it } from 'vitest';
import { NOTIFY_EVENT_KINDS } from '../../../src/config/notify-settings.js';
import { notifySettingsFromLegacy, resolveNotifyPolicy, SILENT_POLICY } from '../../../src/notify/notify-policy.js';
import { isQuietMinute, minuteOfClockTime } from '../../../src/notify/quiet-hours.js';

const routesOf = (p: ReturnType<typeof resolveNotifyPolicy>) => Object.fromEntries(NOTIFY_EVENT_KINDS.map((k) => [k, [...p.routes[k]].sort()]));

describe('resolveNotifyPolicy', () => {
  it('sends nothing without a notify section or the older key', () => {
    expect(resolveNotifyPolicy(undefined)).toBe(SILENT_POLICY);
    expect(resolveNotifyPolicy(undefined, { bell: false, desktop: false })).toBe(SILENT_POLICY);
  });

  it('turns the terminal on ("auto") with a section, and routes the default kinds to every channel there is', () => {
    const p = resolveNotifyPolicy({ command: ['notify-send', 'swb'] });
    expect(p.terminal).toBe('auto');
    expect(p.command).toEqual(['notify-send', 'swb']);
    expect(routesOf(p)).toEqual({
      waiting: ['command', 'terminal'],
      'turn-ended': [],
      mail: ['command', 'terminal'],
      'row-exited': ['command', 'terminal'],
      'wake-held': ['command', 'terminal'],
    });
    expect(p).toMatchObject({ body: 'none', coalesceMs: 2000, commandTimeoutMs: 10_000, quietHours: null });
  });

  it('routes only what events names, and never to a channel that is not there', () => {
    const p = resolveNotifyPolicy({ terminal: 'off', events: { 'turn-ended': ['terminal', 'command'], waiting: ['terminal'] } });
    expect(routesOf(p)).toEqual({ waiting: [], 'turn-ended': [], mail: [], 'row-exited': [], 'wake-held': [] });
    const q = resolveNotifyPolicy({ terminal: 'osc99', command: ['x'], events: { 'turn-ended': ['command'], waiting: ['terminal'] } });
    expect(routesOf(q)).toEqual({ waiting: ['terminal'], 'turn-ended': ['command'], mail: [], 'row-exited': [], 'wake-held': [] });
  });

  it('maps the older notifications key onto mail to the terminal', () => {
    expect(notifySettingsFromLegacy({ desktop: true })).toEqual({ terminal: 'auto', events: { mail: ['terminal'] } });
    expect(notifySettingsFromLegacy({ bell: true })).toEqual({ terminal: 'bell', events: { mail: ['terminal'] } });
    expect(routesOf(resolveNotifyPolicy(undefined, { bell: true }))).toMatchObject({ mail: ['terminal'], waiting: [] });
    // The notify section wins when both are given.
    expect(resolveNotifyPolicy({ terminal: 'osc9' }, { bell: true }).terminal).toBe('osc9');
  });

  it('reads quiet hours, the body mode, the window and the timeout', () => {
    const p = resolveNotifyPolicy({ body: 'first-line', coalesceMs: 500, commandTimeoutS: 2.5, quietHours: { from: '22:30', to: '07:00', command: 'send' } });
    expect(p).toMatchObject({ body: 'first-line', coalesceMs: 500, commandTimeoutMs: 2500, quietHours: { fromMinute: 22 * 60 + 30, toMinute: 7 * 60, command: 'send' } });
    expect(resolveNotifyPolicy({ quietHours: { from: '22:00', to: '07:00' } }).quietHours?.command).toBe('silent');
  });
});

describe('quiet hours', () => {
  it('reads "HH:MM" and nothing else', () => {
    expect(minuteOfClockTime('00:00')).toBe(0);
    expect(minuteOfClockTime('23:59')).toBe(23 * 60 + 59);
    expect(minuteOfClockTime('24:00')).toBeNull();
    expect(minuteOfClockTime('7:00')).toBeNull();
  });
  it('spans the day or wraps past midnight; from == to is never quiet', () => {
    const night = { fromMinute: 22 * 60, toMinute: 7 * 60 };
    expect([21 * 60 + 59, 22 * 60, 0, 6 * 60 + 59, 7 * 60, 12 * 60].map((m) => isQuietMinute(night, m))).toEqual([false, true, true, true, false, false]);
    const lunch = { fromMinute: 12 * 60, toMinute: 13 * 60 };
    expect([11 * 60 + 59, 12 * 60, 12 * 60 + 59, 13 * 60].map((m) => isQuietMinute(lunch, m))).toEqual([false, true, true, false]);
    expect(isQuietMinute({ fromMinute: 600, toMinute: 600 }, 600)).toBe(false);
  });
});
