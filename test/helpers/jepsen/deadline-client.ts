// A JSON-RPC client for the Jepsen-style test that never waits without a deadline: every connect
// and every request ends in a definite answer (ok, or an error with its code) or "indeterminate"
// (the connection closed, or our own deadline passed, with the request possibly applied). It shares
// no code with src/, so it cannot share a bug with the hub's own client.
import { createConnection, type Socket } from 'node:net';

export type Outcome =
  | { kind: 'ok'; result: any }
  | { kind: 'error'; code: string | undefined; rpcCode: number | undefined; message: string; details: Record<string, unknown> | undefined }
  | { kind: 'indeterminate'; reason: 'timeout' | 'closed' };

export type ConnectOutcome = { ok: true; conn: DeadlineConnection } | { ok: false; reason: string };

export class DeadlineConnection {
  private buffered: Buffer = Buffer.alloc(0);
  private nextId = 1;
  private waiting = new Map<number, (o: Outcome) => void>();
  private closedFlag = false;
  /** Lines that were not a response to a request in flight (pushes, late or unmatched answers). */
  readonly stray: any[] = [];

  private constructor(private readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', () => undefined);
    socket.once('close', () => {
      this.closedFlag = true;
      const pending = [...this.waiting.values()];
      this.waiting.clear();
      for (const resolve of pending) resolve({ kind: 'indeterminate', reason: 'closed' });
    });
  }

  /** Connects within `deadlineMs`; a refused, missing or silent socket is reported, not thrown. */
  static connect(socketPath: string, deadlineMs: number): Promise<ConnectOutcome> {
    return new Promise((resolve) => {
      const socket = createConnection(socketPath);
      const timer = setTimeout(() => {
        socket.destroy();
        resolve({ ok: false, reason: 'connect timeout' });
      }, deadlineMs);
      socket.once('connect', () => {
        clearTimeout(timer);
        socket.removeAllListeners('error');
        resolve({ ok: true, conn: new DeadlineConnection(socket) });
      });
      socket.once('error', (err: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        socket.destroy();
        resolve({ ok: false, reason: err.code ?? err.message });
      });
    });
  }

  get closed(): boolean {
    return this.closedFlag;
  }

  private onData(chunk: Buffer): void {
    let buf = this.buffered.length > 0 ? Buffer.concat([this.buffered, chunk]) : chunk;
    for (let nl = buf.indexOf(0x0a); nl !== -1; nl = buf.indexOf(0x0a)) {
      const text = buf.subarray(0, nl).toString('utf8');
      buf = buf.subarray(nl + 1);
      let json: any;
      try {
        json = JSON.parse(text);
      } catch {
        this.stray.push({ unparsable: text.slice(0, 200) });
        continue;
      }
      const resolve = typeof json?.id === 'number' ? this.waiting.get(json.id) : undefined;
      if (!resolve || !('result' in json || 'error' in json)) {
        this.stray.push(json);
        continue;
      }
      this.waiting.delete(json.id);
      if ('error' in json) {
        resolve({
          kind: 'error',
          code: typeof json.error?.data?.code === 'string' ? json.error.data.code : undefined,
          rpcCode: typeof json.error?.code === 'number' ? json.error.code : undefined,
          message: String(json.error?.message ?? ''),
          details: typeof json.error?.data?.details === 'object' && json.error.data.details !== null ? json.error.data.details : undefined,
        });
      } else {
        resolve({ kind: 'ok', result: json.result });
      }
    }
    this.buffered = Buffer.from(buf);
  }

  /**
   * Sends one request; resolves with its answer, or `indeterminate` when the connection closes or
   * `deadlineMs` passes first. After an indeterminate outcome the connection is destroyed: a late
   * answer must never be mistaken for the answer to a later request.
   */
  request(method: string, params: unknown, deadlineMs: number): Promise<Outcome> {
    if (this.closedFlag) return Promise.resolve({ kind: 'indeterminate', reason: 'closed' });
    const id = this.nextId++;
    return new Promise<Outcome>((resolve) => {
      const timer = setTimeout(() => {
        if (!this.waiting.delete(id)) return;
        this.destroy();
        resolve({ kind: 'indeterminate', reason: 'timeout' });
      }, deadlineMs);
      this.waiting.set(id, (o) => {
        clearTimeout(timer);
        if (o.kind === 'indeterminate') this.destroy();
        resolve(o);
      });
      this.socket.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  }

  destroy(): void {
    this.socket.destroy();
  }
}
