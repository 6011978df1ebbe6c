// A real hub and a real web listener in this process, over a temp SWB_HOME: the WebServing the
// workspace server uses, with a small PageService that records who each page is and echoes its
// frames (the real page session is web-rows' part). Plus the clients a test needs: a login as the
// page does it (POST /login: the cookie and the page key), and a WebSocket through `ws` with chosen
// headers.
import { WebSocket } from 'ws';
import { WebServing, type WebSettings } from '../../src/server/web-serving.js';
import type { PageService, PageSocket, WebIdentity } from '../../src/web/web-contract.js';
import type { PageSocketLimits } from '../../src/web/page-socket.js';
import { toDisposable } from '../../src/util/lifecycle.js';
import { deferCleanup } from './cleanup.js';
import { startTestHub, type TestHub } from './hub-harness.js';
import { waitUntil } from './wait-until.js';

export interface OpenedPage {
  socket: PageSocket;
  who: WebIdentity;
  frames: unknown[];
  closed: boolean;
}

export interface TestWeb extends TestHub {
  serving: WebServing;
  pages: OpenedPage[];
  /** The listener's base URL, e.g. http://127.0.0.1:PORT */
  base: string;
  /** A fresh token from `swb web`'s method (readOnly: a view-only one). */
  token(readOnly?: boolean): Promise<string>;
  /** Logs in with a fresh token as the page does (POST /login): the cookie and the page key. */
  login(readOnly?: boolean): Promise<PageLogin>;
}

/** A page's login: both halves, and the headers that send them on a request. */
export interface PageLogin {
  /** `swb_web=VALUE`, as a Cookie header. */
  cookie: string;
  pageKey: string;
  /** cookie + X-Swb-Page-Key. */
  headers: { cookie: string; 'x-swb-page-key': string };
}

/** The token a login URL carries (in its fragment: /login#token=…). */
export function tokenOfLoginUrl(loginUrl: string): string {
  const token = new URLSearchParams(new URL(loginUrl).hash.slice(1)).get('token');
  if (!token) throw new Error(`no token in ${loginUrl}`);
  return token;
}

/** POST /login {token} from the page's own origin: the cookie it sets and the page key it answers. */
export async function loginWithToken(base: string, token: string): Promise<PageLogin> {
  const res = await fetch(`${base}/login`, { method: 'POST', headers: { 'content-type': 'application/json', origin: new URL(base).origin }, body: JSON.stringify({ token }) });
  if (res.status !== 200) throw new Error(`login answered ${res.status}`);
  const { pageKey } = (await res.json()) as { pageKey: string };
  const cookie = cookieOf(res);
  return { cookie, pageKey, headers: { cookie, 'x-swb-page-key': pageKey } };
}

/** `url` with the page key in its query (how a page's WebSocket carries it). */
export function withPageKey(url: string, login: PageLogin | string): string {
  const key = typeof login === 'string' ? login : login.pageKey;
  return `${url}${url.includes('?') ? '&' : '?'}pageKey=${encodeURIComponent(key)}`;
}

/** Records each page and answers every frame with {t:'push', topic:'echo', data: frame}. */
export function recordingPages(pages: OpenedPage[]): PageService {
  return {
    open(socket, who) {
      const page: OpenedPage = { socket, who, frames: [], closed: false };
      pages.push(page);
      const a = socket.onMessage((m) => {
        page.frames.push(m);
        socket.send({ t: 'push', topic: 'echo', data: m });
      });
      const b = socket.onClose(() => (page.closed = true));
      socket.send({ t: 'hello', version: 1, workspace: 'test', readOnly: who.readOnly, serverVersion: 'test' });
      return toDisposable(() => {
        a.dispose();
        b.dispose();
      });
    },
  };
}

export async function startTestWeb(
  opts: { settings?: WebSettings; staticDir?: string; limits?: Partial<PageSocketLimits>; hubLimits?: Parameters<typeof startTestHub>[0]; now?: () => number } = {},
): Promise<TestWeb> {
  const hub = await startTestHub(opts.hubLimits ?? {});
  const pages: OpenedPage[] = [];
  const serving = new WebServing({
    paths: hub.paths,
    ...(opts.settings ? { settings: opts.settings } : {}),
    pages: recordingPages(pages),
    rowOfToken: (t) => hub.hub.core.sessions.rowOfToken(t),
    ...(opts.staticDir ? { staticDir: opts.staticDir } : {}),
    ...(opts.limits ? { limits: opts.limits } : {}),
    ...(opts.now ? { now: opts.now } : {}),
    log: () => undefined,
  });
  deferCleanup('web serving', () => serving.dispose());
  const first = await serving.web({});
  if ('error' in first) throw new Error(`${first.error.code}: ${first.error.message}`);
  const base = first.ok.url.replace(/\/$/, '');
  const token = async (readOnly = false): Promise<string> => {
    const r = await serving.web(readOnly ? { readOnly: true } : {});
    if ('error' in r) throw new Error(`${r.error.code}: ${r.error.message}`);
    return tokenOfLoginUrl(r.ok.loginUrl!);
  };
  const login = async (readOnly = false): Promise<PageLogin> => loginWithToken(base, await token(readOnly));
  return { ...hub, serving, pages, base, token, login };
}

/** The `name=value` of a response's Set-Cookie. */
export function cookieOf(res: Response): string {
  const line = res.headers.get('set-cookie') ?? '';
  return line.split(';')[0]!;
}

/** Opens a WebSocket with the given headers; resolves once open, or with the HTTP status it was refused with. */
export function openSocket(url: string, headers: Record<string, string>): Promise<{ ws: WebSocket; frames: unknown[] } | { refused: number }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    const frames: unknown[] = [];
    ws.on('message', (d) => frames.push(JSON.parse(String(d))));
    ws.once('open', () => {
      deferCleanup('test websocket', () => ws.terminate());
      resolve({ ws, frames });
    });
    ws.once('unexpected-response', (_req, res) => {
      resolve({ refused: res.statusCode ?? 0 });
      ws.terminate();
    });
    ws.once('error', (err) => reject(err));
  });
}

/** Waits for a frame matching `pick` among `frames`. */
export function frameWhere<T>(frames: unknown[], pick: (f: any) => boolean, what: string): Promise<T> {
  return waitUntil(() => frames.find(pick) as T | undefined, { what, timeoutMs: 10_000 }) as Promise<T>;
}
