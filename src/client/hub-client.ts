// A connection to the hub: hello, request/response by id, typed pushes. Small on purpose:
// `swb send` loads this and little else, so it starts about as fast as Node itself.
import { createConnection, type Socket } from 'node:net';
import { SwbError, swbError } from '../protocol/error-codes.js';
import { PROTOCOL_VERSION } from '../protocol/limits.js';
import type { HelloResult } from '../protocol/methods.js';
import { encodeFrame, NdjsonDecoder } from '../protocol/ndjson-decoder.js';
import { classifyLine, errorFromFailure, type RpcFailure } from '../protocol/rpc.js';
import { Emitter } from '../util/event.js';

export interface ClientIdentity {
  session?: string;
  token?: string;
}

/** Replies can carry many messages (a page of history): allow far more than a request frame. */
const CLIENT_MAX_FRAME_BYTES = 64 * 1024 * 1024;

export class HubClient {
  private nextId = 1;
  private pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: SwbError) => void }>();
  private readonly pushes = new Emitter<{ method: string; params: unknown }>();
  private readonly closedEmitter = new Emitter<void>();
  readonly onPush = this.pushes.event;
  readonly onClose = this.closedEmitter.event;
  hello: HelloResult | null = null;
  private closed = false;

  private constructor(private readonly socket: Socket) {
    const decoder = new NdjsonDecoder(CLIENT_MAX_FRAME_BYTES);
    socket.on('data', (chunk: Buffer) => {
      for (const frame of decoder.push(chunk)) {
        if (frame.kind === 'line') this.onLine(frame.text);
      }
    });
    socket.on('error', () => socket.destroy());
    socket.on('close', () => {
      this.closed = true;
      const err = new SwbError('NO_HUB', 'The connection to the hub closed.');
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
      this.closedEmitter.fire();
    });
  }

  /** Opens the socket; rejects with the raw errno error so callers can decide to start a hub. */
  static open(socketPath: string): Promise<HubClient> {
    return new Promise((resolve, reject) => {
      const socket = createConnection(socketPath);
      socket.once('connect', () => {
        socket.off('error', reject);
        resolve(new HubClient(socket));
      });
      socket.once('error', reject);
    });
  }

  async sayHello(identity: ClientIdentity, opts: { subscribe?: boolean; client?: string } = {}): Promise<HelloResult> {
    this.startHello(identity, opts);
    return this.ready;
  }

  private helloPromise: Promise<HelloResult> | null = null;

  /**
   * Sends hello without waiting for its answer: requests made meanwhile go out right behind it
   * (the hub answers a connection's requests in order), saving a round trip per CLI command.
   * Each such request fails with hello's error if hello is refused.
   */
  startHello(identity: ClientIdentity, opts: { subscribe?: boolean; client?: string } = {}): void {
    const params: Record<string, unknown> = { version: PROTOCOL_VERSION };
    if (identity.session) params.session = identity.session;
    if (identity.token) params.token = identity.token;
    if (opts.subscribe) params.subscribe = true;
    if (opts.client) params.client = opts.client;
    this.helloPromise = this.send<HelloResult>('hello', params).then((h) => (this.hello = h));
    this.helloPromise.catch(() => undefined); // observed by `ready` and by each request
  }

  /** The hello answer (rejects with hello's error). */
  get ready(): Promise<HelloResult> {
    return this.helloPromise ?? Promise.reject(new SwbError('UNAUTHENTICATED', 'hello was not sent on this connection.'));
  }

  request<T>(method: string, params: Record<string, unknown> = {}): Promise<T> {
    const answer = this.send<T>(method, params);
    if (!this.helloPromise || this.hello) return answer;
    answer.catch(() => undefined); // if hello fails, its error is the one to report
    return this.helloPromise.then(() => answer);
  }

  private send<T>(method: string, params: Record<string, unknown>): Promise<T> {
    if (this.closed) return Promise.reject(new SwbError('NO_HUB', 'The connection to the hub is closed.'));
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.socket.write(encodeFrame({ jsonrpc: '2.0', id, method, params }));
    });
  }

  private onLine(text: string): void {
    const msg = classifyLine(text);
    if (msg.kind === 'notification') {
      this.pushes.fire({ method: msg.message.method, params: msg.message.params });
    } else if (msg.kind === 'response' || (msg.kind === 'invalid' && msg.id !== null)) {
      const id = msg.kind === 'response' ? msg.message.id : msg.id;
      const p = typeof id === 'number' ? this.pending.get(id) : undefined;
      if (!p) return;
      this.pending.delete(id as number);
      if (msg.kind === 'invalid') p.reject(new SwbError(msg.error.code, msg.error.message));
      else if ('error' in msg.message) {
        const e = errorFromFailure(msg.message as RpcFailure);
        p.reject(new SwbError(e.code, e.message, e.details));
      } else p.resolve(msg.message.result);
    } else if (msg.kind === 'invalid') {
      // An error about no particular request (a frame we sent was unreadable): fail everything.
      const err = new SwbError(msg.error.code, msg.error.message);
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
    }
  }

  get isClosed(): boolean {
    return this.closed;
  }

  close(): void {
    if (!this.closed) this.socket.end();
  }

  destroy(): void {
    this.socket.destroy();
  }
}

/** The OS refused the connect itself (EPERM, EACCES): no hub will be started, and why is said plainly. */
export function hubDenied(socketPath: string, errno: string): SwbError {
  const v = swbError(
    'HUB_DENIED',
    `The system refused this process access to the hub socket ${socketPath} (${errno}). ` +
      'A sandbox that blocks local sockets is the usual cause (Codex runs commands in one): run swb outside the sandbox ' +
      '(in Codex: run it again with escalated permissions), or allow network access in the sandbox.',
  );
  return new SwbError(v.code, v.message);
}

export function noHub(socketPath: string, why: string): SwbError {
  const v = swbError('NO_HUB', `No hub at ${socketPath} (${why}). Start one with \`swb hub\` or open \`swb\`.`);
  return new SwbError(v.code, v.message);
}
