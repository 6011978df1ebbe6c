// The fan-out: what the hub tells once something happened — new mail, a receipt that moved, a peer
// that came or went. It pushes each to the connections that listen (a recipient's own, operators
// watching all mail, a sender for its receipts), wakes long polls, writes `swb events`, and fires the
// in-process events the operator port hands to the server's side. Every change reaches it from its
// source (the send pipeline's commit, the mail core's changes, the sessions' arrivals), once; nothing
// here touches the store.
import type { PeerChanged, ReceiptChanged, SessionRole, MailItem } from '../protocol/methods.js';
import { notification } from '../protocol/rpc.js';
import type { AcceptOutcome, AcceptRequest, StateChange } from '../store/mail-store.js';
import type { FederationLink } from '../federation/nats-link.js';
import { Emitter } from '../util/event.js';
import type { EventStream } from './event-stream.js';
import type { HubConnection } from './hub-connection.js';
import { intercomMailEnvelope } from './intercom-envelope.js';
import type { MailWaiters } from './mail-waiters.js';
import type { SessionRegistry } from './session-registry.js';

export interface FanOutDeps {
  /** Every live connection (the listener fills it). */
  connections: ReadonlySet<HubConnection>;
  sessions: SessionRegistry<HubConnection>;
  waiters: MailWaiters;
  events: EventStream;
  federation: FederationLink | null;
}

export class FanOut {
  private readonly mailEmitter = new Emitter<MailItem>();
  private readonly receiptEmitter = new Emitter<ReceiptChanged & { from: string }>();
  private readonly peerEmitter = new Emitter<PeerChanged>();
  private readonly unreadChangedEmitter = new Emitter<string>();
  /** Every accepted message (the server's notifications and wake controller listen here). */
  readonly onMail = this.mailEmitter.event;
  readonly onReceipt = this.receiptEmitter.event;
  readonly onPeer = this.peerEmitter.event;
  /** A handle's unread mail changed without new mail or a receipt (parked mail re-delivered). */
  readonly onUnreadChanged = this.unreadChangedEmitter.event;

  constructor(private readonly deps: FanOutDeps) {}

  /** A message the commit just stored: to its recipients' connections and waiters, and operators watching all. */
  mailCommitted(request: AcceptRequest, outcome: AcceptOutcome & { ok: true }): void {
    const message = outcome.message;
    if (!message) return;
    const { events, sessions, waiters } = this.deps;
    if (events.size > 0) {
      events.publish({ kind: 'mail', at: message.createdAt, id: message.id, from: message.from, to: message.to, mailKind: message.kind, replyTo: message.replyTo }, [message.from, ...message.to]);
    }
    this.mailEmitter.fire(message);
    for (const r of outcome.result.recipients) {
      // Made only for a recipient with a connection that hears pushes (most sends have none).
      let item: MailItem | undefined;
      for (const c of sessions.connectionsOf(r.to)) {
        if (c.subscription === 'mine') pushMail(c, (item ??= { ...message, seq: r.seq, state: r.state }));
      }
      waiters.notify(r.to);
    }
    for (const c of this.deps.connections) {
      if (c.subscription === 'all' && c.identity?.role === 'operator') pushMail(c, message);
    }
    if (outcome.repliedTo) {
      this.publishChanges([{ id: outcome.repliedTo.id, sender: outcome.repliedTo.sender, to: request.sender, state: 'replied', at: message.createdAt }]);
    }
  }

  /** Receipt changes, to each message's sender (and operators watching everything). */
  publishChanges(changes: readonly StateChange[]): void {
    const { federation, sessions, events } = this.deps;
    // A change of mail from another node queued its receipt for that node (a trigger did).
    if (federation && changes.some((ch) => ch.sender.includes('@'))) federation.kick();
    for (const ch of changes) {
      const event: ReceiptChanged = { id: ch.id, to: ch.to, state: ch.state, at: ch.at };
      if (events.size > 0) events.publish({ kind: 'receipt', at: ch.at, id: ch.id, from: ch.sender, to: ch.to, state: ch.state }, [ch.to, ch.sender]);
      this.receiptEmitter.fire({ ...event, from: ch.sender });
      const targets = new Set<HubConnection>();
      for (const c of sessions.connectionsOf(ch.sender)) if (c.subscription !== 'none' && c.dialect === 'rpc') targets.add(c);
      for (const c of this.deps.connections) if (c.subscription === 'all' && c.identity?.role === 'operator') targets.add(c);
      for (const c of targets) c.write(notification('receipt.changed', event));
    }
  }

  /** A handle's unread mail changed with no mail or receipt to say so. */
  unreadChanged(handle: string): void {
    this.unreadChangedEmitter.fire(handle);
  }

  /** A session came online or went offline: to everyone listening but itself. */
  peer(handle: string, online: boolean, role: SessionRole): void {
    const change: PeerChanged = { handle, online, role };
    this.peerEmitter.fire(change);
    for (const c of this.deps.connections) {
      if (c.subscription !== 'none' && c.identity && c.identity.handle !== handle && c.dialect === 'rpc') {
        c.write(notification('peer.changed', change));
      }
    }
  }

  /** Other nodes' sessions came or went (peer lists, the composer's completion ask again). */
  remotePresence(): void {
    this.peerEmitter.fire({ handle: '', online: true, role: 'remote' });
  }
}

function pushMail(conn: HubConnection, item: MailItem): void {
  conn.write(conn.dialect === 'intercom' ? intercomMailEnvelope(item) : notification('mail.arrived', { message: item }));
}
