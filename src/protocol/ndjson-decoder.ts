// Bounded NDJSON framing. Works on raw bytes so a multibyte character split across reads is
// reassembled before decoding, and checks a line's length *before* any parse: an endless line
// costs at most `maxFrameBytes` of memory, is answered once with FRAME_TOO_LARGE and skipped.
import { swbError, type SwbErrorValue } from './error-codes.js';

export type DecodedFrame = { kind: 'line'; text: string } | { kind: 'error'; error: SwbErrorValue };

const NEWLINE = 0x0a;
const utf8 = new TextDecoder('utf-8', { fatal: true });

export class NdjsonDecoder {
  private parts: Buffer[] = [];
  private pendingBytes = 0;
  /** True while skipping the rest of an oversized line up to its newline. */
  private discarding = false;

  constructor(private readonly maxFrameBytes: number) {}

  /** Feeds one chunk; returns the complete frames (and framing errors) it finished, in order. */
  push(chunk: Buffer): DecodedFrame[] {
    const out: DecodedFrame[] = [];
    let start = 0;
    while (start < chunk.length) {
      const nl = chunk.indexOf(NEWLINE, start);
      const end = nl === -1 ? chunk.length : nl;
      const pieceLength = end - start;
      if (this.discarding) {
        if (nl !== -1) this.discarding = false;
      } else if (this.pendingBytes + pieceLength > this.maxFrameBytes) {
        out.push({
          kind: 'error',
          error: swbError('FRAME_TOO_LARGE', `A frame was longer than the limit of ${this.maxFrameBytes} bytes and was skipped.`, {
            limit: this.maxFrameBytes,
          }),
        });
        this.parts = [];
        this.pendingBytes = 0;
        this.discarding = nl === -1;
      } else if (nl === -1) {
        // Copy: the caller may reuse its buffer.
        this.parts.push(Buffer.from(chunk.subarray(start, end)));
        this.pendingBytes += pieceLength;
      } else {
        const piece = chunk.subarray(start, end);
        const line = this.parts.length === 0 ? piece : Buffer.concat([...this.parts, piece]);
        this.parts = [];
        this.pendingBytes = 0;
        const frame = decodeLine(line);
        if (frame) out.push(frame);
      }
      if (nl === -1) break;
      start = nl + 1;
    }
    return out;
  }

  /** Bytes held for an unfinished line (for tests and accounting). */
  get buffered(): number {
    return this.pendingBytes;
  }
}

function decodeLine(bytes: Buffer): DecodedFrame | undefined {
  let length = bytes.length;
  if (length > 0 && bytes[length - 1] === 0x0d) length -= 1; // tolerate CRLF
  if (length === 0) return undefined; // blank lines are keep-alives, not errors
  try {
    return { kind: 'line', text: utf8.decode(bytes.subarray(0, length)) };
  } catch {
    return { kind: 'error', error: swbError('BAD_FRAME', 'A frame was not valid UTF-8.') };
  }
}

/** One object → one line. JSON.stringify never emits a raw newline, so framing is safe. */
export function encodeFrame(value: unknown): string {
  return `${JSON.stringify(value)}\n`;
}
