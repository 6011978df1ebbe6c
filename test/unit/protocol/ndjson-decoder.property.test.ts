// Property-based tests of the NDJSON framing (docs/PROTOCOL.md "Framing"), with fast-check and a
// fixed seed so a failure reproduces: how a stream is cut into reads never changes the frames; a
// line of up to exactly the limit is accepted, with LF or CRLF (the CR is framing, not content);
// a multibyte character split across reads is reassembled; no input throws; and the bytes held
// for an unfinished line never exceed the limit.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NdjsonDecoder, type DecodedFrame } from '../../../src/protocol/ndjson-decoder.js';

/** Change the seed to explore; a failure report prints the seed and path that reproduce it. */
const SEED = 0x5b_0a_d0;
const runs = (numRuns: number): fc.Parameters<unknown> => ({ seed: SEED, numRuns });

/**
 * Feeds one read to the decoder and returns the frames it completed. The decoder's API is either
 * `push(chunk) → frames` or `feed(chunk)` then `next()` until undefined; both are driven the same.
 */
function pushChunk(decoder: NdjsonDecoder, chunk: Buffer): DecodedFrame[] {
  const d = decoder as unknown as {
    push?: (chunk: Buffer) => DecodedFrame[];
    feed?: (chunk: Buffer) => void;
    next?: () => DecodedFrame | undefined;
  };
  if (typeof d.push === 'function') return d.push.call(decoder, chunk);
  d.feed!.call(decoder, chunk);
  const out: DecodedFrame[] = [];
  for (let f = d.next!.call(decoder); f !== undefined; f = d.next!.call(decoder)) out.push(f);
  return out;
}

/** A frame as a comparable string: the line's text (long ones abridged, with a hash), or the error's code. */
function show(f: DecodedFrame): string {
  return f.kind === 'line' ? lineOf(f.text) : `error:${f.error.code}`;
}

function lineOf(text: string): string {
  if (text.length <= 80) return `line:${text}`;
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return `line(${Buffer.byteLength(text)} bytes, fnv ${h.toString(16)}):${text.slice(0, 30)}…${text.slice(-30)}`;
}

/** Splits `bytes` at the given offsets (any numbers; taken modulo the length, sorted, deduplicated). */
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

function decodeAll(limit: number, pieces: readonly Buffer[], afterEachPush?: (d: NdjsonDecoder) => void): string[] {
  const d = new NdjsonDecoder(limit);
  const out: string[] = [];
  for (const p of pieces) {
    out.push(...pushChunk(d, p).map(show));
    afterEachPush?.(d);
  }
  return out;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The reference framing, written from the protocol text alone, for a stream that ends in a newline:
 * split at LF; one CR before the LF is dropped; an empty line is a keep-alive; a line of more than
 * `limit` bytes (not counting LF or that CR) is FRAME_TOO_LARGE; bytes that are not UTF-8 are BAD_FRAME.
 */
function referenceFrames(stream: Buffer, limit: number): string[] {
  const out: string[] = [];
  let start = 0;
  for (let nl = stream.indexOf(0x0a, start); nl !== -1; nl = stream.indexOf(0x0a, start)) {
    let end = nl;
    if (end > start && stream[end - 1] === 0x0d) end -= 1;
    const line = stream.subarray(start, end);
    start = nl + 1;
    if (line.length > limit) out.push('error:FRAME_TOO_LARGE');
    else if (line.length === 0) continue;
    else {
      try {
        out.push(lineOf(utf8.decode(line)));
      } catch {
        out.push('error:BAD_FRAME');
      }
    }
  }
  return out;
}

/** Byte streams rich in what framing cares about: LF, CR, multibyte UTF-8, invalid bytes, long runs. */
const streamPiece: fc.Arbitrary<Buffer> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('a', '{', '"', ' ', 'é', '漢', '🎉', '\u2028').map((s) => Buffer.from(s)) },
  { weight: 2, arbitrary: fc.constantFrom('\n', '\r\n', '\r', '\n\n').map((s) => Buffer.from(s)) },
  { weight: 1, arbitrary: fc.uint8Array({ minLength: 1, maxLength: 4 }).map((a) => Buffer.from(a)) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 90 }).map((n) => Buffer.alloc(n, 'x')) },
);
const byteStream = fc.array(streamPiece, { maxLength: 60 }).map((pieces) => Buffer.concat(pieces));
const cutOffsets = fc.array(fc.nat(), { maxLength: 30 });
const smallLimit = fc.integer({ min: 1, max: 64 });

