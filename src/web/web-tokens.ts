// The web listener's credentials: tokens (what `swb web` prints in the URL, and what a script sends
// as a bearer token) and the cookies a browser gets for one. Only their SHA-256 hashes are kept, in a
// 0600 file in the runtime directory, so the listener accepts them again after a server restart while
// a row that reads the file learns nothing it could present. The plain token exists only in the
// answer to `swb web` (an operator-only hub method, refused to a row's process tree). `rotate`
// revokes every token and every cookie at once. A token may be view-only: what it (and a cookie got
// for it) speaks as is a read-only operator.
//
// A cookie alone is not a login. Browsers send a localhost cookie to every port of localhost, so a
// row's own dev server (localhost:3000) that the operator's browser visits receives it. Each cookie
// is therefore minted with a page key, a second secret handed to the page's script only (it keeps it
// in its origin's storage, which no other port can read), and a cookie is honoured only together
// with its own key. Both are kept as hashes; rotating drops them together.
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { OPERATOR } from '../protocol/handle.js';
import type { WebIdentity } from './web-contract.js';

/** Tokens kept at most: each `swb web` mints one; the oldest go first. */
const MAX_TOKENS = 64;
/** Cookies kept at most (a browser each); the oldest go first. */
const MAX_COOKIES = 256;
/** A cookie's lifetime unless the config says otherwise. */
export const DEFAULT_COOKIE_HOURS = 24 * 7;

interface Stored {
  hash: string;
  readOnly: boolean;
  /** Epoch ms; tokens have none (they last until rotated). */
  expiresAt?: number;
  /** Cookies only: the hash of the page key minted with the cookie. */
  keyHash?: string;
}

/** What a token is exchanged for: the cookie's value and the page key that must come with it. */
export interface WebLogin {
  cookie: string;
  pageKey: string;
  maxAgeSeconds: number;
  readOnly: boolean;
}

interface TokenFile {
  version: 1;
  tokens: Stored[];
  cookies: Stored[];
}

export interface WebTokensOptions {
  /** The 0600 file of hashes (null: in memory only, for tests). */
  file: string | null;
  cookieHours?: number;
  now?: () => number;
}

function hashOf(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

function mint(): string {
  return randomBytes(32).toString('base64url');
}

/** Looks a hash up in a list; the hash is of a 256-bit random secret, so a Map lookup leaks nothing useful. */
function find(list: Stored[], secret: string): Stored | undefined {
  if (secret.length === 0 || secret.length > 200) return undefined;
  const h = hashOf(secret);
  return list.find((s) => s.hash === h);
}

export class WebTokens {
  private tokens: Stored[] = [];
  private cookies: Stored[] = [];
  private readonly now: () => number;
  readonly cookieMaxAgeMs: number;

  constructor(private readonly o: WebTokensOptions) {
    this.now = o.now ?? Date.now;
    this.cookieMaxAgeMs = Math.round((o.cookieHours ?? DEFAULT_COOKIE_HOURS) * 3600_000);
    this.load();
  }

  /** A fresh token (the only time it exists in plain): full operator, or view-only. */
  mintToken(readOnly: boolean): string {
    const token = mint();
    this.tokens.push({ hash: hashOf(token), readOnly });
    if (this.tokens.length > MAX_TOKENS) this.tokens.splice(0, this.tokens.length - MAX_TOKENS);
    this.save();
    return token;
  }

  /** Who a token speaks as, or null for no such token. */
  identityOfToken(token: string): WebIdentity | null {
    const t = find(this.tokens, token);
    return t ? { handle: OPERATOR, readOnly: t.readOnly } : null;
  }

  /** Exchanges a valid token for a fresh cookie and its page key (with the token's rights), or null. */
  loginWith(token: string): WebLogin | null {
    const t = find(this.tokens, token);
    if (!t) return null;
    const cookie = mint();
    const pageKey = mint();
    const at = this.now();
    this.cookies = this.cookies.filter((c) => (c.expiresAt ?? 0) > at);
    this.cookies.push({ hash: hashOf(cookie), readOnly: t.readOnly, expiresAt: at + this.cookieMaxAgeMs, keyHash: hashOf(pageKey) });
    if (this.cookies.length > MAX_COOKIES) this.cookies.splice(0, this.cookies.length - MAX_COOKIES);
    this.save();
    return { cookie, pageKey, maxAgeSeconds: Math.floor(this.cookieMaxAgeMs / 1000), readOnly: t.readOnly };
  }

  /** Who a cookie presented with its page key speaks as; null for no such cookie, an expired one, or a missing or wrong key. */
  identityOfCookie(value: string, pageKey: string | undefined): WebIdentity | null {
    const c = find(this.cookies, value);
    if (!c || (c.expiresAt ?? 0) <= this.now()) return null;
    if (pageKey === undefined || pageKey.length === 0 || pageKey.length > 200 || hashOf(pageKey) !== c.keyHash) return null;
    return { handle: OPERATOR, readOnly: c.readOnly };
  }

  /**
   * Whether a cookie (without its key) may fetch the page's own files: a navigation cannot carry a
   * header, and those files are the same public bundle for everyone. Nothing that reads or changes
   * state is served on this alone.
   */
  cookieOpensShell(value: string): boolean {
    const c = find(this.cookies, value);
    return c !== undefined && (c.expiresAt ?? 0) > this.now();
  }

  /** Revokes every token and every cookie (`swb web --rotate`). */
  rotate(): void {
    this.tokens = [];
    this.cookies = [];
    this.save();
  }

  private load(): void {
    if (!this.o.file) return;
    let text: string;
    try {
      text = readFileSync(this.o.file, 'utf8');
    } catch {
      return; // none yet
    }
    try {
      const parsed = JSON.parse(text) as Partial<TokenFile>;
      const valid = (s: unknown): s is Stored =>
        typeof s === 'object' && s !== null && typeof (s as Stored).hash === 'string' && /^[0-9a-f]{64}$/.test((s as Stored).hash) && typeof (s as Stored).readOnly === 'boolean';
      this.tokens = (Array.isArray(parsed.tokens) ? parsed.tokens : []).filter(valid).slice(-MAX_TOKENS);
      // A cookie stored before page keys existed has no key to be presented with: it is dropped.
      this.cookies = (Array.isArray(parsed.cookies) ? parsed.cookies : [])
        .filter(valid)
        .filter((c) => typeof c.expiresAt === 'number' && typeof c.keyHash === 'string' && /^[0-9a-f]{64}$/.test(c.keyHash))
        .slice(-MAX_COOKIES);
    } catch {
      // A damaged file holds nothing we can trust: start with no credentials (swb web mints one).
    }
  }

  private save(): void {
    if (!this.o.file) return;
    const body: TokenFile = { version: 1, tokens: this.tokens, cookies: this.cookies };
    const tmp = `${this.o.file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(body), { mode: 0o600 });
    renameSync(tmp, this.o.file);
  }
}
