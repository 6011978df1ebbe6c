import { describe, expect, it } from 'vitest';
import { Emitter } from '../../../src/util/event.js';

describe('Emitter', () => {
  it('calls its listeners in the order they came, until each is disposed', () => {
    const e = new Emitter<number>();
    const seen: string[] = [];
    const a = e.event((v) => seen.push(`a${v}`));
    e.event((v) => seen.push(`b${v}`));
    e.fire(1);
    a.dispose();
    a.dispose();
    e.fire(2);
    expect(seen).toEqual(['a1', 'b1', 'b2']);
    expect(e.size).toBe(1);
  });

  it('a listener added or removed during a fire takes effect from the next fire', () => {
    const e = new Emitter<number>();
    const seen: string[] = [];
    let late: { dispose(): void } | undefined;
    e.event((v) => {
      seen.push(`first${v}`);
      if (v === 1) late = e.event((w) => seen.push(`late${w}`));
      if (v === 2) removed.dispose();
    });
    const removed = e.event((v) => seen.push(`second${v}`));
    e.fire(1);
    e.fire(2);
    e.fire(3);
    late?.dispose();
    e.fire(4);
    expect(seen).toEqual(['first1', 'second1', 'first2', 'second2', 'late2', 'first3', 'late3', 'first4']);
  });

  it('dispose drops every listener', () => {
    const e = new Emitter<void>();
    let n = 0;
    e.event(() => n++);
    e.fire();
    e.dispose();
    e.fire();
    expect(n).toBe(1);
    expect(e.size).toBe(0);
  });
});
