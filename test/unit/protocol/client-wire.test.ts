// The wire between a thin client and the workspace server (src/protocol/client-wire.ts): however the
// byte stream is cut into reads, the same frames come out; a frame the peer may not send, or one
// over the limit, is refused from its header alone (before its body is buffered); sizes and HELLOs
// from a peer are bounded, and a bad HELLO is refused with a sentence saying what is wrong.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  FRAME,
  parseClientTerminal,
  FROM_CLIENT,
  FROM_SERVER,
  FrameDecoder,
  FrameError,
  MAX_FRAME_BYTES,
  encodeFrame,
  encodeJsonFrame,
  parseSize,
  parseTerminalFrame,
  type FrameType,
} from '../../../src/protocol/client-wire.js';
import { parseHello } from '../../../src/server/client-connection.js';

/** Change the seed to explore; a failure report prints the seed and path that reproduce it. */
const SEED = 0xc1_1e_47;
const runs = (numRuns: number): fc.Parameters<unknown> => ({ seed: SEED, numRuns });

type Frame = { type: FrameType; payload: Buffer };

/** Splits `bytes` at the given offsets (taken modulo the length, sorted, deduplicated). */
function cut(bytes: Buffer, offsets: readonly number[]): Buffer[] {
  if (bytes.length === 0) return [];
  const points = [...new Set(offsets.map((o) => o % bytes.length))].filter((p) => p > 0).sort((a, b) => a - b);
  const pieces: Buffer[] = [];
  let start = 0;
  for (const p of points) {
    pieces.push(bytes.subarray(start, p));
    start = p;
  }
  pieces.push(bytes.subarray(start));
  return pieces;
}

/** Every frame the decoder yields, as [type, payload hex]; payloads copied (they may view a shared buffer). */
function decode(decoder: FrameDecoder, pieces: readonly Buffer[]): Array<[number, string]> {
  const out: Array<[number, string]> = [];
  for (const p of pieces) for (const f of decoder.push(p)) out.push([f.type, Buffer.from(f.payload).toString('hex')]);
  return out;
}

const shown = (frames: readonly Frame[]) => frames.map((f): [number, string] => [f.type, f.payload.toString('hex')]);

const clientFrame: fc.Arbitrary<Frame> = fc.record({
  type: fc.constantFrom<FrameType>(FRAME.HELLO, FRAME.INPUT, FRAME.RESIZE),
  payload: fc.oneof(fc.uint8Array({ maxLength: 64 }), fc.uint8Array({ minLength: 1000, maxLength: 5000 })).map((a) => Buffer.from(a)),
});

