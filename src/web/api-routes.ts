// The Intercom HTTP API (issue #32, the seed's 002): JSON over the web listener, one route per hub
// method, every call run by the hub's own handlers as the credential's identity (api-hub.ts). What a
// route adds is only HTTP: query strings and bodies turned into the method's params (a number-looking
// value as a number, anything else passed as is for the hub's schema to refuse), a view-only caller
// refused what changes anything, and the answer's status (api-answer.ts). A body's `from` is dropped:
// who sends is the credential, never the payload.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { swbError } from '../protocol/error-codes.js';
import { OPERATOR } from '../protocol/handle.js';
import { answerError, answerJson } from './api-answer.js';
import type { ApiEvents } from './api-events.js';
import { asError, type ApiHub, type HubAnswer } from './api-hub.js';
import { openApiDocument } from './api-openapi.js';
import { readJsonBody } from './read-json-body.js';
import type { ApiMount, WebCaller } from './web-server.js';

/** A long poll's answer may take its whole wait and then some: the hub's request deadline on top. */
const WAIT_GRACE_MS = 5_000;
/** Long polls open at once, over all callers (each holds a hub connection for its wait). */
const MAX_WAITS = 64;
/** ... and of one identity, so one busy script cannot take them all. */
const MAX_WAITS_PER_CALLER = 16;

type Route = (req: IncomingMessage, res: ServerResponse, url: URL, caller: WebCaller, rest: string) => Promise<void>;

export class IntercomApi implements ApiMount {
  private waits = 0;
  private readonly waitsOf = new Map<string, number>();
  private readonly routes: ReadonlyMap<string, { method: 'GET' | 'POST'; mutates: boolean; run: Route }>;

  constructor(
    private readonly hub: ApiHub,
    private readonly events: ApiEvents,
  ) {
    this.routes = new Map([
      ['send', { method: 'POST', mutates: true, run: (req, res, _u, c) => this.send(req, res, c) }],
      ['read', { method: 'POST', mutates: true, run: (req, res, _u, c) => this.read(req, res, c) }],
      ['inbox', { method: 'GET', mutates: false, run: (_r, res, u, c) => this.inbox(res, u, c) }],
      ['history', { method: 'GET', mutates: false, run: (_r, res, u, c) => this.history(res, u, c) }],
      ['status', { method: 'GET', mutates: false, run: (_r, res, _u, c, rest) => this.status(res, c, rest) }],
      ['wait', { method: 'GET', mutates: false, run: (_r, res, u, c) => this.wait(res, u, c) }],
      ['peers', { method: 'GET', mutates: false, run: (_r, res, u, c) => this.peers(res, u, c) }],
      ['openapi.json', { method: 'GET', mutates: false, run: async (_r, res) => answerJson(res, 200, openApiDocument()) }],
    ]);
  }

  async handle(req: IncomingMessage, res: ServerResponse, url: URL, caller: WebCaller): Promise<void> {
    const [name = '', ...restParts] = url.pathname.slice('/api/'.length).split('/');
    const rest = restParts.join('/');
    const route = this.routes.get(name);
    if (!route || (rest !== '' && name !== 'status')) return answerError(res, swbError('NOT_FOUND', `There is no API route ${JSON.stringify(url.pathname.slice(0, 80))} (GET /api/openapi.json lists them).`));
    // Exactly the method: a HEAD of /api/inbox would mark mail delivered and then drop it.
    if (req.method !== route.method) {
      res.setHeader('Allow', route.method);
      return answerJson(res, 405, { error: { code: 'BAD_REQUEST', message: `${url.pathname} takes ${route.method}.` } });
    }
    if (route.mutates && caller.who.readOnly) {
      return answerError(res, swbError('READ_ONLY', 'This credential is view-only: it can see everything and change nothing.'));
    }
    return route.run(req, res, url, caller, rest);
  }

  openEvents: ApiMount['openEvents'] = (socket, caller, url) => this.events.open(socket, caller, url);

  private answer(res: ServerResponse, a: HubAnswer): void {
    if ('error' in a) answerError(res, a.error);
    else answerJson(res, 200, a.ok);
  }

  private async body(req: IncomingMessage, res: ServerResponse, caller: WebCaller): Promise<Record<string, unknown> | null> {
    const limits = await this.hub.limitsFor(caller);
    const body = await readJsonBody(req, limits.maxFrameBytes);
    if ('error' in body) {
      answerError(res, body.error);
      return null;
    }
    if (typeof body.ok !== 'object' || body.ok === null || Array.isArray(body.ok)) {
      answerError(res, swbError('BAD_REQUEST', 'The body must be a JSON object.'));
      return null;
    }
    return body.ok as Record<string, unknown>;
  }

  /** POST /api/send {to, kind?, text, replyTo?, messageId?} → the receipt (`to`: a handle or a list; a leading @ is fine). */
  private async send(req: IncomingMessage, res: ServerResponse, caller: WebCaller): Promise<void> {
    const body = await this.body(req, res, caller);
    if (!body) return;
    // Identity is the credential's: a body's claim to be someone is not an error, it is ignored.
    const { from: _from, from_session: _fromSession, to, ...rest } = body;
    const list = typeof to === 'string' ? [to] : to;
    const params = { ...rest, ...(to !== undefined ? { to: Array.isArray(list) ? list.map(unAt) : list } : {}) };
    this.answer(res, await this.hub.call(caller, 'mail.send', params));
  }

