import { describe, expect, it } from 'vitest';
import type { NotifyEvent } from '../../../src/notify/notify-event.js';
import { resolveNotifyPolicy } from '../../../src/notify/notify-policy.js';
import type { NotifySettings } from '../../../src/config/notify-settings.js';
import type { NotificationPayload } from '../../../src/notify/notification-payload.js';
import { Notifier } from '../../../src/notify/notifier.js';
import type { TerminalNotice } from '../../../src/notify/terminal-sequences.js';
import { FakeClock } from '../../helpers/fake-clock.js';

/** A notifier on a fake clock whose local time is the clock's UTC time (no time zone in tests). */
function setup(settings: NotifySettings, start = Date.UTC(2026, 11, 5, 12, 0, 0)) {
  const clock = new FakeClock(start);
  const terminal: TerminalNotice[] = [];
  const commands: NotificationPayload[] = [];
  const notifier = new Notifier({
    policy: resolveNotifyPolicy({ command: ['unused'], ...settings }),
    clock,
    minuteOfDay: (ms) => Math.floor(ms / 60_000) % 1440,
    writeTerminal: (n) => terminal.push(n),
    commands: { run: (p) => commands.push(p) },
  });
  const mail = (row: string, body = 'hello'): NotifyEvent => ({ kind: 'mail', reason: 'to-operator', row, at: clock.now(), body });
  const waiting = (row: string): NotifyEvent => ({ kind: 'waiting', reason: 'permission', row, at: clock.now() });
  return { clock, notifier, terminal, commands, mail, waiting };
}

