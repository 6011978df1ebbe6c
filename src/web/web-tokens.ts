// The web listener's credentials: tokens (what `swb web` prints in the URL, and what a script sends
// as a bearer token) and the cookies a browser gets for one. Only their SHA-256 hashes are kept, in a
// 0600 file in the runtime directory, so the listener accepts them again after a server restart while
// a row that reads the file learns nothing it could present. The plain token exists only in the
// answer to `swb web` (an operator-only hub method, refused to a row's process tree). `rotate`
// revokes every token and every cookie at once. A token may be view-only: what it (and a cookie got
// for it) speaks as is a read-only operator.
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

  /** Exchanges a valid token for a fresh cookie value (with the same rights), or null. */
  cookieFor(token: string): { value: string; maxAgeSeconds: number } | null {
    const t = find(this.tokens, token);
    if (!t) return null;
    const value = mint();
    const at = this.now();
    this.cookies = this.cookies.filter((c) => (c.expiresAt ?? 0) > at);
    this.cookies.push({ hash: hashOf(value), readOnly: t.readOnly, expiresAt: at + this.cookieMaxAgeMs });
    if (this.cookies.length > MAX_COOKIES) this.cookies.splice(0, this.cookies.length - MAX_COOKIES);
    this.save();
    return { value, maxAgeSeconds: Math.floor(this.cookieMaxAgeMs / 1000) };
  }

  /** Who a cookie speaks as, or null for no such cookie or an expired one. */
  identityOfCookie(value: string): WebIdentity | null {
    const c = find(this.cookies, value);
    if (!c || (c.expiresAt ?? 0) <= this.now()) return null;
    return { handle: OPERATOR, readOnly: c.readOnly };
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
      this.cookies = (Array.isArray(parsed.cookies) ? parsed.cookies : []).filter(valid).filter((c) => typeof c.expiresAt === 'number').slice(-MAX_COOKIES);
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
