// Who is connected as whom, as the hub acts on it: a hello's claim (checked against the operator
// guard and the rate of new names, remembered in the store, then announced), rows' tokens minted,
// revoked and released, rows online while their program runs, and the peer list built from all of
// it (with held reply-budget pairs and other nodes' sessions). The bare bookkeeping of identities is
// SessionRegistry's (session-registry.ts); this adds the store, the announcements and the limits.
import { swbError, type SwbErrorValue } from '../protocol/error-codes.js';
import type { HubLimits } from '../protocol/limits.js';
import type { PeerInfo } from '../protocol/methods.js';
import type { MailStore } from '../store/mail-store.js';
import type { FederationLink } from '../federation/nats-link.js';
import { remoteAddress } from '../protocol/remote-address.js';
import type { FanOut } from './fan-out.js';
import type { HubConnection } from './hub-connection.js';
import type { MailCore } from './mail-core.js';
import { operatorRefusal } from './peer-guard.js';
import { RateLimiter } from './rate-limiter.js';
import type { SessionRegistry } from './session-registry.js';

const PEERS_PAGE = 500;

export interface HubSessionsDeps {
  registry: SessionRegistry<HubConnection>;
  store: MailStore;
  mail: MailCore;
  fanOut: FanOut;
  federation: FederationLink | null;
  limits: HubLimits;
  now: () => number;
  /** The hub's socket: the operator token is refused to processes in a row's tree (peer-guard.ts). */
  socketPath: string;
  log(line: string): void;
}

export class HubSessions {
  private readonly registry: SessionRegistry<HubConnection>;
  private readonly newHandleRate: RateLimiter;

  constructor(private readonly deps: HubSessionsDeps) {
    this.registry = deps.registry;
    // A minute's worth at once: a burst of scripts starting together is fine, a stream of junk names is not.
    this.newHandleRate = new RateLimiter(deps.limits.newHandlesPerMinute / 60, deps.now, 60);
  }

  get operatorToken(): string {
    return this.registry.operatorToken;
  }

  isOnline(handle: string): boolean {
    return this.registry.isOnline(handle);
  }

  /** Every session online now (rows with a running program included). */
  onlineHandles(): Iterable<string> {
    return this.registry.onlineHandles();
  }

  /** Whether some connection of `handle` hears pushed mail. */
  hearsPushes(handle: string): boolean {
    for (const c of this.registry.connectionsOf(handle)) if (c.subscription !== 'none') return true;
    return false;
  }

  /**
   * Completes a hello: claims the handle, remembers it in the store, announces it. The connection
   * is bound to the handle only once all of that succeeded; a failure leaves it unbound.
   */
  async claim(conn: HubConnection, session: string | undefined, token: string | undefined): Promise<SwbErrorValue | null> {
    if (conn.identity) return swbError('BAD_REQUEST', `This connection is already ${conn.identity.handle}.`);
    const { registry, store, mail } = this.deps;
    const claim = registry.claim(conn, session, token);
    if (!claim.ok) return claim.error;
    const { handle, role } = claim.identity;
    if (role === 'operator') {
      const why = operatorRefusal(conn.peer, this.deps.socketPath);
      if (why) {
        registry.release(conn, handle);
        return swbError('UNAUTHENTICATED', `The operator identity is refused: ${why}. Agents in rows speak as their row.`);
      }
    }
    const unbind = (error: SwbErrorValue): SwbErrorValue => {
      registry.release(conn, handle);
      return error;
    };
    const wasKnown = store.isKnown(handle);
    if (!wasKnown && role === 'participant' && this.newHandleRate.take('new-handles') > 0) {
      return unbind(
        swbError('RATE_LIMITED', `Too many new session names (more than ${this.deps.limits.newHandlesPerMinute} a minute); reuse a name or retry shortly.`, {
          retryAfterMs: 1000,
        }),
      );
    }
    try {
      await mail.gate.run(() => store.rememberHandle(handle, role));
    } catch (err) {
      return unbind(mail.storeFailure(err, `hello as ${handle} could not be recorded`));
    }
    if (conn.isClosed) return unbind(swbError('NO_HUB', 'The connection closed during hello.'));
    conn.identity = claim.identity;
    conn.identified();
    // A running row was online already; anyone else comes online with its first connection.
    const first = [...registry.connectionsOf(handle)].length === 1;
    if (!wasKnown || (first && !(role === 'row' && registry.isRowRunning(handle)))) this.deps.fanOut.peer(handle, true, role);
    return null;
  }

  /** A connection closed: its session goes offline with its last connection (a running row stays). */
  connectionClosed(conn: HubConnection): void {
    if (conn.identity && this.registry.release(conn, conn.identity.handle)) {
      this.deps.fanOut.peer(conn.identity.handle, false, conn.identity.role);
    }
  }

  /** The row whose current SWB_TOKEN this is, or null (the web API's bearer tokens). */
  rowOfToken(token: string): string | null {
    return this.registry.rowOfToken(token);
  }