describe('Notifier', () => {
  it('sends the first event of a burst at once and the rest as one notification, newest text winning, with the count', () => {
    const t = setup({ body: 'first-line' });
    t.notifier.notify(t.mail('api', 'one'));
    expect(t.terminal.map((n) => n.text)).toEqual(['@api sent you mail: one']);
    expect(t.commands.map((p) => p.body)).toEqual(['one']);
    t.clock.advance(500);
    t.notifier.notify(t.mail('api', 'two'));
    t.clock.advance(500);
    t.notifier.notify(t.mail('api', 'three'));
    expect(t.terminal).toHaveLength(1);
    t.clock.advance(999);
    expect(t.terminal).toHaveLength(1);
    t.clock.advance(1);
    expect(t.terminal.map((n) => n.text)).toEqual(['@api sent you mail: one', '@api sent you mail: three (and 1 more)']);
    expect(t.commands.map((p) => [p.body, p.count])).toEqual([['one', 1], ['three', 2]]);
    // The flush opened a new window; after it, the next event goes out at once again.
    t.clock.advance(2000);
    expect(t.clock.pendingTimers).toBe(0);
    t.notifier.notify(t.mail('api', 'four'));
    expect(t.terminal.at(-1)!.text).toBe('@api sent you mail: four');
  });

  it('coalesces per row and kind: another row or another kind is its own burst', () => {
    const t = setup({});
    t.notifier.notify(t.mail('api'));
    t.notifier.notify(t.mail('web'));
    t.notifier.notify(t.waiting('api'));
    t.notifier.notify(t.mail('api'));
    expect(t.terminal.map((n) => [n.id, n.text])).toEqual([
      ['swb-mail-api', '@api sent you mail'],
      ['swb-mail-web', '@web sent you mail'],
      ['swb-waiting-api', '@api waits for you: permission'],
    ]);
    t.clock.advance(2000);
    expect(t.terminal.at(-1)!.text).toBe('@api sent you mail');
    expect(t.commands).toHaveLength(4);
  });

  it('takes its window from the config', () => {
    const t = setup({ coalesceMs: 100 });
    t.notifier.notify(t.mail('api'));
    t.clock.advance(100);
    t.notifier.notify(t.mail('api'));
    expect(t.terminal).toHaveLength(2);
  });

  it('sends each kind only to the channels it is routed to', () => {
    const t = setup({ events: { waiting: ['terminal'], mail: ['command'] } });
    t.notifier.notify(t.waiting('api'));
    t.notifier.notify(t.mail('api'));
    t.notifier.notify({ kind: 'turn-ended', reason: 'idle', row: 'api', at: t.clock.now() });
    expect(t.terminal.map((n) => n.id)).toEqual(['swb-waiting-api']);
    expect(t.commands.map((p) => p.kind)).toEqual(['mail']);
    expect(t.notifier.heldBecause('command', 'api', 'waiting')).toBe('not-routed');
  });

  it('keeps the terminal and the command silent during quiet hours, and sends again after them', () => {
    const t = setup({ quietHours: { from: '22:00', to: '07:00' } }, Date.UTC(2026, 11, 5, 23, 30));
    t.notifier.notify(t.waiting('api'));
    expect(t.terminal).toEqual([]);
    expect(t.commands).toEqual([]);
    expect(t.notifier.heldBecause('terminal', 'api')).toBe('quiet-hours');
    t.clock.advance(7.5 * 3600_000);
    t.notifier.notify(t.waiting('api'));
    expect(t.terminal).toHaveLength(1);
    expect(t.commands).toHaveLength(1);
  });

  it('lets the command run during quiet hours when the config says "send"', () => {
    const t = setup({ quietHours: { from: '22:00', to: '07:00', command: 'send' } }, Date.UTC(2026, 11, 5, 2, 0));
    t.notifier.notify(t.waiting('api'));
    expect(t.terminal).toEqual([]);
    expect(t.commands.map((p) => p.kind)).toEqual(['waiting']);
  });

  it('drops a burst held across the start of quiet hours', () => {
    const t = setup({ quietHours: { from: '22:00', to: '07:00' } }, Date.UTC(2026, 11, 5, 21, 59, 59));
    t.notifier.notify(t.mail('api'));
    t.notifier.notify(t.mail('api'));
    expect(t.terminal).toHaveLength(1);
    t.clock.advance(2000);
    expect(t.terminal).toHaveLength(1);
  });

  it('mutes one row (what it held too) until it is unmuted; other rows still notify', () => {
    const t = setup({});
    t.notifier.notify(t.mail('api'));
    t.notifier.notify(t.mail('api'));
    t.notifier.mute('api');
    expect(t.notifier.muted('api')).toBe(true);
    t.clock.advance(2000);
    t.notifier.notify(t.mail('api'));
    t.notifier.notify(t.mail('web'));
    expect(t.terminal.map((n) => n.id)).toEqual(['swb-mail-api', 'swb-mail-web']);
    t.notifier.unmute('api');
    expect(t.notifier.muted('api')).toBe(false);
    t.notifier.notify(t.mail('api'));
    expect(t.terminal.map((n) => n.id)).toEqual(['swb-mail-api', 'swb-mail-web', 'swb-mail-api']);
  });

  it('never throws at the source of an event: a failing writer is a log line', () => {
    const logs: string[] = [];
    const notifier = new Notifier({
      policy: resolveNotifyPolicy({}),
      clock: new FakeClock(),
      log: (l) => logs.push(l),
      writeTerminal: () => {
        throw new Error('client went away');
      },
    });
    expect(() => notifier.notify({ kind: 'mail', reason: 'to-operator', row: 'api', at: 0 })).not.toThrow();
    expect(logs).toEqual(['notify terminal: client went away']);
    notifier.dispose();
  });

  it('leaves no timer behind when disposed', () => {
    const t = setup({});
    t.notifier.notify(t.mail('api'));
    t.notifier.notify(t.mail('api'));
    // One held burst per channel.
    expect(t.clock.pendingTimers).toBe(2);
    t.notifier.dispose();
    expect(t.clock.pendingTimers).toBe(0);
    t.clock.advance(5000);
    expect(t.terminal).toHaveLength(1);
  });
});
