// The browser client's listener (issue #32): one HTTP(S) server that serves the page's files, turns
// the token of `swb web`'s URL into a cookie, upgrades /ws to the page's WebSocket (handed to the
// PageService) and /api/ws to the Intercom event stream, and routes /api/* to the Intercom HTTP API.
// Every request passes the same gate first, in this order: the security headers, Host (DNS
// rebinding), Origin (the page's own origin only: cross-site requests, WebSocket hijacking, and a
// row's dev server on another port of localhost), then the credential — a cookie together with its
// page key (X-Swb-Page-Key, or `pageKey` in a WebSocket's query), or for the API a bearer token — and
// whoever has none is told 401 and nothing else. The login: `swb web` prints /login#token=…; that page
// (login.html, public) reads the token from the fragment, which no server ever sees, and POSTs it to
// /login, whose answer sets the cookie and hands the page its key (web-tokens.ts says why both).
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { networkInterfaces } from 'node:os';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Disposable } from '../util/lifecycle.js';
import { BoundedPageSocket, DEFAULT_PAGE_SOCKET_LIMITS, type PageSocketLimits } from './page-socket.js';
import { answerError, answerJson } from './api-answer.js';
import { PAGE_KEY_HEADER } from './page-protocol.js';
import { readJsonBody } from './read-json-body.js';
import { hostAllowed, hostRules, isLoopback, originAllowed, sameOrigin, type HostRules } from './request-guard.js';
import { applySecurityHeaders } from './security-headers.js';
import { StaticFiles } from './static-files.js';
import { cookieFrom, setCookieLine } from './web-cookie.js';
import type { PageService, WebIdentity } from './web-contract.js';
import type { WebTokens } from './web-tokens.js';

/** Longest request target we read (a token URL is ~100 bytes; an API query a few hundred). */
const MAX_URL_BYTES = 4096;
const WILDCARDS: ReadonlySet<string> = new Set(['0.0.0.0', '::']);
/** A login body is `{"token": "…"}`: a few dozen bytes. */
const MAX_LOGIN_BYTES = 1024;
/** The public files of the login page (served without a credential: they hold no secret; the icon spares a 401 for the browser's favicon). */
const LOGIN_PAGE = '/login.html';
const PUBLIC_FILES: ReadonlySet<string> = new Set(['/login.js', '/icon-192.png']);

export interface WebAddress {
  bind: string;
  /** 0: any free port. */
  port: number;
  /** PEM; both or neither. */
  tls?: { cert: string | Buffer; key: string | Buffer } | null;
  /** host[:port] names beyond the bound address that the listener answers to (e.g. a tailnet name). */
  allowedHosts?: readonly string[];
}

/** Who an API request speaks as: the operator (web token or cookie), or a row (its own SWB_TOKEN). */
export interface WebCaller {
  who: WebIdentity;
  /** The row's token, when a row speaks (the API connects to the hub with it). */
  rowToken?: string;
}

/** The Intercom API, mounted under /api/ (api-routes.ts). */
export interface ApiMount {
  /** Answers one request of an authenticated caller (path under /api/). */
  handle(req: IncomingMessage, res: ServerResponse, url: URL, caller: WebCaller): Promise<void>;
  /** /api/ws: pushes what `swb events` streams to `socket` as `caller` (filters in `url`'s query); disposed when it closes. */
  openEvents(socket: BoundedPageSocket, caller: WebCaller, url: URL): Disposable;
}

export interface WebServerOptions extends WebAddress {
  tokens: WebTokens;
  pages: PageService;
  /** dist/web/: the page's bundled files. */
  staticDir: string;
  api?: ApiMount;
  /** The handle of the row whose current SWB_TOKEN this is, or null (the hub's session registry). */
  rowOfToken?: (token: string) => string | null;
  limits?: Partial<PageSocketLimits>;
  log?: (line: string) => void;
}

export class WebServer {
  private readonly server: Server;
  private readonly wss: WebSocketServer;
  private readonly files: StaticFiles;
  private readonly limits: PageSocketLimits;
  /** Open WebSockets, and whether a web credential (not a row's own token) opened each. */
  private readonly sockets = new Map<WebSocket, boolean>();
  private rules!: HostRules;
  private boundPort = 0;
  private closing: Promise<void> | null = null;

  static async start(o: WebServerOptions): Promise<WebServer> {
    const web = new WebServer(o);
    await web.listen();
    return web;
  }

