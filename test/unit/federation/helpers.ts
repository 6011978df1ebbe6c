// Shared by the federation tests: a node is a real MailStore on a real SQLite file in its own temp
// dir, with a FederationStore over it and a clock the test moves by hand. `publish` does what the
// NATS link's publisher does with the outbox (src/federation/nats-link.ts): the pending entries
// grouped into envelopes per destination (groupIntoEnvelopes, chained from lastPublished), then
// `published` with the last id sent to each node.
import { mkdtempSync, rmSync } from 'node:fs';
import { afterEach, beforeEach } from 'vitest';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mailSubject, readEnvelope, type Envelope } from '../../../src/federation/envelope.js';
import { FederationStore, groupIntoEnvelopes, type IncomingResult } from '../../../src/federation/federation-store.js';
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

/**
 * Nodes alpha and beta, opened fresh before each test of the file (handed to `use`) with the
 * sessions the file needs on either side, and closed after it.
 */
export function alphaAndBetaPerTest(
  sessions: { alpha: Array<[SessionRole, ...string[]]>; beta: Array<[SessionRole, ...string[]]> },
  use: (alpha: TestNode, beta: TestNode) => void,
): void {
  let alpha: TestNode | undefined;
  let beta: TestNode | undefined;
  beforeEach(() => {
    alpha = openNode('alpha');
    beta = openNode('beta');
    for (const [role, ...handles] of sessions.alpha) remember(alpha, role, ...handles);
    for (const [role, ...handles] of sessions.beta) remember(beta, role, ...handles);
    use(alpha, beta);
  });
  afterEach(() => {
    closeNode(alpha);
    closeNode(beta);
  });
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

/** Everything in the node's outbox as published envelopes (the outbox is emptied, as the publisher does once the stream holds them). */
export function publish(node: TestNode, limit = 10_000): Wire[] {
  const entries = node.fed.pending(limit);
  const out = groupIntoEnvelopes(entries, node.fed.lastPublished(), node.name, node.fed.epoch);
  const done = new Map<string, number>();
  for (const o of out) done.set(o.node, o.envelope.seq);
  if (done.size > 0) node.fed.published(done);
  return out.map((o) => ({ destination: o.node, subject: mailSubject(node.name, o.node), data: Buffer.from(o.json), envelope: o.envelope }));
}

/** The receiving side: each wire read as the link reads it (all must pass), then one applyIncoming. */
export function receive(node: TestNode, wires: readonly Wire[], deliveries?: number[]): IncomingResult {
  const envelopes = wires.map((w) => {
    // 1 MiB: what the link allows (MAX_ENVELOPE_BYTES in nats-link.ts) and NATS carries (max_payload).
    const read = readEnvelope(w.data, w.subject, node.name, 1 << 20);
    if ('refused' in read) throw new Error(`refused: ${read.refused}`);
    return read.ok;
  });
  return node.fed.applyIncoming(envelopes, knownOn(node), (h) => node.live.has(h), node.clock.now, deliveries);
}

export function count(node: TestNode, table: string): number {
  return (node.store.db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
}