/** Valid UTF-8 (no LF) of exactly `bytes` bytes: code points from `text`, padded with ASCII. */
function exactUtf8(text: string, bytes: number, pad = 'a'): Buffer {
  const parts: Buffer[] = [];
  let used = 0;
  for (const ch of text) {
    if (ch === '\n' || ch === '\r') continue;
    const b = Buffer.from(ch);
    if (used + b.length > bytes) break;
    parts.push(b);
    used += b.length;
  }
  parts.push(Buffer.alloc(bytes - used, pad));
  return Buffer.concat(parts);
}

describe('NdjsonDecoder properties', () => {
  it('any cutting of a byte stream into reads yields the same frames as the whole stream in one read', () => {
    fc.assert(
      fc.property(byteStream, cutOffsets, smallLimit, (stream, offsets, limit) => {
        const whole = decodeAll(limit, [stream]);
        expect(decodeAll(limit, cut(stream, offsets))).toEqual(whole);
        // The extreme cutting: one byte per read.
        expect(decodeAll(limit, [...stream].map((b) => Buffer.from([b])))).toEqual(whole);
      }),
      runs(400),
    );
  });

  it('a stream ending in a newline decodes to what the protocol text says, however it is cut', () => {
    fc.assert(
      fc.property(byteStream, cutOffsets, smallLimit, (body, offsets, limit) => {
        const stream = Buffer.concat([body, Buffer.from('\n')]);
        expect(decodeAll(limit, cut(stream, offsets))).toEqual(referenceFrames(stream, limit));
      }),
      runs(400),
    );
  });

  it('a line of up to exactly the limit is accepted with LF and with CRLF; one byte more is FRAME_TOO_LARGE', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 4096 }).chain((limit) =>
          fc.tuple(fc.constant(limit), fc.oneof(fc.constant(limit), fc.integer({ min: 0, max: limit }))),
        ),
        fc.string({ unit: 'grapheme', maxLength: 200 }),
        cutOffsets,
        ([limit, size], text, offsets) => {
          const content = exactUtf8(text, size);
          const expected = size === 0 ? [] : [lineOf(content.toString('utf8'))];
          for (const ending of ['\n', '\r\n']) {
            const frame = Buffer.concat([content, Buffer.from(ending)]);
            expect(decodeAll(limit, [frame]), `${size} of ${limit} bytes + ${JSON.stringify(ending)}`).toEqual(expected);
            expect(decodeAll(limit, cut(frame, offsets)), `${size} of ${limit} bytes + ${JSON.stringify(ending)}, cut`).toEqual(expected);
          }
          const over = Buffer.concat([exactUtf8(text, limit), Buffer.from('z'), Buffer.from('\r\n')]);
          expect(decodeAll(limit, cut(over, offsets))).toEqual(['error:FRAME_TOO_LARGE']);
        },
      ),
      runs(300),
    );
  });

  it('at the default limit, a 65,536-byte frame followed by CRLF is accepted, and the next frame too', () => {
    const limit = 64 * 1024;
    const body = `{"jsonrpc":"2.0","id":1,"method":"peers.list","params":{"pad":"`;
    const tail = `"}}`;
    const frame = body + 'p'.repeat(limit - body.length - tail.length) + tail;
    expect(Buffer.byteLength(frame)).toBe(limit);
    for (const ending of ['\n', '\r\n']) {
      const frames = decodeAll(limit, [Buffer.from(`${frame}${ending}{"next":true}${ending}`)]);
      expect(frames, `65,536 bytes + ${JSON.stringify(ending)}`).toEqual([lineOf(frame), 'line:{"next":true}']);
    }
  });

  it('a multibyte character split across reads is reassembled', () => {
    const texts = fc.array(fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }), { minLength: 1, maxLength: 8 });
    fc.assert(
      fc.property(texts, fc.array(fc.nat(), { minLength: 1, maxLength: 20 }), (strings, picks) => {
        // JSON.stringify escapes newlines and lone surrogates, so every line is exact UTF-8.
        const lines = strings.map((s, i) => JSON.stringify({ s, i }));
        const stream = Buffer.from(lines.map((l) => `${l}\n`).join(''));
        // Cut right before continuation bytes (10xxxxxx): inside a character.
        const inside = [...stream.keys()].filter((i) => (stream[i]! & 0xc0) === 0x80);
        fc.pre(inside.length > 0);
        const offsets = picks.map((p) => inside[p % inside.length]!);
        expect(decodeAll(4096, cut(stream, offsets))).toEqual(lines.map(lineOf));
      }),
      runs(300),
    );
  });

  it('bytes handed over are not read again later: the caller may reuse its buffer after a read', () => {
    fc.assert(
      fc.property(byteStream, cutOffsets, smallLimit, (body, offsets, limit) => {
        const stream = Buffer.concat([body, Buffer.from('\n')]);
        const d = new NdjsonDecoder(limit);
        const got: string[] = [];
        for (const piece of cut(stream, offsets)) {
          const reused = Buffer.from(piece);
          got.push(...pushChunk(d, reused).map(show));
          reused.fill(0x21); // the socket layer may hand the same memory over again
        }
        expect(got).toEqual(referenceFrames(stream, limit));
      }),
      runs(200),
    );
  });

  it('no input makes it throw; lines fit the limit; errors are FRAME_TOO_LARGE or BAD_FRAME; buffered never exceeds the limit', () => {
    const reads = fc.array(
      fc.oneof(
        fc.uint8Array({ maxLength: 300 }).map((a) => Buffer.from(a)),
        fc.integer({ min: 0, max: 5000 }).map((n) => Buffer.alloc(n, 'q')),
        byteStream,
      ),
      { maxLength: 20 },
    );
    fc.assert(
      fc.property(reads, fc.integer({ min: 1, max: 512 }), (chunks, limit) => {
        const d = new NdjsonDecoder(limit);
        for (const chunk of chunks) {
          let frames: DecodedFrame[] = [];
          expect(() => {
            frames = pushChunk(d, chunk);
          }).not.toThrow();
          for (const f of frames) {
            if (f.kind === 'line') {
              expect(Buffer.byteLength(f.text)).toBeLessThanOrEqual(limit);
              expect(f.text.length).toBeGreaterThan(0);
            } else {
              expect(['FRAME_TOO_LARGE', 'BAD_FRAME']).toContain(f.error.code);
            }
          }
          expect(d.buffered).toBeLessThanOrEqual(limit);
        }
      }),
      runs(300),
    );
  });

  it('an endless line at the default limit holds at most the limit, read after read', () => {
    const limit = 64 * 1024;
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 70_000 }), { minLength: 1, maxLength: 40 }), fc.boolean(), (sizes, endsInCr) => {
        const d = new NdjsonDecoder(limit);
        let errors = 0;
        for (const n of sizes) {
          const chunk = Buffer.alloc(n, 'e');
          if (endsInCr) chunk[n - 1] = 0x0d;
          errors += pushChunk(d, chunk).filter((f) => f.kind === 'error').length;
          expect(d.buffered).toBeLessThanOrEqual(limit);
        }
        expect(errors).toBeLessThanOrEqual(1); // answered once, however long it goes on
      }),
      runs(100),
    );
  });
});
