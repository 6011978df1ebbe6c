// How the Intercom HTTP API speaks to the hub: through the hub's own socket, as the caller. Each
// credential gets a hub connection that said hello with it — the operator with the operator token,
// a row with its own SWB_TOKEN — so every API call runs through the same method handlers, limits,
// error codes and receipts as `swb send` does, and the sender is whoever the hub says the connection
// is, never what a request body claims. Connections are kept per credential and dropped when the hub
// closes them (a row registered again: its old token's connections are revoked by the hub).
import { readFileSync } from 'node:fs';
import { HubClient } from '../client/hub-client.js';
import { SwbError, swbError, type SwbErrorValue } from '../protocol/error-codes.js';
import { OPERATOR } from '../protocol/handle.js';
import { DEFAULT_LIMITS, type HubLimits } from '../protocol/limits.js';
import type { Disposable } from '../util/lifecycle.js';
import type { WebCaller } from './web-server.js';

export type HubAnswer<T = unknown> = { ok: T } | { error: SwbErrorValue };

/** What a JSON-RPC envelope adds to params and the method's JSON: {"jsonrpc":"2.0","id":N,"method":,"params":} and the newline, N up to 6 digits. */
const ENVELOPE_BYTES = 50;

export interface ApiHubOptions {
  socketPath: string;
  /** The file the hub publishes its operator token in (read at each connect: it changes with the hub). */
  operatorTokenFile: string;
}

export class ApiHub implements Disposable {
  private readonly clients = new Map<string, Promise<HubClient>>();
  private disposed = false;

  constructor(private readonly o: ApiHubOptions) {}

  /** A fresh connection as `caller` (the event stream's: its subscription is per connection). */
  async open(caller: WebCaller): Promise<HubClient> {
    const client = await HubClient.open(this.o.socketPath);
    try {
      await client.sayHello(caller.rowToken !== undefined ? { session: caller.who.handle, token: caller.rowToken } : { session: OPERATOR, token: this.operatorToken() });
    } catch (err) {
      client.destroy();
      throw err;
    }
    return client;
  }

  /** The hub's limits as the caller's connection learnt them (the default until one said hello). */
  async limitsFor(caller: WebCaller): Promise<HubLimits> {
    try {
      return (await this.client(caller)).hello?.limits ?? DEFAULT_LIMITS;
    } catch {
      return DEFAULT_LIMITS;
    }
  }

  /**
   * One method as `caller`. A request whose frame the hub would refuse for its size is refused here
   * with the hub's own code (FRAME_TOO_LARGE), so the shared connection never carries it.
   */
  async call<T>(caller: WebCaller, method: string, params: Record<string, unknown>, timeoutMs?: number): Promise<HubAnswer<T>> {
    let client: HubClient;
    try {
      client = await this.client(caller);
    } catch (err) {
      return { error: asError(err, 'The hub could not be reached') };
    }
    return this.callOn<T>(client, method, params, timeoutMs);
  }

  /** One method on a connection `open` made (a long poll's own). */
  async callOn<T>(client: HubClient, method: string, params: Record<string, unknown>, timeoutMs?: number): Promise<HubAnswer<T>> {
    const limits = client.hello?.limits ?? DEFAULT_LIMITS;
    const frameBytes = Buffer.byteLength(JSON.stringify(params)) + Buffer.byteLength(JSON.stringify(method)) + ENVELOPE_BYTES;
    if (frameBytes > limits.maxFrameBytes) {
      return { error: swbError('FRAME_TOO_LARGE', `The request is ${frameBytes} bytes, over the hub's frame limit of ${limits.maxFrameBytes}.`, { limit: limits.maxFrameBytes }) };
    }
    try {
      return { ok: await client.request<T>(method, params, timeoutMs !== undefined ? { timeoutMs } : {}) };
    } catch (err) {
      return { error: asError(err, `The hub could not complete ${method}`) };
    }
  }

  private client(caller: WebCaller): Promise<HubClient> {
    if (this.disposed) return Promise.reject(new SwbError('SHUTTING_DOWN', 'The web server is stopping.'));
    // A row's key carries its token: a row registered again speaks through a new connection.
    const key = caller.rowToken !== undefined ? `row:${caller.who.handle}:${caller.rowToken}` : 'operator';
    let pending = this.clients.get(key);
    if (!pending) {
      pending = this.open(caller);
      this.clients.set(key, pending);
      pending.then(
        (client) => {
          client.onClose(() => {
            if (this.clients.get(key) === pending) this.clients.delete(key);
          });
          if (this.disposed) client.destroy();
        },
        () => {
          if (this.clients.get(key) === pending) this.clients.delete(key);
        },
      );
    }
    return pending;
  }

  private operatorToken(): string {
    return readFileSync(this.o.operatorTokenFile, 'utf8').trim();
  }

  dispose(): void {
    this.disposed = true;
    for (const pending of this.clients.values()) pending.then((c) => c.destroy(), () => undefined);
    this.clients.clear();
  }
}

export function asError(err: unknown, what: string): SwbErrorValue {
  if (err instanceof SwbError) return err.toValue();
  return swbError('INTERNAL', `${what}: ${err instanceof Error ? err.message : String(err)}.`);
}
