// A connection to the hub: hello, request/response by id, typed pushes. Small on purpose:
// `swb send` loads this and little else, so it starts about as fast as Node itself.
import { createConnection, type Socket } from 'node:net';
import { SwbError, swbError } from '../protocol/error-codes.js';
import { DEFAULT_LIMITS, messageTooLarge, PROTOCOL_VERSION } from '../protocol/limits.js';
import type { HelloResult } from '../protocol/methods.js';
import { encodeFrame, NdjsonDecoder } from '../protocol/ndjson-decoder.js';
import { classifyLine, errorFromFailure, type RpcFailure } from '../protocol/rpc.js';
import { systemClock } from '../util/clock.js';
import { Emitter } from '../util/event.js';
import type { Disposable } from '../util/lifecycle.js';
import { checkPeer, checkSocketPath } from './trusted-socket.js';

export interface ClientIdentity {
  session?: string;
  token?: string;
}

/** Replies can carry many messages (a page of history): allow far more than a request frame. */
const CLIENT_MAX_FRAME_BYTES = 64 * 1024 * 1024;
/** How long a request waits for its answer unless the caller says otherwise (`--timeout`). */
export const DEFAULT_REQUEST_TIMEOUT_MS = 15_000;

interface Pending {
  method: string;
  resolve: (v: unknown) => void;
  reject: (e: SwbError) => void;
  timer: Disposable | null;
}

export class HubClient {
  private nextId = 1;
  private pending = new Map<number, Pending>();
  /** Every request's deadline unless it names its own; 0 = none. */
  requestTimeoutMs = DEFAULT_REQUEST_TIMEOUT_MS;
  /** This connection found no hub and started one (headless, detached), which runs on after it. */
  startedHub = false;
  /** The last error the hub sent about no request in particular (e.g. why it closed the connection). */
  private finalError: SwbError | null = null;
  private readonly pushes = new Emitter<{ method: string; params: unknown }>();
  private readonly closedEmitter = new Emitter<void>();
  readonly onPush = this.pushes.event;
  readonly onClose = this.closedEmitter.event;

  /** Why the hub closed this connection (a final error it sent), or null. */
  get closeReason(): SwbError | null {
    return this.finalError;
  }
  hello: HelloResult | null = null;
  private closed = false;

  private constructor(
    private readonly socket: Socket,
    readonly socketPath: string,
  ) {
    const decoder = new NdjsonDecoder(CLIENT_MAX_FRAME_BYTES);
    socket.on('data', (chunk: Buffer) => {
      for (const frame of decoder.push(chunk)) {
        if (frame.kind === 'line') this.onLine(frame.text);
        else {
          // An answer we cannot read (too large, not UTF-8) belongs to some request we cannot
          // name: fail them all now rather than wait for an answer that will never parse.
          this.failAll(new SwbError(frame.error.code, `An answer from the hub could not be read: ${frame.error.message}`));
          socket.destroy();
        }
      }
    });
    socket.on('error', () => socket.destroy());
    socket.on('close', () => {
      this.closed = true;
      this.failAll(this.finalError ?? new SwbError('NO_HUB', 'The connection to the hub closed.'));
      this.closedEmitter.fire();
    });
  }

  private failAll(err: SwbError): void {
    for (const p of this.pending.values()) {
      p.timer?.dispose();
      p.reject(err);
    }
    this.pending.clear();
  }

  /**
   * Opens the socket; rejects with the raw errno error so callers can decide to start a hub, or
   * with UNSAFE_RUNTIME_DIR (before anything is sent) when the socket may not be ours.
   */
  static open(socketPath: string): Promise<HubClient> {
    try {
      checkSocketPath(socketPath);
    } catch (err) {
      return Promise.reject(err);
    }
    return new Promise((resolve, reject) => {
      const socket = createConnection(socketPath);
      socket.once('connect', () => {
        socket.off('error', reject);
        try {
          checkPeer(socket, socketPath);
        } catch (err) {
          socket.destroy();
          reject(err);
          return;
        }
        resolve(new HubClient(socket, socketPath));
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

  /** One request; it fails with TIMEOUT if no answer comes within `timeoutMs` (default: requestTimeoutMs). */
  request<T>(method: string, params: Record<string, unknown> = {}, opts: { timeoutMs?: number } = {}): Promise<T> {
    const answer = this.send<T>(method, params, opts.timeoutMs);
    if (!this.helloPromise || this.hello) return answer;
    answer.catch(() => undefined); // if hello fails, its error is the one to report
    return this.helloPromise.then(() => answer);
  }

  private send<T>(method: string, params: Record<string, unknown>, timeoutMs = this.requestTimeoutMs): Promise<T> {
    if (this.closed) return Promise.reject(this.finalError ?? new SwbError('NO_HUB', 'The connection to the hub is closed.'));
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer = timeoutMs > 0 ? systemClock.setTimer(() => this.timedOut(id, timeoutMs), timeoutMs) : null;
      this.pending.set(id, { method, resolve: resolve as (v: unknown) => void, reject, timer });
      this.socket.write(encodeFrame({ jsonrpc: '2.0', id, method, params }));
    });
  }

  /** No answer in time: the hub may be stopped (SIGSTOP), wedged or overloaded. The connection is dropped. */
  private timedOut(id: number, timeoutMs: number): void {
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    p.reject(
      new SwbError(
        'TIMEOUT',
        `The hub at ${this.socketPath} did not answer ${p.method} within ${(timeoutMs / 1000).toFixed(1)} s; it may be stopped or overloaded (--timeout S waits longer).`,
      ),
    );
    this.finalError = new SwbError('TIMEOUT', `An earlier request to the hub at ${this.socketPath} timed out.`);
    this.socket.destroy();
  }

  private onLine(text: string): void {
    const msg = classifyLine(text);
    if (msg.kind === 'notification') {
      this.pushes.fire({ method: msg.message.method, params: msg.message.params });
    } else if (msg.kind === 'response' || (msg.kind === 'invalid' && msg.id !== null)) {
      const id = msg.kind === 'response' ? msg.message.id : msg.id;
      if (id === null && msg.kind === 'response' && 'error' in msg.message) {
        // An error about the connection itself (the hub is closing it: HUB_BUSY, idle, revoked).
        const e = errorFromFailure(msg.message as RpcFailure);
        this.finalError = new SwbError(e.code, e.message, e.details);
        this.failAll(this.finalError);
        return;
      }
      const p = typeof id === 'number' ? this.pending.get(id) : undefined;
      if (!p) return;
      this.pending.delete(id as number);
      p.timer?.dispose();
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

/**
 * Refuses a message the hub would refuse, before it is sent: one over the hub's frame limit would
 * otherwise come back as FRAME_TOO_LARGE, which says nothing about the message. The hub's limit
 * comes with its hello answer; a message within the default limit never waits for it (mail
 * requests go out right behind hello).
 */
export async function checkMessageSize(client: HubClient, text: string): Promise<void> {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes <= DEFAULT_LIMITS.maxMessageBytes) return;
  const limit = (await client.ready).limits.maxMessageBytes;
  if (bytes <= limit) return;
  const refusal = messageTooLarge(bytes, limit);
  throw new SwbError(refusal.code, refusal.message, refusal.details);
}

export function noHub(socketPath: string, why: string): SwbError {
  const v = swbError('NO_HUB', `No hub at ${socketPath} (${why}). Start one with \`swb hub\` or open \`swb\`.`);
  return new SwbError(v.code, v.message);
}
