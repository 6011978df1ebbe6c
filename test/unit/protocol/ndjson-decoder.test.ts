import { describe, expect, it } from 'vitest';
import { NdjsonDecoder, encodeFrame, type DecodedFrame } from '../../../src/protocol/ndjson-decoder.js';
import { classifyLine } from '../../../src/protocol/rpc.js';
import { seededRandom } from '../../helpers/seeded-random.js';

function feedInPieces(decoder: NdjsonDecoder, bytes: Buffer, rand: () => number): DecodedFrame[] {
  const out: DecodedFrame[] = [];
  let i = 0;
  while (i < bytes.length) {
    const n = 1 + Math.floor(rand() * 40);
    out.push(...decoder.push(bytes.subarray(i, i + n)));
    i += n;
  }
  return out;
}

describe('NdjsonDecoder', () => {
  it('reassembles a frame split byte by byte, including inside multibyte characters', () => {
    const text = JSON.stringify({ t: 'héllo 漢字 🎉 ok' });
    const bytes = Buffer.from(`${text}\n`);
    const d = new NdjsonDecoder(1024);
    const frames: DecodedFrame[] = [];
    for (const b of bytes) frames.push(...d.push(Buffer.from([b])));
    expect(frames).toEqual([{ kind: 'line', text }]);
  });

  it('splits coalesced frames and tolerates CRLF and blank keep-alive lines', () => {
    const d = new NdjsonDecoder(1024);
    expect(d.push(Buffer.from('{"a":1}\n\n{"b":2}\r\n{"c"'))).toEqual([
      { kind: 'line', text: '{"a":1}' },
      { kind: 'line', text: '{"b":2}' },
    ]);
    expect(d.push(Buffer.from(':3}\n'))).toEqual([{ kind: 'line', text: '{"c":3}' }]);
  });

  it('answers an oversized line once with FRAME_TOO_LARGE and resynchronises at the next newline', () => {
    const d = new NdjsonDecoder(100);
    const frames = [...d.push(Buffer.alloc(60, 'x')), ...d.push(Buffer.alloc(60, 'x')), ...d.push(Buffer.alloc(5000, 'y'))];
    expect(frames.map((f) => (f.kind === 'error' ? f.error.code : f.text))).toEqual(['FRAME_TOO_LARGE']);
    expect(d.buffered).toBe(0);
    expect(d.push(Buffer.from('zzz\n{"ok":true}\n'))).toEqual([{ kind: 'line', text: '{"ok":true}' }]);
  });

  it('never holds more than the frame limit while a line is endless', () => {
    const d = new NdjsonDecoder(1000);
    for (let i = 0; i < 1000; i++) d.push(Buffer.alloc(999, 'a'));
    expect(d.buffered).toBeLessThanOrEqual(1000);
  });

  it('accepts a line of exactly the limit and rejects one byte more', () => {
    const d = new NdjsonDecoder(10);
    expect(d.push(Buffer.from('0123456789\n'))).toEqual([{ kind: 'line', text: '0123456789' }]);
    expect(d.push(Buffer.from('0123456789A\n'))[0]).toMatchObject({ kind: 'error', error: { code: 'FRAME_TOO_LARGE' } });
  });

  it('reports invalid UTF-8 as BAD_FRAME', () => {
    const d = new NdjsonDecoder(100);
    expect(d.push(Buffer.from([0x7b, 0xff, 0xfe, 0x7d, 0x0a]))[0]).toMatchObject({ kind: 'error', error: { code: 'BAD_FRAME' } });
  });

  it('fuzz: random frames cut at random points decode to exactly the frames sent', () => {
    const rand = seededRandom(42);
    const alphabet = ['a', 'é', '漢', '🎉', '"', '\\', ' ', '\u2028', 'z'];
    for (let round = 0; round < 300; round++) {
      const sent: string[] = [];
      for (let i = 0; i < 1 + Math.floor(rand() * 10); i++) {
        let s = '';
        for (let j = 0; j < Math.floor(rand() * 50); j++) s += alphabet[Math.floor(rand() * alphabet.length)];
        sent.push(encodeFrame({ s, i }).slice(0, -1));
      }
      const d = new NdjsonDecoder(4096);
      const frames = feedInPieces(d, Buffer.from(sent.map((s) => `${s}\n`).join('')), rand);
      expect(frames).toEqual(sent.map((text) => ({ kind: 'line', text })));
    }
  });

  it('fuzz: random bytes, truncations and oversize never throw and stay bounded', () => {
    const rand = seededRandom(7);
    for (let round = 0; round < 500; round++) {
      const d = new NdjsonDecoder(256);
      const len = Math.floor(rand() * 3000);
      const bytes = Buffer.alloc(len);
      for (let i = 0; i < len; i++) bytes[i] = rand() < 0.05 ? 0x0a : Math.floor(rand() * 256);
      for (const f of feedInPieces(d, bytes, rand)) {
        if (f.kind === 'line') {
          expect(Buffer.byteLength(f.text)).toBeLessThanOrEqual(256);
          // Classification of arbitrary text never throws either.
          expect(['request', 'notification', 'response', 'intercom', 'invalid']).toContain(classifyLine(f.text).kind);
        } else {
          expect(['FRAME_TOO_LARGE', 'BAD_FRAME']).toContain(f.error.code);
        }
      }
      expect(d.buffered).toBeLessThanOrEqual(256);
    }
  });
});

