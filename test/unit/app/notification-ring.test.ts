import { describe, expect, it } from 'vitest';
import { createRinger, ringSequence } from '../../../src/app/notification-ring.js';
import { TRUNCATION_MARKER_MAX } from '../../../src/text/sanitize.js';
import { HOSTILE_CASES } from '../../fixtures/hostile/corpus.js';

// eslint-disable-next-line no-control-regex
const RING = /^\x1b\]9;([^\x07]*)\x07\x1b\]777;notify;Switchboard;([^\x07]*)\x07\x07$/;

describe('ringSequence', () => {
  it('writes BEL for the bell and OSC 9 + OSC 777 for the desktop', () => {
    expect(ringSequence({ bell: true }, 'x')).toBe('\x07');
    expect(ringSequence({ desktop: true }, '@bot → @operator hi')).toBe(
      '\x1b]9;Switchboard: @bot → @operator hi\x07\x1b]777;notify;Switchboard;Switchboard: @bot → @operator hi\x07',
    );
    expect(ringSequence({}, 'x')).toBe('');
  });

  it('keeps escapes and control characters out of the notification body', () => {
    const s = ringSequence({ desktop: true }, 'evil\x07\x1b]0;title\x1b\\\nline');
    const bodies = s.split('\x07').filter(Boolean);
    expect(bodies).toHaveLength(2);
    // eslint-disable-next-line no-control-regex
    for (const b of bodies) expect(b.replace(/^\x1b\](9|777;notify;Switchboard);/, '')).not.toMatch(/[\x00-\x1f\x7f-\x9f]/);
  });
  it('carries every hostile case as one bounded line: no control bytes, no payload, never a leading digit', () => {
    for (const c of HOSTILE_CASES) {
      const text = typeof c.input === 'string' ? c.input : new TextDecoder().decode(c.input);
      const m = RING.exec(ringSequence({ desktop: true, bell: true }, text));
      expect(m, c.name).not.toBeNull();
      expect(m![1], c.name).toBe(m![2]);
      const body = m![1]!;
      // eslint-disable-next-line no-control-regex
      expect(body, c.name).not.toMatch(/[\x00-\x1f\x7f-\x9f]/);
      expect(body.startsWith('Switchboard: '), c.name).toBe(true);
      expect(body.length, c.name).toBeLessThanOrEqual('Switchboard: '.length + 200 + TRUNCATION_MARKER_MAX);
      if (c.secret) expect(body, c.name).not.toContain(c.secret);
    }
  });
});

describe('createRinger', () => {
  it('is absent unless something is configured', () => {
    expect(createRinger(undefined, () => undefined)).toBeUndefined();
    expect(createRinger({ bell: false, desktop: false }, () => undefined)).toBeUndefined();
  });

  it('rings a burst once, then the newest text after the interval', () => {
    let clock = 0;
    const timers: Array<{ fn: () => void; at: number }> = [];
    const written: string[] = [];
    const ring = createRinger({ desktop: true }, (s) => written.push(s), {
      minIntervalMs: 1000,
      now: () => clock,
      setTimer: (fn, ms) => timers.push({ fn, at: clock + ms }),
    })!;
    ring('one');
    ring('two');
    ring('three');
    expect(written).toHaveLength(1);
    expect(written[0]).toContain('one');
    expect(timers).toHaveLength(1);
    clock = timers[0]!.at;
    timers[0]!.fn();
    expect(written).toHaveLength(2);
    expect(written[1]).toContain('three');
    clock += 5000;
    ring('four');
    expect(written).toHaveLength(3);
  });
});
