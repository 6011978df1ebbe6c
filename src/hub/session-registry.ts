// Who is who. Identity comes from the connection's hello, never from a request's payload:
//  - a row proves its handle with the token the TUI minted for it (many connections allowed:
//    an agent may run `swb wait` and `swb send` at once);
//  - `operator` needs the operator token (held in-process by the TUI, or in a 0600 file);
//  - anyone else may claim a free handle without a token, one live connection at a time, unless
//    the handle belongs to a row: that is remembered in the store and stays reserved across hub
//    restarts (after a restart no row token is known yet, and a tokenless hello must not take the
//    row's handle and read its mail) until the operator releases it.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { swbError, type SwbErrorValue } from '../protocol/error-codes.js';
import { OPERATOR, RESERVED_HANDLES } from '../protocol/handle.js';
import type { SessionRole } from '../protocol/methods.js';

export interface SessionIdentity {
  handle: string;
  role: SessionRole;
  /** True when proven by a token (rows, operator); tokenless claims are exclusive. */
  tokenHolder: boolean;
}

export function mintToken(): string {
  return randomBytes(24).toString('base64url');
}

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export class SessionRegistry<Conn> {
  private rowTokens = new Map<string, string>();
  private live = new Map<string, Map<Conn, SessionIdentity>>();
  /** Rows whose process runs: online whether or not they hold a connection right now. */
  private running = new Set<string>();

  /** `isReservedRow` says whether the store remembers `handle` as a row's (it survives restarts). */
  constructor(
    readonly operatorToken: string,
    private readonly isReservedRow: (handle: string) => boolean = () => false,
  ) {}

  /**
   * Registers (or re-registers, after a restart) a row and returns its fresh token. The previous
   * token stops working at once: `revoked` are the live connections that proved it, for the caller
   * to close.
   */
  registerRow(handle: string): { ok: true; token: string; revoked: Conn[] } | { ok: false; error: SwbErrorValue } {
    if (handle === OPERATOR || RESERVED_HANDLES.has(handle)) {
      return { ok: false, error: swbError('BAD_REQUEST', `${handle} is reserved and cannot name a row.`) };
    }
    const holders = this.live.get(handle);
    if (holders && [...holders.values()].some((id) => !id.tokenHolder)) {
      return { ok: false, error: swbError('SESSION_COLLISION', `${handle} is in use by a live participant without a token.`) };
    }
    const token = mintToken();
    this.rowTokens.set(handle, token);
    const revoked: Conn[] = [];
    for (const [conn, id] of holders ?? []) if (id.role === 'row') revoked.push(conn);
    for (const conn of revoked) this.release(conn, handle);
    return { ok: true, token, revoked };
  }

  /** A registered row's process started (true) or ended (false); returns whether its online state changed. */
  setRowRunning(handle: string, running: boolean): boolean {
    if (running && !this.rowTokens.has(handle)) return false;
    const before = this.isOnline(handle);
    if (running) this.running.add(handle);
    else this.running.delete(handle);
    return this.isOnline(handle) !== before;
  }

  isRowRunning(handle: string): boolean {
    return this.running.has(handle);
  }

  /** Forgets a row's token; returns its live connections (the caller closes them). */
  unregisterRow(handle: string): Conn[] {
    this.rowTokens.delete(handle);
    this.running.delete(handle);
    const revoked = [...(this.live.get(handle) ?? [])].filter(([, id]) => id.role === 'row').map(([conn]) => conn);
    for (const conn of revoked) this.release(conn, handle);
    return revoked;
  }

  /**
   * The row whose current token this is, or null: a token of a row since registered again (or
   * unregistered) names nobody. Compared in constant time against every row's token.
   */
  rowOfToken(token: string): string | null {
    let found: string | null = null;
    for (const [handle, expected] of this.rowTokens) if (sameSecret(token, expected)) found = handle;
    return found;
  }

  isRow(handle: string): boolean {
    return this.rowTokens.has(handle);
  }

  claim(conn: Conn, session: string | undefined, token: string | undefined): { ok: true; identity: SessionIdentity } | { ok: false; error: SwbErrorValue } {
    let identity: SessionIdentity;
    if (token !== undefined) {
      const handle = session ?? OPERATOR;
      if (handle === OPERATOR && sameSecret(token, this.operatorToken)) {
        identity = { handle, role: 'operator', tokenHolder: true };
      } else {
        const expected = this.rowTokens.get(handle);
        if (expected === undefined || !sameSecret(token, expected)) {
          return { ok: false, error: swbError('UNAUTHENTICATED', `The token does not match session ${handle}.`) };
        }
        identity = { handle, role: 'row', tokenHolder: true };
      }
    } else {
      if (session === undefined) return { ok: false, error: swbError('UNAUTHENTICATED', 'hello needs a session name or a token.') };
      if (session === OPERATOR) {
        return { ok: false, error: swbError('UNAUTHENTICATED', 'The operator session needs the operator token.') };
      }
      if (RESERVED_HANDLES.has(session)) return { ok: false, error: swbError('BAD_REQUEST', `${session} is reserved.`) };
      if (this.rowTokens.has(session) || this.isReservedRow(session)) {
        return {
          ok: false,
          error: swbError(
            'SESSION_COLLISION',
            `${session} belongs to a row; only that row (with its token) may use it, until the operator releases it (swb release ${session}).`,
          ),
        };
      }
      if ((this.live.get(session)?.size ?? 0) > 0) {
        return { ok: false, error: swbError('SESSION_COLLISION', `${session} is already connected.`) };
      }
      identity = { handle: session, role: 'participant', tokenHolder: false };
    }
    let holders = this.live.get(identity.handle);
    if (!holders) this.live.set(identity.handle, (holders = new Map()));
    holders.set(conn, identity);
    return { ok: true, identity };
  }

  /** Returns true when this was the handle's last live connection and it went offline (a running row stays online). */
  release(conn: Conn, handle: string): boolean {
    const holders = this.live.get(handle);
    if (!holders || !holders.delete(conn)) return false;
    if (holders.size > 0) return false;
    this.live.delete(handle);
    return !this.running.has(handle);
  }

  /** Online: a live connection, or a row whose process runs (it may be between two `swb` commands). */
  isOnline(handle: string): boolean {
    return (this.live.get(handle)?.size ?? 0) > 0 || this.running.has(handle);
  }

  onlineHandles(): string[] {
    return [...new Set([...this.live.keys(), ...this.running])];
  }

  connectionsOf(handle: string): Iterable<Conn> {
    return this.live.get(handle)?.keys() ?? [];
  }
}
