// The workspace server's browser listener (issue #32): when it runs, where, with which credentials.
// `swb web` reaches it through the operator-only hub method `server.web` (ServerControl.web): it
// starts the listener (or moves it to a new --port/--bind), revokes every credential on --rotate,
// and mints the fresh token the URL carries. The config's `web` section starts it with the server.
// Binding anything but loopback needs TLS or an explicit --insecure (which is warned about).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { swbError, type SwbErrorValue } from '../protocol/error-codes.js';
import type { WebParams } from '../protocol/method-params.js';
import type { ControlResult, WebAnswer } from '../hub/server-control.js';
import type { RuntimePaths } from '../hub/runtime-paths.js';
import { packageRoot } from '../util/package-root.js';
import type { Disposable } from '../util/lifecycle.js';
import { isLoopback } from '../web/request-guard.js';
import { ApiEvents } from '../web/api-events.js';
import { ApiHub } from '../web/api-hub.js';
import { IntercomApi } from '../web/api-routes.js';
import type { WebServer, WebAddress } from '../web/web-server.js';
import { WebTokens } from '../web/web-tokens.js';
import type { PageService } from '../web/web-contract.js';
import type { PageSocketLimits } from '../web/page-socket.js';

/** The config's `web` section, as the server uses it. */
export interface WebSettings {
  /** Serve the page from the server's start (default: only once `swb web` asks). */
  start?: boolean;
  port?: number;
  bind?: string;
  tlsCert?: string;
  tlsKey?: string;
  insecure?: boolean;
  allowedHosts?: string[];
  cookieHours?: number;
}

export const DEFAULT_WEB_BIND = '127.0.0.1';

export interface WebServingOptions {
  paths: RuntimePaths;
  settings?: WebSettings;
  pages: PageService;
  /** The row whose current SWB_TOKEN this is, or null (the hub's session registry). */
  rowOfToken?: (token: string) => string | null;
  /** dist/web/ unless a test says otherwise. */
  staticDir?: string;
  limits?: Partial<PageSocketLimits>;
  /** Wall-clock time for cookie expiry (tests move it; default Date.now). */
  now?: () => number;
  log: (line: string) => void;
}

interface Wanted {
  bind: string;
  port: number;
  tlsCert?: string;
  tlsKey?: string;
  insecure: boolean;
}

export class WebServing implements Disposable {
  readonly tokens: WebTokens;
  /** The Intercom API's connections to the hub, as each credential (kept across listener moves). */
  private readonly apiHub: ApiHub;
  private readonly api: IntercomApi;
  private server: WebServer | null = null;
  private current: Wanted | null = null;
  /** One change of the listener at a time (two `swb web` at once must not both listen). */
  private queue: Promise<unknown> = Promise.resolve();
  private disposed = false;

  constructor(private readonly o: WebServingOptions) {
    this.apiHub = new ApiHub({ socketPath: o.paths.socketPath, operatorTokenFile: o.paths.operatorTokenFile });
    this.api = new IntercomApi(this.apiHub, new ApiEvents(this.apiHub));
    this.tokens = new WebTokens({
      file: join(o.paths.runDir, 'web-tokens.json'),
      ...(o.settings?.cookieHours !== undefined ? { cookieHours: o.settings.cookieHours } : {}),
      ...(o.now ? { now: o.now } : {}),
    });
  }

  /** The listener, when it runs (tests and the page session read its address). */
  get listener(): WebServer | null {
    return this.server;
  }

  /** Starts the listener when the config says so; a failure is logged, not fatal (the rows matter more). */
  async startFromConfig(): Promise<void> {
    if (!this.o.settings?.start) return;
    const r = await this.serialized(() => this.ensure({}));
    if ('error' in r) this.o.log(`web: not started: ${r.error.code}: ${r.error.message}`);
    else this.o.log(`web: serving ${this.server!.url}`);
  }

  /** `swb web`: start or move the listener, rotate if asked, and mint a fresh token for the URL. */
  web(p: WebParams): Promise<ControlResult<WebAnswer>> {
    return this.serialized(async () => {
      const started = await this.ensure(p);
      if ('error' in started) return started;
      if (p.rotate) {
        this.tokens.rotate();
        this.server!.dropSockets();
      }
      const readOnly = p.readOnly === true;
      const token = this.tokens.mintToken(readOnly);
      const web = this.server!;
      return {
        ok: { url: web.url, loginUrl: web.loginUrl(token), readOnly, bind: web.bind, port: web.port, tls: web.tls, rotated: p.rotate === true, warnings: started.ok },
      };
    });
  }

