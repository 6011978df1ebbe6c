// The stdio transport of `swb mcp` (issues #31.2 and #34.3), in place of the MCP SDK's own, for two
// things that one gets wrong for us:
// - End of input is not the end of the work. An agent (or a script) may write its calls and close
//   stdin at once; the SDK's reader has no notion of that, and `swb mcp` used to stop at the end of
//   input with a `tools/call` still running, its answer lost, and hang. Here the requests read are
//   counted until their answers are written; once input has ended and none is left, the transport
//   closes (and `swb mcp` exits 0).
// - A line is bounded before it is parsed, as it streams: the SDK buffers a line whole and, past its
//   10 MB, throws and closes, so one oversized argument took the agent's swb tools away for the whole
//   session with no reason given. Here a line over the limit is dropped as it arrives (only its first
//   bytes are kept, to find the request's id), answered with a typed JSON-RPC error
//   (FRAME_TOO_LARGE, with the id when the head of the line names it, else null), and the next line
//   is served as usual. A line that is not JSON or not JSON-RPC is answered likewise (BAD_FRAME).
import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { swbError, type SwbErrorValue } from '../protocol/error-codes.js';
import { failure, type RpcId } from '../protocol/rpc.js';
import { idFromHead } from './id-from-head.js';

/**
 * Longest input line. A mail text may be configured up to 16 MiB (limits.maxMessageBytes), so a line
 * carrying one must fit, with room for the JSON-RPC envelope; anything longer cannot be a call swb
 * would accept, and is not held in memory.
 */
export const MCP_MAX_LINE_BYTES = 16 * 1024 * 1024 + 64 * 1024;
/** Bytes of an oversized line kept to find its id in. */
const HEAD_BYTES = 1024;
const NEWLINE = 0x0a;