describe('FrameDecoder', () => {
  it('yields the same frames however the stream is cut into reads', () => {
    fc.assert(
      fc.property(fc.array(clientFrame, { maxLength: 12 }), fc.array(fc.nat(), { maxLength: 40 }), (frames, offsets) => {
        const stream = Buffer.concat(frames.map((f) => encodeFrame(f.type, f.payload)));
        expect(decode(new FrameDecoder(FROM_CLIENT), cut(stream, offsets))).toEqual(shown(frames));
      }),
      runs(300),
    );
  });

  it('yields the same frames fed one byte at a time', () => {
    fc.assert(
      fc.property(fc.array(clientFrame, { minLength: 1, maxLength: 4 }), (frames) => {
        const stream = Buffer.concat(frames.map((f) => encodeFrame(f.type, f.payload)));
        const bytes = [...stream].map((b) => Buffer.from([b]));
        expect(decode(new FrameDecoder(FROM_CLIENT), bytes)).toEqual(shown(frames));
      }),
      runs(30),
    );
  });

  it('keeps a frame that is not complete yet and finishes it with the next read', () => {
    const d = new FrameDecoder(FROM_SERVER);
    const frame = encodeJsonFrame(FRAME.BYE, { reason: 'stopped', message: 'bye' });
    expect(decode(d, [frame.subarray(0, 3)])).toEqual([]);
    expect(decode(d, [frame.subarray(3, frame.length - 1)])).toEqual([]);
    const [[type, hex]] = decode(d, [frame.subarray(frame.length - 1)]) as [[number, string]];
    expect(type).toBe(FRAME.BYE);
    expect(JSON.parse(Buffer.from(hex, 'hex').toString('utf8'))).toEqual({ reason: 'stopped', message: 'bye' });
  });

  it('an empty payload is a frame', () => {
    expect(decode(new FrameDecoder(FROM_CLIENT), [encodeFrame(FRAME.INPUT, Buffer.alloc(0))])).toEqual([[FRAME.INPUT, '']]);
  });

  it('encodes a type byte, a 4-byte big-endian length and the payload', () => {
    expect([...encodeFrame(FRAME.OUTPUT, 'hé')]).toEqual([17, 0, 0, 0, 3, 0x68, 0xc3, 0xa9]);
  });

  it('refuses a type the peer may not send, from the header alone', () => {
    // A server frame sent by a client (and the reverse) is as unknown as a made-up type.
    for (const [known, type] of [
      [FROM_CLIENT, FRAME.OUTPUT],
      [FROM_CLIENT, FRAME.WELCOME],
      [FROM_SERVER, FRAME.INPUT],
      [FROM_SERVER, FRAME.HELLO],
      [FROM_CLIENT, 0],
      [FROM_CLIENT, 255],
    ] as const) {
      const d = new FrameDecoder(known);
      const head = Buffer.from([type, 0, 0, 0, 10]);
      expect(() => decode(d, [head]), `type ${type}`).toThrow(FrameError);
      expect(() => decode(new FrameDecoder(known), [head]), `type ${type}`).toThrow(new RegExp(`unknown frame type ${type}`));
    }
  });

  it('refuses a frame after good ones in the same read, having yielded the good ones first', () => {
    const d = new FrameDecoder(FROM_CLIENT);
    const good = encodeFrame(FRAME.INPUT, 'ab');
    const seen: number[] = [];
    expect(() => {
      for (const f of d.push(Buffer.concat([good, Buffer.from([FRAME.BYE, 0, 0, 0, 0])]))) seen.push(f.type);
    }).toThrow(FrameError);
    expect(seen).toEqual([FRAME.INPUT]);
  });

  it('refuses a length over the limit as soon as the header is in, without waiting for the body', () => {
    const d = new FrameDecoder(FROM_CLIENT, 100);
    const head = Buffer.alloc(5);
    head.writeUInt8(FRAME.INPUT, 0);
    head.writeUInt32BE(101, 1);
    // Only the header (cut in two) has arrived: the decoder knows enough to refuse.
    expect(decode(d, [head.subarray(0, 2)])).toEqual([]);
    expect(() => decode(d, [head.subarray(2)])).toThrow(/a frame of 101 bytes is over the limit of 100/);
  });

  it('accepts a frame of exactly the limit', () => {
    const payload = Buffer.alloc(100, 7);
    expect(decode(new FrameDecoder(FROM_CLIENT, 100), [encodeFrame(FRAME.INPUT, payload)])).toEqual([[FRAME.INPUT, payload.toString('hex')]]);
  });

  it('the default limit refuses a 4 GiB length from its header', () => {
    const head = Buffer.from([FRAME.INPUT, 0xff, 0xff, 0xff, 0xff]);
    expect(() => decode(new FrameDecoder(FROM_CLIENT), [head])).toThrow(new RegExp(`over the limit of ${MAX_FRAME_BYTES}`));
    const justOver = Buffer.alloc(5);
    justOver.writeUInt8(FRAME.INPUT, 0);
    justOver.writeUInt32BE(MAX_FRAME_BYTES + 1, 1);
    expect(() => decode(new FrameDecoder(FROM_CLIENT), [justOver])).toThrow(FrameError);
  });
});

describe('parseSize', () => {
  it('takes whole numbers from 1 to 10000', () => {
    expect(parseSize({ cols: 80, rows: 24 })).toEqual({ cols: 80, rows: 24 });
    expect(parseSize({ cols: 1, rows: 1 })).toEqual({ cols: 1, rows: 1 });
    expect(parseSize({ cols: 10_000, rows: 10_000, extra: true })).toEqual({ cols: 10_000, rows: 10_000 });
  });

  it.each([
    ['zero cols', { cols: 0, rows: 24 }],
    ['negative rows', { cols: 80, rows: -1 }],
    ['over 10000', { cols: 10_001, rows: 24 }],
    ['a fraction', { cols: 80.5, rows: 24 }],
    ['a string', { cols: '80', rows: 24 }],
    ['NaN', { cols: Number.NaN, rows: 24 }],
    ['Infinity', { cols: Number.POSITIVE_INFINITY, rows: 24 }],
    ['no rows', { cols: 80 }],
    ['null', null],
    ['a number', 80],
    ['undefined', undefined],
  ])('refuses %s', (_what, value) => {
    expect(parseSize(value)).toBeNull();
  });
});