  /**
   * Registers a row of the embedded server (or, over the socket, of an operator client). A row that
   * registers again gets a new token; connections that proved the old one are closed.
   */
  registerRow(handle: string): { ok: true; token: string } | { ok: false; error: SwbErrorValue } {
    const r = this.mintRowToken(handle);
    if (!r.ok) return r;
    r.recorded.catch((err: unknown) => this.deps.log(`row ${handle} could not be recorded: ${this.deps.mail.storeFailure(err, 'registerRow').message}`));
    return { ok: true, token: r.token };
  }

  /**
   * registerRow over the socket (an operator client): answered only once the store recorded the
   * handle as a row's, so mail to it is kept; a store failure undoes the registration.
   */
  async registerRowDurably(handle: string): Promise<{ ok: { handle: string; token: string } } | { error: SwbErrorValue }> {
    const r = this.mintRowToken(handle);
    if (!r.ok) return { error: r.error };
    try {
      await r.recorded;
    } catch (err) {
      this.revoke(this.registry.unregisterRow(handle), handle, 'not registered after all');
      return { error: this.deps.mail.storeFailure(err, `row ${handle} could not be registered`) };
    }
    return { ok: { handle, token: r.token } };
  }

  /** A fresh token for a row (closing the connections of the old one), and the store write that remembers it. */
  private mintRowToken(handle: string): { ok: true; token: string; recorded: Promise<void> } | { ok: false; error: SwbErrorValue } {
    const r = this.registry.registerRow(handle);
    if (!r.ok) return r;
    this.revoke(r.revoked, handle, 'registered again');
    const { store, mail } = this.deps;
    return { ok: true, token: r.token, recorded: mail.gate.run(() => store.rememberHandle(handle, 'row')) };
  }

  /** A row's process started or ended: a running row is online (it gets @all) with or without a connection. */
  setRowRunning(handle: string, running: boolean): void {
    if (this.registry.setRowRunning(handle, running)) this.deps.fanOut.peer(handle, running, 'row');
  }

  /** The operator gives a row's handle back: its token stops working and tokenless clients may take it. */
  async releaseRow(handle: string): Promise<{ ok: { released: boolean } } | { error: SwbErrorValue }> {
    const { store, mail } = this.deps;
    // The store first: if it fails, the row keeps its token and its connections.
    let releasedInStore: boolean;
    try {
      releasedInStore = await mail.gate.run(() => store.releaseRow(handle));
    } catch (err) {
      return { error: mail.storeFailure(err, `${handle} could not be released`) };
    }
    const revoked = this.registry.unregisterRow(handle);
    this.revoke(revoked, handle, 'released by the operator');
    return { ok: { released: releasedInStore || revoked.length > 0 } };
  }

  private revoke(conns: readonly HubConnection[], handle: string, why: string): void {
    for (const c of conns) {
      c.closeWithError(swbError('UNAUTHENTICATED', `Row ${handle} was ${why}; the token this connection used no longer works.`));
    }
    if (conns.length > 0 && !this.registry.isOnline(handle)) this.deps.fanOut.peer(handle, false, 'row');
  }

  /** Every session this hub knows (and other nodes announce), in handle order. */
  peers(): PeerInfo[] {
    const held = new Map<string, string[]>();
    for (const p of this.deps.mail.heldPairs()) {
      held.set(p.a, [...(held.get(p.a) ?? []), p.b]);
      held.set(p.b, [...(held.get(p.b) ?? []), p.a]);
    }
    const remote = new Map((this.deps.federation?.remotePeers() ?? []).map((p) => [remoteAddress(p.handle, p.node), p]));
    const peers = this.deps.store.knownHandles().map(({ handle, role, unread }) => {
      const peer: PeerInfo = { handle, role, unread, online: this.registry.isOnline(handle) };
      const with_ = held.get(handle);
      if (with_) peer.heldWith = with_;
      if (role === 'remote') {
        const there = remote.get(handle);
        remote.delete(handle);
        peer.online = there?.online ?? false;
        peer.node = handle.slice(handle.indexOf('@') + 1);
        if (there) peer.ageMs = there.ageMs;
      }
      return peer;
    });
    // Sessions other nodes announce that never mailed with this one.
    for (const [handle, p] of remote) peers.push({ handle, role: 'remote', unread: 0, online: p.online, node: p.node, ageMs: p.ageMs });
    return peers.sort((a, b) => (a.handle < b.handle ? -1 : a.handle > b.handle ? 1 : 0));
  }

  /** A page of peers in handle order after `after`; `next` is the cursor when more remain. */
  peersPage(opts: { after?: string; limit?: number; onlineOnly?: boolean }): { peers: PeerInfo[]; next: string | null } {
    const limit = opts.limit ?? PEERS_PAGE;
    let all = this.peers();
    if (opts.onlineOnly) all = all.filter((p) => p.online);
    const start = opts.after === undefined ? 0 : all.findIndex((p) => p.handle > opts.after!);
    const page = start === -1 ? [] : all.slice(start, start + limit);
    const more = start !== -1 && start + limit < all.length;
    return { peers: page, next: more ? page[page.length - 1]!.handle : null };
  }
}