export class BoundedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;
  /** Settles once the transport closed: input ended and every call read was answered, or output failed. */
  readonly closed: Promise<void>;

  private settle!: () => void;
  private isClosed = false;
  private inputEnded = false;
  /** Requests read and not answered yet, by id (a count: a client may reuse an id). */
  private readonly pending = new Map<RpcId, number>();
  /** Pieces of the unfinished line. */
  private parts: Buffer[] = [];
  private partBytes = 0;
  /** The start of a line already over the limit, while the rest of it is skipped. */
  private oversized: Buffer | null = null;

  constructor(
    private readonly input: Readable = process.stdin,
    private readonly output: Writable = process.stdout,
    private readonly maxLineBytes = MCP_MAX_LINE_BYTES,
  ) {
    this.closed = new Promise((resolve) => (this.settle = resolve));
  }

  async start(): Promise<void> {
    this.input.on('data', this.onData);
    this.input.on('end', this.onEnd);
    this.input.on('error', this.onInputError);
    this.output.on('error', this.onOutputError);
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.write(message).then(() => {
      if ('id' in message && message.id !== undefined && !('method' in message)) this.answered(message.id);
    });
  }

  async close(): Promise<void> {
    if (this.isClosed) return;
    this.isClosed = true;
    this.input.off('data', this.onData);
    this.input.off('end', this.onEnd);
    this.input.off('error', this.onInputError);
    this.input.pause();
    this.parts = [];
    this.oversized = null;
    this.onclose?.();
    this.settle();
  }

  private readonly onData = (chunk: Buffer | string): void => {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    let start = 0;
    while (start < bytes.length && !this.isClosed) {
      const nl = bytes.indexOf(NEWLINE, start);
      const end = nl === -1 ? bytes.length : nl;
      this.take(bytes.subarray(start, end), nl !== -1);
      start = end + 1;
    }
  };

  /** One piece of a line; `ends` when a newline followed it. */
  private take(piece: Buffer, ends: boolean): void {
    if (this.oversized === null && this.partBytes + piece.length > this.maxLineBytes) {
      // Keep only the head (to find the id in), and drop the rest of the line as it comes.
      this.oversized = headOf([...this.parts, piece]);
      this.parts = [];
      this.partBytes = 0;
    }
    if (this.oversized !== null) {
      if (ends) this.refuseOversized();
      return;
    }
    if (!ends) {
      // Copied: the stream may reuse its buffer.
      this.parts.push(Buffer.from(piece));
      this.partBytes += piece.length;
      return;
    }
    const line = this.parts.length === 0 ? piece : Buffer.concat([...this.parts, piece]);
    this.parts = [];
    this.partBytes = 0;
    this.handleLine(line);
  }

  private refuseOversized(): void {
    const head = this.oversized!.toString('utf8');
    this.oversized = null;
    const error = swbError(
      'FRAME_TOO_LARGE',
      `The request was longer than swb mcp's limit of ${this.maxLineBytes} bytes and was skipped; send less (a mail text is limited by the hub's maxMessageBytes).`,
      { limit: this.maxLineBytes },
    );
    void this.refuse(idFromHead(head), error);
  }

  private handleLine(bytes: Buffer): void {
    const text = bytes.toString('utf8').replace(/\r$/, '');
    if (text.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      void this.refuse(idFromHead(text.slice(0, HEAD_BYTES)), swbError('BAD_FRAME', 'The request was not valid JSON.'));
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(value);
    if (!parsed.success) {
      const id = (value as { id?: unknown } | null)?.id;
      const known = (typeof id === 'string' && id.length <= 128) || (typeof id === 'number' && Number.isFinite(id)) ? (id as RpcId) : null;
      void this.refuse(known, swbError('BAD_FRAME', 'The line was not a JSON-RPC 2.0 message.'));
      return;
    }
    const message = parsed.data;
    if ('method' in message) {
      if ('id' in message && message.id !== undefined) this.pending.set(message.id, (this.pending.get(message.id) ?? 0) + 1);
      // A request the client cancelled is never answered (the SDK drops its result): stop waiting for it.
      if (message.method === 'notifications/cancelled') {
        const id = (message.params as { requestId?: unknown } | undefined)?.requestId;
        if (typeof id === 'string' || typeof id === 'number') this.answered(id);
      }
    }
    this.onmessage?.(message);
  }

  private readonly onEnd = (): void => {
    this.inputEnded = true;
    // A last line without its newline is still a line.
    if (this.oversized !== null) this.refuseOversized();
    else if (this.partBytes > 0) this.take(Buffer.alloc(0), true);
    this.closeWhenDone();
  };

  private readonly onInputError = (err: Error): void => {
    this.onerror?.(err);
    this.onEnd();
  };

  /** stdout gone (EPIPE): nobody can hear an answer any more. */
  private readonly onOutputError = (err: Error): void => {
    this.onerror?.(err);
    void this.close();
  };

  private answered(id: RpcId): void {
    const n = this.pending.get(id);
    if (n === undefined) return;
    if (n <= 1) this.pending.delete(id);
    else this.pending.set(id, n - 1);
    this.closeWhenDone();
  }

  private closeWhenDone(): void {
    if (this.inputEnded && this.pending.size === 0) void this.close();
  }

  private refuse(id: RpcId | null, error: SwbErrorValue): Promise<void> {
    return this.write(failure(id, error));
  }

  /** Writes one line; resolves once it is handed to the system (so an exit after it loses nothing). */
  private write(message: unknown): Promise<void> {
    if (this.isClosed) return Promise.resolve();
    return new Promise((resolve) => {
      this.output.write(`${JSON.stringify(message)}\n`, () => resolve());
    });
  }
}

/** The first HEAD_BYTES of these pieces, copied (without joining what lies beyond). */
function headOf(pieces: readonly Buffer[]): Buffer {
  const head: Buffer[] = [];
  let bytes = 0;
  for (const p of pieces) {
    if (bytes >= HEAD_BYTES) break;
    const take = p.subarray(0, HEAD_BYTES - bytes);
    head.push(take);
    bytes += take.length;
  }
  return Buffer.from(Buffer.concat(head));
}
