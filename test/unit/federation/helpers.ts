// Shared by the federation tests: a node is a real MailStore on a real SQLite file in its own temp
// dir, with a FederationStore over it and a clock the test moves by hand. `publish` does what the
// NATS link's publisher does with the outbox (src/federation/nats-link.ts): envelopes in id order,
// each naming the last one sent to the same node as `prev`, then `published` for the whole prefix.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mailSubject, readEnvelope, type Envelope } from '../../../src/federation/envelope.js';
import { envelopeOf, FederationStore, type IncomingResult } from '../../../src/store/federation-store.js';
import { MailStore, type AcceptOutcome, type AcceptRequest, type StoreOptions } from '../../../src/store/mail-store.js';
import type { SessionRole } from '../../../src/protocol/methods.js';

export interface TestNode {
  name: string;
  dir: string;
  store: MailStore;
  fed: FederationStore;
  clock: { now: number };
  /** Local handles that hear pushes (a live subscribed connection). */
  live: Set<string>;
}

export function openNode(name: string, options: Partial<StoreOptions> = {}): TestNode {
  const dir = mkdtempSync(join(tmpdir(), `swb-fed-${name}-`));
  const clock = { now: 1_000_000 };
  const store = MailStore.open(join(dir, 'mail.db'), { maxUnread: 100, now: () => clock.now, ...options });
  return { name, dir, store, fed: new FederationStore(store, name), clock, live: new Set() };
}

export function closeNode(node: TestNode | undefined): void {
  if (!node) return;
  node.store.close();
  rmSync(node.dir, { recursive: true, force: true });
}

export function remember(node: TestNode, role: SessionRole, ...handles: string[]): void {
  for (const h of handles) node.store.rememberHandle(h, role);
}

let counter = 0;
export function request(sender: string, to: string[], over: Partial<AcceptRequest> = {}): AcceptRequest {
  counter += 1;
  return { sender, to, requestedTo: to, text: `text ${counter}`, kind: 'msg', replyTo: null, messageId: `mid-${counter}`, live: new Set(), ...over };
}

/** One send through acceptBatch; the outcome must be ok. */
export function send(node: TestNode, sender: string, to: string[], over: Partial<AcceptRequest> = {}): { id: number; messageId: string } {
  const [outcome] = node.store.acceptBatch([request(sender, to, over)]);
  if (!outcome || !outcome.ok) throw new Error(`send refused: ${JSON.stringify(outcome)}`);
  return { id: outcome.result.id, messageId: outcome.result.messageId };
}

export function firstOutcome(outcomes: AcceptOutcome[]): AcceptOutcome {
  return outcomes[0]!;
}

/** The hub's `known`: a local session (any role but remote). */
export function knownOn(node: TestNode): (h: string) => boolean {
  return (h) => {
    const role = node.store.roleOf(h);
    return role !== undefined && role !== 'remote';
  };
}

export interface Wire {
  destination: string;
  subject: string;
  data: Buffer;
  envelope: Envelope;
}

/** Everything in the node's outbox as published envelopes (the outbox is emptied, like the publisher does once the stream holds them). */
export function publish(node: TestNode): Wire[] {
  const entries = node.fed.pending(10_000);
  const next = new Map(node.fed.lastPublished());
  const wires: Wire[] = [];
  for (const e of entries) {
    if (!e.body) continue;
    const envelope = envelopeOf(e, node.name, node.fed.epoch, next.get(e.node) ?? 0);
    next.set(e.node, e.id);
    wires.push({ destination: e.node, subject: mailSubject(node.name, e.node, e.kind), data: Buffer.from(JSON.stringify(envelope)), envelope });
  }
  if (entries.length > 0) node.fed.published(entries[entries.length - 1]!.id, next);
  return wires;
}

/** The receiving side: each wire read as the link reads it (all must pass), then one applyIncoming. */
export function receive(node: TestNode, wires: readonly Wire[]): IncomingResult {
  const envelopes = wires.map((w) => {
    const read = readEnvelope(w.data, w.subject, node.name, 1 << 22);
    if ('refused' in read) throw new Error(`refused: ${read.refused}`);
    return read.ok;
  });
  return node.fed.applyIncoming(envelopes, knownOn(node), (h) => node.live.has(h), node.clock.now);
}

export function count(node: TestNode, table: string): number {
  return (node.store.db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
}