  private serialized<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(work, work);
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** The listener as asked (what was not asked stays as it is, or as the config says); the warnings to say. */
  private async ensure(p: WebParams): Promise<{ ok: string[] } | { error: SwbErrorValue }> {
    if (this.disposed) return { error: swbError('SHUTTING_DOWN', 'The server is stopping.') };
    const s = this.o.settings ?? {};
    const before = this.current;
    const tlsAsked = p.tlsCert !== undefined || p.tlsKey !== undefined;
    const wanted: Wanted = {
      bind: p.bind ?? before?.bind ?? s.bind ?? DEFAULT_WEB_BIND,
      port: p.port ?? before?.port ?? s.port ?? 0,
      ...(tlsAsked ? pick(p.tlsCert, p.tlsKey) : before ? pick(before.tlsCert, before.tlsKey) : pick(s.tlsCert, s.tlsKey)),
      insecure: p.insecure ?? before?.insecure ?? s.insecure ?? false,
    };
    if ((wanted.tlsCert === undefined) !== (wanted.tlsKey === undefined)) {
      return { error: swbError('BAD_REQUEST', 'TLS needs both --tls-cert and --tls-key.') };
    }
    const tlsOn = wanted.tlsCert !== undefined;
    const warnings: string[] = [];
    if (!isLoopback(wanted.bind)) {
      if (!tlsOn && !wanted.insecure) {
        return {
          error: swbError(
            'BAD_REQUEST',
            `Serving on ${wanted.bind} (not loopback) needs TLS (--tls-cert FILE --tls-key FILE) or an explicit --insecure: anyone on that network could read the token and the rows' screens otherwise.`,
          ),
        };
      }
      if (!tlsOn) warnings.push(`WARNING: the page is served on ${wanted.bind} without TLS (--insecure): the token, the cookie and every row's screen cross the network in the clear.`);
    }
    const same = this.server && before && before.bind === wanted.bind && (p.port === undefined || p.port === before.port || (p.port === 0 && before.port === this.server.port)) && before.tlsCert === wanted.tlsCert && before.tlsKey === wanted.tlsKey;
    if (same) {
      this.current = { ...wanted, port: before.port };
      return { ok: warnings };
    }
    let tls: WebAddress['tls'] = null;
    if (tlsOn) {
      try {
        tls = { cert: readFileSync(wanted.tlsCert!), key: readFileSync(wanted.tlsKey!) };
      } catch (err) {
        return { error: swbError('BAD_REQUEST', `The TLS certificate or key could not be read: ${(err as Error).message}.`) };
      }
    }
    const old = this.server;
    this.server = null;
    await old?.close();
    try {
      // Loaded on first use: `ws` and node:http(s) cost a server that never serves the page nothing.
      const { WebServer } = await import('../web/web-server.js');
      this.server = await WebServer.start({
        bind: wanted.bind,
        port: wanted.port,
        tls,
        ...(this.o.settings?.allowedHosts ? { allowedHosts: this.o.settings.allowedHosts } : {}),
        tokens: this.tokens,
        pages: this.o.pages,
        staticDir: this.o.staticDir ?? join(packageRoot(), 'dist', 'web'),
        api: this.api,
        ...(this.o.rowOfToken ? { rowOfToken: this.o.rowOfToken } : {}),
        ...(this.o.limits ? { limits: this.o.limits } : {}),
        log: this.o.log,
      });
    } catch (err) {
      this.current = null;
      const e = err as NodeJS.ErrnoException;
      return { error: swbError('BAD_REQUEST', `The page could not be served on ${wanted.bind} port ${wanted.port}: ${e.code ?? e.message}.`) };
    }
    if (this.disposed) {
      // The server began stopping while this one started: it must not outlive it.
      await this.server.close();
      this.server = null;
      return { error: swbError('SHUTTING_DOWN', 'The server is stopping.') };
    }
    // A port of 0 took a free one: it stays that one until asked otherwise.
    this.current = { ...wanted, port: this.server.port };
    this.o.log(`web: listening on ${this.server.url}`);
    return { ok: warnings };
  }

  dispose(): void {
    this.disposed = true;
    this.apiHub.dispose();
    void this.server?.close();
    this.server = null;
  }
}

function pick(tlsCert: string | undefined, tlsKey: string | undefined): { tlsCert?: string; tlsKey?: string } {
  return { ...(tlsCert !== undefined ? { tlsCert } : {}), ...(tlsKey !== undefined ? { tlsKey } : {}) };
}