describe('parseHello', () => {
  const good = { wire: 1, version: '0.1.0', cols: 100, rows: 30, cwd: '/home/op/project', args: ['one=sleep 1', '--layout', 'grid'] };

  it('takes a well-formed HELLO, keeping only its known fields', () => {
    expect(parseHello({ ...good, extra: 'ignored' })).toEqual(good);
    expect(parseHello({ ...good, args: [] })).toEqual({ ...good, args: [] });
  });

  it('keeps the terminal names a client reports when they are short printable words, drops the rest, never refuses', () => {
    const terminal = { term: 'xterm-kitty', termProgram: 'iTerm.app', windowsTerminal: true, kittyWindow: true };
    expect(parseHello({ ...good, terminal })).toEqual({ ...good, terminal });
    const hostile = { term: 'xterm\x1b]9;pwned\x07', termProgram: 'W'.repeat(65), windowsTerminal: 'yes', kittyWindow: 1, extra: 'x' };
    expect(parseHello({ ...good, terminal: hostile })).toEqual(good);
    expect(parseHello({ ...good, terminal: { term: 'foot', termProgram: 'Wez Term' } })).toEqual({ ...good, terminal: { term: 'foot' } });
    expect(parseHello({ ...good, terminal: 'xterm' })).toEqual(good);
    expect(parseHello({ ...good, terminal: null })).toEqual(good);
    expect(parseClientTerminal({ term: 'a;b', termProgram: '' })).toEqual({});
  });

  it('keeps the bound of a terminal query the client runs beside attaching (TERMINAL follows)', () => {
    expect(parseHello({ ...good, terminalQueryMs: 1000 })).toEqual({ ...good, terminalQueryMs: 1000 });
    expect(parseHello({ ...good, terminalQueryMs: 60_000 })).toEqual({ ...good, terminalQueryMs: 60_000 });
  });

  it('takes exactly 256 args of 4096 bytes', () => {
    const args = Array.from({ length: 256 }, () => 'x'.repeat(4096));
    expect(parseHello({ ...good, args })).toEqual({ ...good, args });
  });

  it.each([
    ['not an object', 'hello', /not a JSON object/],
    ['null', null, /not a JSON object/],
    ['no wire', { ...good, wire: undefined }, /no wire number/],
    ['a fractional wire', { ...good, wire: 1.5 }, /no wire number/],
    ['no version', { ...good, version: undefined }, /no version/],
    ['a huge version', { ...good, version: 'v'.repeat(65) }, /no version/],
    ['no size', { ...good, cols: undefined }, /no terminal size/],
    ['a zero size', { ...good, rows: 0 }, /no terminal size/],
    ['no cwd', { ...good, cwd: undefined }, /no absolute cwd/],
    ['a relative cwd', { ...good, cwd: 'project' }, /no absolute cwd/],
    ['a dot-relative cwd', { ...good, cwd: './project' }, /no absolute cwd/],
    ['an empty cwd', { ...good, cwd: '' }, /no absolute cwd/],
    ['a NUL in cwd', { ...good, cwd: '/home/op\0/x' }, /no absolute cwd/],
    ['a cwd over 4096 characters', { ...good, cwd: `/${'d'.repeat(4096)}` }, /no absolute cwd/],
    ['no args', { ...good, args: undefined }, /args must be a list of at most 256 strings/],
    ['args that are a string', { ...good, args: 'one' }, /args must be a list/],
    ['257 args', { ...good, args: Array.from({ length: 257 }, () => 'a') }, /at most 256 strings/],
    ['a NUL in an arg', { ...good, args: ['ok', 'one=sleep\u00001'] }, /each HELLO arg must be a string of at most 4096 bytes/],
    ['a number among the args', { ...good, args: ['ok', 5] }, /each HELLO arg must be a string/],
    ['an arg over 4096 bytes', { ...good, args: ['é'.repeat(2049)] }, /at most 4096 bytes/],
    ['a query bound of 0 ms', { ...good, terminalQueryMs: 0 }, /terminalQueryMs must be a whole number of ms, 1-60000/],
    ['a query bound over a minute', { ...good, terminalQueryMs: 60_001 }, /terminalQueryMs/],
    ['a fractional query bound', { ...good, terminalQueryMs: 1.5 }, /terminalQueryMs/],
    ['a query bound that is a string', { ...good, terminalQueryMs: '500' }, /terminalQueryMs/],
  ])('refuses %s with a sentence', (_what, value, sentence) => {
    const r = parseHello(value);
    expect(typeof r).toBe('string');
    expect(r).toMatch(sentence);
    expect(r).toMatch(/^HELLO|^each HELLO/);
  });
});

describe('parseTerminalFrame', () => {
  it("keeps the terminal's name only as a short plain word, an object without one as no name, and refuses what is no object", () => {
    expect(parseTerminalFrame({ xtversion: 'kitty(0.35.2)' })).toEqual({ xtversion: 'kitty(0.35.2)' });
    expect(parseTerminalFrame({})).toEqual({});
    expect(parseTerminalFrame({ xtversion: 'evil\x1b]0;x\x07' })).toEqual({});
    expect(parseTerminalFrame({ xtversion: 'x'.repeat(65) })).toEqual({});
    expect(parseTerminalFrame({ xtversion: 7 })).toEqual({});
    for (const bad of [null, 'kitty', ['kitty'], 3, undefined]) expect(parseTerminalFrame(bad)).toMatch(/^TERMINAL is not a JSON object/);
  });

  it('is a frame only a client sends', () => {
    expect(FROM_CLIENT.has(FRAME.TERMINAL)).toBe(true);
    expect(FROM_SERVER.has(FRAME.TERMINAL)).toBe(false);
  });
});
