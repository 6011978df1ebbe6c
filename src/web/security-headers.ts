// The headers every answer of the web listener carries, in one place so no route can forget one.
// The page is bundled files served by swb itself: no inline script or style, nothing from another
// origin, never framed (clickjacking), content types never sniffed, no Referer leaking the URL a
// token may once have been part of. The WebSocket is same-origin, so 'self' covers it (ws: and wss:
// are listed for browsers that do not map 'self' to them).
import type { ServerResponse } from 'node:http';

export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self' ws: wss:",
  "manifest-src 'self'",
  "worker-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const SECURITY_HEADERS: ReadonlyArray<readonly [string, string]> = [
  ['Content-Security-Policy', CONTENT_SECURITY_POLICY],
  ['X-Content-Type-Options', 'nosniff'],
  ['Referrer-Policy', 'no-referrer'],
  ['X-Frame-Options', 'DENY'],
  ['Cross-Origin-Opener-Policy', 'same-origin'],
  ['Cross-Origin-Resource-Policy', 'same-origin'],
  ['Cache-Control', 'no-store'],
];

/** Sets the security headers on `res` (before anything is written). */
export function applySecurityHeaders(res: ServerResponse, tls: boolean): void {
  for (const [name, value] of SECURITY_HEADERS) res.setHeader(name, value);
  if (tls) res.setHeader('Strict-Transport-Security', 'max-age=31536000');
}
