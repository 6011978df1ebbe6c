// A deliberately dumb NDJSON socket client for protocol tests: it writes arbitrary bytes (broken
// JSON, invalid UTF-8, oversized or split frames) and records every line the hub sends back,
// parsed when it is JSON. It shares no code with src/, so it cannot share a bug with it.
import { createConnection, type Socket } from 'node:net';
import { deferCleanup } from './cleanup.js';

/** Lines are loosely typed on purpose: tests probe whatever the hub sent, valid or not. */
export interface RawLine {
  text: string;
  /** The parsed object, or undefined if the line was not JSON. */
  json: any;
}

/** A JSON-RPC response as it appears on the wire. */
export interface RawResponse {
  jsonrpc: '2.0';
  id: string | number | null;
  result?: any;
  error?: { code: number; message: string; data?: { code: string; details?: Record<string, unknown> } };
}

export interface RawWaitOptions {
  timeoutMs?: number;
}

export class RawClient {
  readonly lines: RawLine[] = [];
  private pendingBytes: Buffer = Buffer.alloc(0);
  private listeners = new Set<(line: RawLine) => void>();
  private nextRequestId = 1;
  private ended = false;
  readonly closed: Promise<void>;

  private constructor(readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', () => undefined);
    this.closed = new Promise((resolve) => socket.once('close', () => {
      this.ended = true;
      resolve();
    }));
  }

  static connect(socketPath: string): Promise<RawClient> {
    return new Promise((resolve, reject) => {
      const socket = createConnection(socketPath);
      socket.once('connect', () => {
        socket.off('error', reject);
        const client = new RawClient(socket);
        deferCleanup('raw client', () => client.destroy());
        resolve(client);
      });
      socket.once('error', reject);
    });
  }

  get isClosed(): boolean {
    return this.ended;
  }

  private onData(chunk: Buffer): void {
    let buf = this.pendingBytes.length > 0 ? Buffer.concat([this.pendingBytes, chunk]) : chunk;
    for (let nl = buf.indexOf(0x0a); nl !== -1; nl = buf.indexOf(0x0a)) {
      const text = buf.subarray(0, nl).toString('utf8');
      buf = buf.subarray(nl + 1);
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
      const line: RawLine = { text, json };
      this.lines.push(line);
      for (const l of [...this.listeners]) l(line);
    }
    this.pendingBytes = Buffer.from(buf);
  }

  /** Writes raw bytes and resolves once they are handed to the kernel. */
  write(data: string | Buffer): Promise<void> {
    return new Promise((resolve, reject) => this.socket.write(data, (err) => (err ? reject(err) : resolve())));
  }

  /** Writes one object as one NDJSON line. */
  sendObject(value: unknown): Promise<void> {
    return this.write(`${JSON.stringify(value)}\n`);
  }

  /** A fresh request id (numbers, counting up). */
  newId(): number {
    return this.nextRequestId++;
  }

  /** The JSON-RPC request frame for `method` as bytes (for tests that split or coalesce frames). */
  frame(method: string, params: unknown = {}, id: string | number = this.newId()): { id: string | number; bytes: Buffer } {
    return { id, bytes: Buffer.from(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`) };
  }

  /** Sends one request and waits for the response with its id. */
  async request(method: string, params: unknown = {}, opts: RawWaitOptions = {}): Promise<RawResponse> {
    const { id, bytes } = this.frame(method, params);
    await this.write(bytes);
    return this.response(id, opts);
  }

  /** Says hello (protocol version 1) and returns the response. */
  hello(params: Record<string, unknown> = {}): Promise<RawResponse> {
    return this.request('hello', { version: 1, ...params });
  }

  /** Waits for the response to request `id`. */
  response(id: string | number, opts: RawWaitOptions = {}): Promise<RawResponse> {
    return this.waitFor((j) => j?.id === id && ('result' in j || 'error' in j), opts, `response to request ${id}`) as Promise<RawResponse>;
  }

  /** Waits for the first line (already received or still to come) whose parsed JSON matches. */
  waitFor(match: (json: any) => boolean, opts: RawWaitOptions = {}, what = 'a matching line'): Promise<any> {
    const found = this.lines.find((l) => l.json !== undefined && match(l.json));
    if (found) return Promise.resolve(found.json);
    const timeoutMs = opts.timeoutMs ?? 5000;
    return new Promise((resolve, reject) => {
      const listener = (line: RawLine) => {
        if (line.json === undefined || !match(line.json)) return;
        this.listeners.delete(listener);
        clearTimeout(timer);
        resolve(line.json);
      };
      const timer = setTimeout(() => {
        this.listeners.delete(listener);
        const seen = this.lines.map((l) => l.text.slice(0, 200)).join('\n  ');
        reject(new Error(`RawClient: no ${what} within ${timeoutMs} ms; received:\n  ${seen}`));
      }, timeoutMs);
      this.listeners.add(listener);
    });
  }

  /** Parsed lines that are error responses carrying this Switchboard error code. */
  errorsWithCode(code: string): RawResponse[] {
    return this.lines.filter((l) => l.json?.error?.data?.code === code).map((l) => l.json as RawResponse);
  }

  /** Stops reading from the socket (the kernel buffers fill, and the hub sees backpressure). */
  pauseReading(): void {
    this.socket.pause();
  }

  resumeReading(): void {
    this.socket.resume();
  }

  destroy(): void {
    this.socket.destroy();
  }
}

/** The Switchboard error code of a failed response (undefined for a success). */
export function errorCode(response: RawResponse): string | undefined {
  return response.error?.data?.code;
}
