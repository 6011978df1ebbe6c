import { describe, expect, it } from 'vitest';
import type { NotifyEvent } from '../../../src/notify/notify-event.js';
import { notificationPayload } from '../../../src/notify/notification-payload.js';
import { firstLineOf, notificationText } from '../../../src/notify/notification-text.js';
import { HOSTILE_CASES } from '../../fixtures/hostile/corpus.js';

const at = Date.UTC(2026, 11, 5, 9, 0, 0);
const secret = 'the deploy key is hunter2';
const events: NotifyEvent[] = [
  { kind: 'waiting', reason: 'permission', row: 'api', at, body: secret },
  { kind: 'waiting', reason: 'question', row: 'api', at, body: secret },
  { kind: 'waiting', reason: 'idle-prompt', row: 'api', at },
  { kind: 'turn-ended', reason: 'idle', row: 'api', at, body: secret },
  { kind: 'mail', reason: 'to-operator', row: 'api', at, body: secret },
  { kind: 'row-exited', reason: 'non-zero', exitCode: 3, row: 'api', at, body: secret },
  { kind: 'wake-held', reason: 'loop-guard', row: 'api', at },
  { kind: 'wake-held', reason: 'reply-budget', row: 'api', at },
];

describe('notificationText', () => {
  it('names the row, the event and the reason', () => {
    expect(events.map((e) => notificationText(e, { body: 'none' }))).toEqual([
      '@api waits for you: permission',
      '@api asks you a question',
      '@api waits for you: idle prompt',
      '@api finished its turn (idle)',
      '@api sent you mail',
      '@api exited with status 3',
      "@api's wake was held: loop guard",
      "@api's wake was held: reply budget spent",
    ]);
  });

  it('never carries the body by default, in the text or the JSON a command gets', () => {
    for (const e of events) {
      expect(notificationText(e, { body: 'none' })).not.toContain('hunter2');
      expect(JSON.stringify(notificationPayload(e, { body: 'none' }))).not.toContain('hunter2');
    }
  });

  it('adds the first line of the body with body "first-line", sanitized', () => {
    const mail: NotifyEvent = { kind: 'mail', reason: 'to-operator', row: 'api', at, body: '\n  Ready for review\x1b]0;pwned\x07 now\nsecond line hunter2' };
    expect(notificationText(mail, { body: 'first-line' })).toBe('@api sent you mail: Ready for review now');
    expect(notificationPayload(mail, { body: 'first-line' }).body).toBe('Ready for review now');
    expect(JSON.stringify(notificationPayload(mail, { body: 'first-line' }))).not.toContain('hunter2');
  });

  it('says how many events a coalesced notification stands for', () => {
    expect(notificationText(events[4]!, { body: 'none', count: 3 })).toBe('@api sent you mail (and 2 more)');
    expect(notificationPayload(events[4]!, { body: 'none', count: 3 })).toMatchObject({ count: 3, text: '@api sent you mail (and 2 more)' });
  });

  it('keeps every hostile body and row name to one line without control characters', () => {
    for (const c of HOSTILE_CASES) {
      const text = typeof c.input === 'string' ? c.input : new TextDecoder().decode(c.input);
      const e: NotifyEvent = { kind: 'mail', reason: 'to-operator', row: text, at, body: text };
      for (const out of [notificationText(e, { body: 'first-line' }), firstLineOf(text), notificationPayload(e, { body: 'first-line' }).row]) {
        // eslint-disable-next-line no-control-regex
        expect(out, c.name).not.toMatch(/[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/);
        if (c.secret) expect(out, c.name).not.toContain(c.secret);
      }
    }
  });
});

describe('notificationPayload', () => {
  it('is the event as data: kind, row, reason, time, count, title and text (and the exit status)', () => {
    expect(notificationPayload(events[5]!, { body: 'none' })).toEqual({
      version: 1,
      kind: 'row-exited',
      row: 'api',
      reason: 'non-zero',
      at: '2026-12-05T09:00:00.000Z',
      count: 1,
      title: 'Switchboard',
      text: '@api exited with status 3',
      exitCode: 3,
    });
  });
});