  private constructor(private readonly o: WebServerOptions) {
    this.limits = { ...DEFAULT_PAGE_SOCKET_LIMITS, ...o.limits };
    this.files = new StaticFiles(o.staticDir);
    const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
      this.request(req, res).catch((err: unknown) => {
        o.log?.(`web: ${req.method} failed: ${err instanceof Error ? err.stack : String(err)}`);
        if (!res.headersSent) plain(res, 500, 'Internal error');
        else res.destroy();
      });
    };
    this.server = o.tls ? createHttpsServer({ cert: o.tls.cert, key: o.tls.key }, onRequest) : createHttpServer(onRequest);
    // A slow client cannot hold a request open: headers within 10 s, the whole request within 30 s.
    this.server.headersTimeout = 10_000;
    this.server.requestTimeout = 30_000;
    this.server.maxHeadersCount = 64;
    // Frames over the cap are refused by `ws` before they are buffered; no compression (its memory
    // and CPU are the other side's to choose).
    this.wss = new WebSocketServer({ noServer: true, maxPayload: this.limits.maxFrameBytes, perMessageDeflate: false, clientTracking: false });
    this.server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => this.upgrade(req, socket, head));
    this.server.on('clientError', (_err, socket: Duplex) => socket.destroy());
  }

  private async listen(): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen({ host: this.o.bind, port: this.o.port }, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    const address = this.server.address();
    this.boundPort = typeof address === 'object' && address ? address.port : this.o.port;
    const extra = [...(this.o.allowedHosts ?? [])];
    // Bound to every address: each of the machine's own addresses names it.
    if (WILDCARDS.has(this.o.bind)) {
      for (const list of Object.values(networkInterfaces())) {
        for (const a of list ?? []) extra.push(`${a.family === 'IPv6' ? `[${a.address}]` : a.address}:${this.boundPort}`);
      }
    }
    this.rules = hostRules(this.o.bind, this.boundPort, extra);
  }

  get port(): number {
    return this.boundPort;
  }

  get tls(): boolean {
    return Boolean(this.o.tls);
  }

  get bind(): string {
    return this.o.bind;
  }

  /** The page's address (without a token). */
  get url(): string {
    const host = WILDCARDS.has(this.o.bind) ? (isLoopback(this.o.bind) ? '127.0.0.1' : firstAddress() ?? this.o.bind) : this.o.bind;
    const literal = host.includes(':') ? `[${host}]` : host;
    return `${this.tls ? 'https' : 'http'}://${literal}:${this.boundPort}/`;
  }

  /** The page's address carrying `token` in its fragment, which the browser never sends (what `swb web` prints once). */
  loginUrl(token: string): string {
    return `${this.url}login#token=${encodeURIComponent(token)}`;
  }

  /** Closes every WebSocket a web token or cookie opened (after `swb web --rotate`: that credential is gone). */
  dropSockets(): void {
    for (const [ws, web] of this.sockets) if (web) ws.close(1008, 'credentials revoked');
  }

  close(): Promise<void> {
    this.closing ??= new Promise<void>((resolve) => {
      for (const ws of this.sockets.keys()) ws.terminate();
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
    return this.closing;
  }

  /**
   * The credential of a request: its cookie with the page key minted with it, or (API only) a bearer
   * token — the web token or a row's, which no browser sends on its own, so it needs no page key.
   */
  private authenticate(req: IncomingMessage, api: boolean, pageKey: string | undefined): WebCaller | null {
    const cookie = cookieFrom(req.headers.cookie);
    if (cookie !== undefined) {
      const who = this.o.tokens.identityOfCookie(cookie, pageKey);
      if (who) return { who };
    }
    if (!api) return null;
    const auth = req.headers.authorization;
    const m = auth && auth.length < 512 ? /^Bearer ([A-Za-z0-9._~+/=-]+)$/.exec(auth) : null;
    if (!m) return null;
    const token = m[1]!;
    const who = this.o.tokens.identityOfToken(token);
    if (who) return { who };
    const row = this.o.rowOfToken?.(token) ?? null;
    return row ? { who: { handle: row, readOnly: false }, rowToken: token } : null;
  }

  /** Host and Origin, or why not (already answered). */
  private guard(req: IncomingMessage, res: ServerResponse): boolean {
    if (!hostAllowed(req.headers.host, this.rules)) {
      plain(res, 421, 'Misdirected request');
      return false;
    }
    if (!originAllowed(req.headers.origin, this.rules) || !sameOrigin(req.headers.origin, req.headers.host, this.tls)) {
      plain(res, 403, 'Forbidden');
      return false;
    }
    return true;
  }

  private async request(req: IncomingMessage, res: ServerResponse): Promise<void> {
    applySecurityHeaders(res, this.tls);
    if (!this.guard(req, res)) return;
    const target = req.url ?? '/';
    if (target.length > MAX_URL_BYTES) return plain(res, 414, 'URI too long');
    let url: URL;
    try {
      url = new URL(target, 'http://swb.invalid');
    } catch {
      return plain(res, 400, 'Bad request');
    }
    const method = req.method ?? 'GET';
    const token = url.searchParams.get('token');
    if (url.pathname === '/login' && method === 'POST') return this.login(req, res);
    if (url.pathname === '/login' || (url.pathname === '/' && token !== null)) return this.loginPage(res, method, token);
    if (PUBLIC_FILES.has(url.pathname)) return this.serveFile(res, method, url.pathname);
    const api = url.pathname.startsWith('/api/');
    // A page sends its key in a header over HTTP; a WebSocket, which cannot set headers, sends `?pageKey=`.
    const pageKey = headerValue(req.headers[PAGE_KEY_HEADER]);
    const caller = this.authenticate(req, api, pageKey);
    if (api) {
      if (!caller) return unauthorized(res, true);
      if (!this.o.api) return plain(res, 404, 'Not found');
      return this.o.api.handle(req, res, url, caller);
    }
    // The page's own files: the public bundle, which a navigation (no header) must be able to load.
    const cookie = cookieFrom(req.headers.cookie);
    if (!caller && (cookie === undefined || !this.o.tokens.cookieOpensShell(cookie))) return unauthorized(res, false);
    return this.serveFile(res, method, url.pathname);
  }

  private serveFile(res: ServerResponse, method: string, pathname: string): void {
    if (method !== 'GET' && method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD');
      return plain(res, 405, 'Method not allowed');
    }
    const file = this.files.lookup(pathname);
    if (!file) return plain(res, 404, 'Not found');
    res.writeHead(200, { 'Content-Type': file.contentType, 'Content-Length': file.body.length });
    res.end(method === 'HEAD' ? undefined : file.body);
  }

  /**
   * GET /login: the login page, which reads the token from its fragment and POSTs it. An old URL
   * (`/?token=` or `/login?token=`) is checked and sent there with the token moved to the fragment,
   * so no later request carries it.
   */
  private loginPage(res: ServerResponse, method: string, token: string | null): void {
    if (method !== 'GET' && method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD, POST');
      return plain(res, 405, 'Method not allowed');
    }
    if (token === null) return this.serveFile(res, method, LOGIN_PAGE);
    if (!this.o.tokens.identityOfToken(token)) return unauthorized(res, false);
    res.writeHead(303, { Location: `/login#token=${encodeURIComponent(token)}`, 'Content-Length': 0 });
    res.end();
  }

  /** POST /login `{token}`: a valid token becomes an HttpOnly cookie and the page key the page keeps. */
  private async login(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readJsonBody(req, MAX_LOGIN_BYTES);
    if ('error' in body) return answerError(res, body.error);
    const token = typeof body.ok === 'object' && body.ok !== null ? (body.ok as { token?: unknown }).token : undefined;
    const login = typeof token === 'string' ? this.o.tokens.loginWith(token) : null;
    if (!login) return unauthorized(res, true);
    res.setHeader('Set-Cookie', setCookieLine(login.cookie, login.maxAgeSeconds, this.tls));
    answerJson(res, 200, { pageKey: login.pageKey, readOnly: login.readOnly, maxAgeSeconds: login.maxAgeSeconds });
  }

  private upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    socket.on('error', () => socket.destroy());
    const refuse = (status: number, text: string): void => {
      socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    };
    if (this.closing) return refuse(503, 'Service Unavailable');
    if (!hostAllowed(req.headers.host, this.rules)) return refuse(421, 'Misdirected Request');
    if (!originAllowed(req.headers.origin, this.rules) || !sameOrigin(req.headers.origin, req.headers.host, this.tls)) return refuse(403, 'Forbidden');
    const target = req.url ?? '';
    if (target.length > MAX_URL_BYTES) return refuse(414, 'URI Too Long');
    let url: URL;
    try {
      url = new URL(target, 'http://swb.invalid');
    } catch {
      return refuse(400, 'Bad Request');
    }
    const path = url.pathname;
    if (path !== '/ws' && path !== '/api/ws') return refuse(404, 'Not Found');
    const api = path === '/api/ws';
    if (api && !this.o.api) return refuse(404, 'Not Found');
    const caller = this.authenticate(req, api, url.searchParams.get('pageKey') ?? undefined);
    if (!caller) return refuse(401, 'Unauthorized');
    this.wss.handleUpgrade(req, socket, head, (ws) => {
      this.sockets.set(ws, caller.rowToken === undefined);
      const page = new BoundedPageSocket(ws, this.limits);
      const session = api ? this.o.api!.openEvents(page, caller, url) : this.o.pages.open(page, caller.who);
      page.onClose(() => {
        this.sockets.delete(ws);
        session.dispose();
      });
    });
  }
}

function plain(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

/** 401, nothing else said: not whether a token existed, expired or was revoked. */
function unauthorized(res: ServerResponse, api: boolean): void {
  if (!api) return plain(res, 401, 'Unauthorized');
  const body = JSON.stringify({ error: { code: 'UNAUTHENTICATED', message: 'Unauthorized.' } });
  res.writeHead(401, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

function headerValue(h: string | string[] | undefined): string | undefined {
  return Array.isArray(h) ? undefined : h;
}

/** The machine's first non-internal IPv4 address (for the URL of a wildcard bind). */
function firstAddress(): string | undefined {
  for (const list of Object.values(networkInterfaces())) {
    for (const a of list ?? []) if (!a.internal && a.family === 'IPv4') return a.address;
  }
  return undefined;
}
