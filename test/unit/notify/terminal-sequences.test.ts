import { describe, expect, it } from 'vitest';
import { osc777Sequence, osc99Sequence, terminalNotificationBytes, terminalSafeLine } from '../../../src/notify/terminal-sequences.js';
import { NOTIFICATION_TEXT_MAX } from '../../../src/notify/notification-text.js';
import { TRUNCATION_MARKER_MAX } from '../../../src/text/sanitize.js';
import { HOSTILE_CASES } from '../../fixtures/hostile/corpus.js';

const notice = { id: 'swb-waiting-api', text: '@api waits for you: permission' };

describe('terminalNotificationBytes', () => {
  it('writes OSC 9 with the title in its one text, BEL-terminated', () => {
    expect(terminalNotificationBytes('osc9', notice)).toBe('\x1b]9;Switchboard: @api waits for you: permission\x07');
  });
  it('writes OSC 777 notify with a title and a body', () => {
    expect(terminalNotificationBytes('osc777', notice)).toBe('\x1b]777;notify;Switchboard;@api waits for you: permission\x07');
  });
  it("writes kitty's OSC 99 as a title and a body under one id, ST-terminated", () => {
    expect(terminalNotificationBytes('osc99', notice)).toBe(
      '\x1b]99;i=swb-waiting-api:d=0;Switchboard\x1b\\\x1b]99;i=swb-waiting-api:d=1:p=body;@api waits for you: permission\x1b\\',
    );
  });
  it('rings the bell and nothing else for "bell"', () => {
    expect(terminalNotificationBytes('bell', notice)).toBe('\x07');
  });

  it('carries every hostile text as one bounded line of its sequence: nothing ends it early or starts another', () => {
    for (const kind of ['osc9', 'osc777', 'osc99'] as const) {
      for (const c of HOSTILE_CASES) {
        const text = typeof c.input === 'string' ? c.input : new TextDecoder().decode(c.input);
        const bytes = terminalNotificationBytes(kind, { id: `x;${text}`, text });
        // Exactly the sequence's own introducers and terminators, and no other control byte.
        const stripped = bytes
          .replace(/^\x1b\]9;/, '')
          .replace(/^\x1b\]777;notify;Switchboard;/, '')
          .replace(/^\x1b\]99;i=[A-Za-z0-9_+.-]+:d=0;Switchboard\x1b\\\x1b\]99;i=[A-Za-z0-9_+.-]+:d=1:p=body;/, '')
          .replace(/(\x07|\x1b\\)$/, '');
        // eslint-disable-next-line no-control-regex
        expect(stripped, `${kind}: ${c.name}`).not.toMatch(/[\x00-\x1f\x7f-\x9f]/);
        expect(stripped.length, `${kind}: ${c.name}`).toBeLessThanOrEqual('Switchboard: '.length * 2 + NOTIFICATION_TEXT_MAX + TRUNCATION_MARKER_MAX);
        if (c.secret) expect(stripped, `${kind}: ${c.name}`).not.toContain(c.secret);
      }
    }
  });

  it('never starts an OSC 9 text with a digit (ConEmu reads "OSC 9;<n>" as a command)', () => {
    expect(terminalNotificationBytes('osc9', { id: 'x', text: '4;1;50' })).toBe('\x1b]9;Switchboard: 4;1;50\x07');
    expect(terminalSafeLine('9 rows waiting')).toBe('Switchboard: 9 rows waiting');
    expect(terminalSafeLine('\x1b[0m7 up')).toBe('Switchboard: 7 up');
  });
});

describe('the pieces', () => {
  it('keeps ";" out of an OSC 777 title, where it would end the title', () => {
    expect(osc777Sequence('a;b', 'c;d')).toBe('\x1b]777;notify;a,b;c;d\x07');
  });
  it("keeps an OSC 99 id to kitty's characters", () => {
    expect(osc99Sequence('swb-mail-a b;c:d', 'T', 'B')).toBe('\x1b]99;i=swb-mail-a_b_c_d:d=0;T\x1b\\\x1b]99;i=swb-mail-a_b_c_d:d=1:p=body;B\x1b\\');
  });
});