  /** POST /api/read {ids} (the seed's ack). */
  private async read(req: IncomingMessage, res: ServerResponse, caller: WebCaller): Promise<void> {
    const body = await this.body(req, res, caller);
    if (!body) return;
    this.answer(res, await this.hub.call(caller, 'mail.read', body));
  }

  /** GET /api/inbox?after=&limit= : unread mail, a page at a time (`more` says there is another). */
  private async inbox(res: ServerResponse, url: URL, caller: WebCaller): Promise<void> {
    this.answer(res, await this.hub.call(caller, 'mail.list', { unreadOnly: true, ...query(url, ['after', 'limit']) }));
  }

  /**
   * GET /api/history: the operator's is all mail, newest first (?before=&limit=&peer=); a row's is
   * its own mail, read and unread, oldest first (?after=&limit=).
   */
  private async history(res: ServerResponse, url: URL, caller: WebCaller): Promise<void> {
    if (caller.who.handle === OPERATOR && caller.rowToken === undefined) {
      this.answer(res, await this.hub.call(caller, 'mail.history', query(url, ['before', 'limit'], ['peer'])));
    } else {
      this.answer(res, await this.hub.call(caller, 'mail.list', { unreadOnly: false, after: 0, ...query(url, ['after', 'limit']) }));
    }
  }

  /** GET /api/status/ID: a message's receipts; GET /api/status: held reply budgets and the federation link. */
  private async status(res: ServerResponse, caller: WebCaller, id: string): Promise<void> {
    if (id !== '') return this.answer(res, await this.hub.call(caller, 'receipt.get', { id: numberish(id) }));
    const link = await this.hub.call<{ link: unknown }>(caller, 'federation.status', {});
    if ('error' in link) return answerError(res, link.error);
    const held = await this.hub.call<{ pairs: unknown[]; budget: number }>(caller, 'budget.held', {});
    if ('error' in held) return answerError(res, held.error);
    answerJson(res, 200, { held: held.ok.pairs, budget: held.ok.budget, federation: link.ok.link });
  }

  /**
   * GET /api/wait?timeout=S[&after=N][&peek=1]: holds the request until mail arrives or S seconds
   * pass. Each wait has a hub connection of its own, closed if the HTTP client goes first, so mail is
   * never marked delivered to a caller who left.
   */
  private async wait(res: ServerResponse, url: URL, caller: WebCaller): Promise<void> {
    const seconds = url.searchParams.get('timeout');
    const timeoutMs = seconds === null ? 30_000 : /^\d+(\.\d+)?$/.test(seconds) ? Math.round(Number(seconds) * 1000) : seconds;
    const params = { timeoutMs, ...query(url, ['after']), ...(url.searchParams.get('peek') === '1' ? { peek: true } : {}) };
    const who = caller.who.handle;
    const mine = this.waitsOf.get(who) ?? 0;
    if (this.waits >= MAX_WAITS || mine >= MAX_WAITS_PER_CALLER) {
      const open = this.waits >= MAX_WAITS ? `${this.waits} long polls are open` : `${who} has ${mine} long polls open`;
      return answerError(res, swbError('HUB_BUSY', `${open}, the limit; try again shortly.`, { retryAfterMs: 1000 }));
    }
    this.waits += 1;
    this.waitsOf.set(who, mine + 1);
    const done = (): void => {
      this.waits -= 1;
      const left = (this.waitsOf.get(who) ?? 1) - 1;
      if (left > 0) this.waitsOf.set(who, left);
      else this.waitsOf.delete(who);
    };
    let client;
    try {
      client = await this.hub.open(caller);
    } catch (err) {
      done();
      return answerError(res, asError(err, 'The hub could not be reached'));
    }
    const left = (): void => client.destroy();
    res.once('close', left);
    try {
      const wait = typeof timeoutMs === 'number' ? timeoutMs : 0;
      const found = await this.hub.callOn(client, 'mail.wait', params, wait + WAIT_GRACE_MS);
      if (!res.destroyed) this.answer(res, found);
    } finally {
      done();
      res.off('close', left);
      client.destroy();
    }
  }

  /** GET /api/peers?after=&limit=&online=1 */
  private async peers(res: ServerResponse, url: URL, caller: WebCaller): Promise<void> {
    const params = { ...query(url, ['limit'], ['after']), ...(url.searchParams.get('online') === '1' ? { onlineOnly: true } : {}) };
    this.answer(res, await this.hub.call(caller, 'peers.list', params));
  }
}

/** "@name" → "name": a handle written as swb send writes it. */
function unAt(v: unknown): unknown {
  return typeof v === 'string' && v.startsWith('@') ? v.slice(1) : v;
}

/** An integer-looking string as a number; anything else as is (the hub's schema says what is wrong). */
function numberish(v: string): number | string {
  return /^\d{1,15}$/.test(v) ? Number(v) : v;
}

/** The named query parameters present in `url`: numbers where they look like numbers, except `text` ones (handles). */
function query(url: URL, names: readonly string[], text: readonly string[] = []): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const n of [...names, ...text]) {
    const v = url.searchParams.get(n);
    if (v !== null) out[n] = text.includes(n) ? v : numberish(v);
  }
  return out;
}
