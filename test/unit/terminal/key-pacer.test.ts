import { afterEach, describe, expect, it } from 'vitest';
import { joinTextRuns, KeyPacer, splitKeys, type PaceMode } from '../../../src/terminal/key-pacer.js';
import { Emitter } from '../../../src/util/event.js';
import { FakeClock } from '../../helpers/fake-clock.js';

const pacers: KeyPacer[] = [];
afterEach(() => {
  for (const p of pacers.splice(0)) p.dispose();
});

describe('splitKeys', () => {
  it('splits a burst into keys, keeping escape sequences, Alt+key and pastes whole', () => {
    expect(splitKeys('zg?')).toEqual(['z', 'g', '?']);
    expect(splitKeys('\x1b[A\x1b[1;5Cj')).toEqual(['\x1b[A', '\x1b[1;5C', 'j']);
    expect(splitKeys('\x1bOPx\x1bq\x1b')).toEqual(['\x1bOP', 'x', '\x1bq', '\x1b']);
    expect(splitKeys('a\x1b[200~pasted\ntext\x1b[201~b')).toEqual(['a', '\x1b[200~pasted\ntext\x1b[201~', 'b']);
    expect(splitKeys('é🎉')).toEqual(['é', '🎉']);
  });
});

describe('KeyPacer', () => {
  function setup(pace: () => PaceMode = () => 'keys') {
    const delivered: string[] = [];
    const frames = new Emitter<void>();
    const pacer = new KeyPacer((t) => delivered.push(t), pace, frames.event, 1000);
    pacers.push(pacer);
    return { delivered, frames, pacer };
  }
  /** Enough event-loop turns for the pacer's settle after a frame (two check phases). */
  const turn = async () => {
    for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
  };

  it('passes a single key straight through', () => {
    const { delivered, pacer } = setup();
    pacer.push('q');
    expect(delivered).toEqual(['q']);
  });

  it('hands a burst over one key per frame, in order, including keys that arrive meanwhile', async () => {
    const { delivered, frames, pacer } = setup();
    pacer.push('zg');
    expect(delivered).toEqual(['z']);
    pacer.push('?');
    frames.fire();
    await turn();
    expect(delivered).toEqual(['z', 'g']);
    frames.fire();
    await turn();
    expect(delivered).toEqual(['z', 'g', '?']);
  });

  it('gives the rest of a burst in one piece once text is being typed', async () => {
    let composing = false;
    const { delivered, frames, pacer } = setup(() => (composing ? 'burst' : 'keys'));
    pacer.push('chello');
    expect(delivered).toEqual(['c']);
    composing = true; // "c" opened the composer
    frames.fire();
    await turn();
    expect(delivered).toEqual(['c', 'hello']);
  });

  it('in a form, hands text runs over whole and every other key on its own', async () => {
    const { delivered, frames, pacer } = setup(() => 'text');
    pacer.push('nosuch --x\tab\r');
    expect(delivered).toEqual(['nosuch --x']);
    for (const _ of [1, 2, 3]) {
      frames.fire();
      await turn();
    }
    expect(delivered).toEqual(['nosuch --x', '\t', 'ab', '\r']);
    expect(joinTextRuns(['a', 'b', '\x1b[A', 'c'])).toEqual(['ab', '\x1b[A', 'c']);
  });

  it('holds a key that comes in a read of its own until the one before has been drawn', async () => {
    const { delivered, frames, pacer } = setup(() => 'text');
    pacer.push('\t');
    pacer.push('top'); // typed a moment later, before Ink drew the Tab's frame
    expect(delivered).toEqual(['\t']);
    frames.fire();
    await turn();
    expect(delivered).toEqual(['\t', 'top']);
    frames.fire();
    await turn();
    pacer.push('x'); // nothing pending any more: straight through
    expect(delivered).toEqual(['\t', 'top', 'x']);
  });

  it('lets the effects of the commit that drew the frame run before the next key (React subscribes inputs in effects)', async () => {
    // Like Ink + React: a key is read on a later tick, handled, and the commit draws the frame and
    // only then queues its effects — where a text field that lost the focus stops listening.
    let listening = 'what';
    const fields: Record<string, string> = { what: '', cwd: '' };
    const frames = new Emitter<void>();
    const pacer = new KeyPacer(
      (key) =>
        process.nextTick(() => {
          if (key !== '\t') fields[listening] += key;
          frames.fire(); // the commit draws the frame ...
          if (key === '\t') setImmediate(() => (listening = 'cwd')); // ... then queues its effects
        }),
      () => 'text',
      frames.event,
      1000,
    );
    pacers.push(pacer);
    pacer.push('delta\ttop');
    for (let i = 0; i < 4; i++) await turn();
    expect(fields).toEqual({ what: 'delta', cwd: 'top' });
  });

  it('a held key that draws nothing (repeats past the last row) never piles up: each repeat goes at once', async () => {
    const clock = new FakeClock();
    const delivered: string[] = [];
    const pacer = new KeyPacer((t) => delivered.push(t), () => 'keys', new Emitter<void>().event, undefined, clock);
    pacers.push(pacer);
    for (let i = 1; i <= 5; i++) {
      pacer.push('j');
      expect(delivered).toHaveLength(i); // delivered when it came
      clock.advance(33); // a terminal's key repeat: ~30 a second
      await turn();
    }
  });

  it('moves on after the deadline when a key changes nothing on screen', async () => {
    const clock = new FakeClock();
    const delivered: string[] = [];
    const pacer = new KeyPacer((t) => delivered.push(t), () => 'keys', new Emitter<void>().event, 10, clock);
    pacers.push(pacer);
    pacer.push('xy');
    clock.advance(9);
    await turn();
    expect(delivered).toEqual(['x']); // held until the deadline
    clock.advance(1);
    await turn();
    expect(delivered).toEqual(['x', 'y']);
  });
});
