// Which Host and Origin a request may carry. A page on another site can make the operator's browser
// reach the listener two ways: DNS rebinding (its own name resolving to our address, so the browser
// sends Host: evil.example) and a cross-site WebSocket (the browser sends Origin: https://evil.example
// with the upgrade, and cookies are not what guards a WebSocket). So Host must name this listener —
// its bound address and port, a loopback name (an SSH forward arrives as localhost:ANY), or a name the
// config allows (a tailnet name behind `tailscale serve`) — and an Origin, when a browser sends one,
// must be this very page's origin: the request's own Host. Naming a loopback name is not enough: a
// row's dev server on localhost:3000 is another origin (though the same "site", so SameSite cookies
// reach it), and its page must not drive the listener on localhost:PORT.
import { isIP } from 'node:net';

const LOOPBACK_NAMES: ReadonlySet<string> = new Set(['localhost', '127.0.0.1', '[::1]']);

export interface HostRules {
  /** host[:port] strings the listener answers to (lower case), beyond the loopback names. */
  exact: ReadonlySet<string>;
  /** Loopback names on any port (only when the listener is bound to loopback). */
  loopbackAnyPort: boolean;
}

/** `bind` and `port` as the listener holds them; `extra` from the config's `web.allowedHosts`. */
export function hostRules(bind: string, port: number, extra: readonly string[] = []): HostRules {
  const exact = new Set<string>();
  const literal = isIP(bind) === 6 ? `[${bind}]` : bind;
  exact.add(`${literal}:${port}`.toLowerCase());
  for (const h of extra) exact.add(h.toLowerCase());
  return { exact, loopbackAnyPort: isLoopback(bind) };
}

export function isLoopback(address: string): boolean {
  return address === 'localhost' || address === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(address);
}

/** Whether `host` (a Host header, or an Origin's host part) names this listener. */
export function hostAllowed(host: string | undefined, rules: HostRules): boolean {
  if (!host || host.length > 300) return false;
  const h = host.toLowerCase();
  if (rules.exact.has(h)) return true;
  if (!rules.loopbackAnyPort) return false;
  const m = /^(\[[0-9a-f:]+\]|[a-z0-9.-]+)(?::(\d{1,5}))?$/.exec(h);
  return m !== null && LOOPBACK_NAMES.has(m[1]!);
}

/**
 * Whether an Origin header may drive the listener: absent (not a browser: curl, a script — they are
 * not the cross-site threat, and carry their own credential) or naming an allowed host over http(s).
 * "null" (a sandboxed frame, a file: page) is refused.
 */
export function originAllowed(origin: string | undefined, rules: HostRules): boolean {
  if (origin === undefined) return true;
  const m = /^https?:\/\/([^/]+)$/i.exec(origin);
  return m !== null && hostAllowed(m[1], rules);
}

/**
 * Whether an Origin is the page's own origin: absent (not a browser), or `scheme://` + the request's
 * own Host header, exactly. The scheme is the listener's, or https in front of a plain listener (a
 * proxy such as `tailscale serve` terminates TLS; no other server can hold the same host and port).
 */
export function sameOrigin(origin: string | undefined, host: string | undefined, tls: boolean): boolean {
  if (origin === undefined) return true;
  if (!host) return false;
  const m = /^(https?):\/\/([^/]+)$/i.exec(origin);
  if (!m) return false;
  const scheme = m[1]!.toLowerCase();
  if (tls && scheme !== 'https') return false;
  return m[2]!.toLowerCase() === host.toLowerCase();
}