describe('classifyLine', () => {
  it('sorts frames into requests, notifications, responses, intercom envelopes and typed errors', () => {
    expect(classifyLine('{"jsonrpc":"2.0","id":1,"method":"hello","params":{}}').kind).toBe('request');
    expect(classifyLine('{"jsonrpc":"2.0","method":"x"}').kind).toBe('notification');
    expect(classifyLine('{"jsonrpc":"2.0","id":1,"result":{}}').kind).toBe('response');
    expect(classifyLine('{"type":"register","from_session":"a"}').kind).toBe('intercom');
    expect(classifyLine('[1,2]')).toMatchObject({ kind: 'invalid', error: { code: 'BAD_FRAME' } });
    expect(classifyLine('nope')).toMatchObject({ kind: 'invalid', error: { code: 'BAD_FRAME' } });
    expect(classifyLine('{"jsonrpc":"2.0","id":3,"method":"x","params":5}')).toMatchObject({ kind: 'invalid', id: 3, error: { code: 'BAD_REQUEST' } });
    expect(classifyLine('{"jsonrpc":"1.0","id":3,"method":"x"}')).toMatchObject({ kind: 'invalid', id: 3 });
  });
});

describe('NdjsonDecoder: CRLF and pull decoding', () => {
  it('accepts a frame of exactly the limit ending in CRLF, even when the CR and LF arrive apart', () => {
    const d = new NdjsonDecoder(10);
    expect(d.push(Buffer.from('0123456789\r\n'))).toEqual([{ kind: 'line', text: '0123456789' }]);
    expect(d.push(Buffer.from('0123456789\r'))).toEqual([]);
    expect(d.buffered).toBeLessThanOrEqual(10);
    expect(d.push(Buffer.from('\n'))).toEqual([{ kind: 'line', text: '0123456789' }]);
  });

  it('counts a CR that turned out to be content', () => {
    const d = new NdjsonDecoder(10);
    expect(d.push(Buffer.from('012345678\r'))).toEqual([]);
    expect(d.push(Buffer.from('x\n'))[0]).toMatchObject({ kind: 'error', error: { code: 'FRAME_TOO_LARGE' } });
    expect(d.push(Buffer.from('0123\r'))).toEqual([]);
    expect(d.push(Buffer.from('x\n'))).toEqual([{ kind: 'line', text: '0123\rx' }]);
  });

  it('decodes one frame per next() and keeps the rest of a chunk undecoded', () => {
    const d = new NdjsonDecoder(100);
    d.feed(Buffer.from('{"a":1}\n{"b":2}\n{"c"'));
    expect(d.next()).toEqual({ kind: 'line', text: '{"a":1}' });
    expect(d.undecoded).toBe(Buffer.byteLength('{"b":2}\n{"c"'));
    expect(d.next()).toEqual({ kind: 'line', text: '{"b":2}' });
    expect(d.next()).toBeUndefined();
    d.feed(Buffer.from(':3}\n'));
    expect(d.next()).toEqual({ kind: 'line', text: '{"c":3}' });
    expect(d.undecoded).toBe(0);
  });
});
