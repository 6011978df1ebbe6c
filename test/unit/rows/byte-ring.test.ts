import { describe, expect, test } from 'vitest';
import { ByteRing } from '../../../src/rows/byte-ring.js';

const b = (s: string) => Buffer.from(s, 'latin1');

describe('ByteRing', () => {
  test('keeps everything while under capacity', () => {
    const ring = new ByteRing(10);
    ring.write(b('abc'));
    ring.write(b('def'));
    expect(ring.toBuffer().toString('latin1')).toBe('abcdef');
    expect(ring.size).toBe(6);
    expect(ring.totalWritten).toBe(6);
  });

  test('keeps only the last capacity bytes, across wrap-around', () => {
    const ring = new ByteRing(8);
    let all = '';
    for (let i = 0; i < 50; i++) {
      const chunk = String.fromCharCode(97 + (i % 26)).repeat((i % 5) + 1);
      all += chunk;
      ring.write(b(chunk));
      expect(ring.toBuffer().toString('latin1')).toBe(all.slice(-8));
    }
    expect(ring.totalWritten).toBe(all.length);
  });

  test('a chunk larger than the capacity keeps its tail', () => {
    const ring = new ByteRing(4);
    ring.write(b('xy'));
    ring.write(b('0123456789'));
    expect(ring.toBuffer().toString('latin1')).toBe('6789');
  });

  test('grows its buffer lazily up to the capacity', () => {
    const ring = new ByteRing(1024 * 1024);
    const chunk = Buffer.alloc(100_000, 1);
    for (let i = 0; i < 15; i++) ring.write(chunk);
    expect(ring.size).toBe(1024 * 1024);
    ring.clear();
    expect(ring.size).toBe(0);
  });
});
