// The session cookie's wire form: its name, the Set-Cookie line (HttpOnly so page script never sees
// it, SameSite=Strict so no other site's request carries it, Secure under TLS, a Max-Age so it ends)
// and reading it back from a Cookie header without trusting anything else the header holds.
export const COOKIE_NAME = 'swb_web';

export function setCookieLine(value: string, maxAgeSeconds: number, secure: boolean): string {
  return `${COOKIE_NAME}=${value}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}${secure ? '; Secure' : ''}`;
}

/** The session cookie's value in a Cookie header, or undefined. */
export function cookieFrom(header: string | undefined): string | undefined {
  if (!header || header.length > 8192) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === COOKIE_NAME) return part.slice(eq + 1).trim();
  }
  return undefined;
}
