import { describe, expect, it } from 'vitest';
import { createRinger, ringSequence } from '../../../src/app/notification-ring.js';

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
