// The hub's core as its users see it: the parts by job, without the hub itself. The method handlers
// (rpc-handlers.ts, resource-handlers.ts), the Intercom dialect and the operator port take this, not
// `Hub`: hub.ts starts, wires and stops the parts and imports those users, and nothing of theirs
// imports hub.ts back. Only types here.
import type { LinkStatus } from '../federation/nats-link.js';
import type { HubLimits } from '../protocol/limits.js';
import type { EventStream } from './event-stream.js';
import type { FanOut } from './fan-out.js';
import type { HookDelivery } from './hook-delivery.js';
import type { HubSessions } from './hub-sessions.js';
import type { MailCore } from './mail-core.js';
import type { MailWaiters } from './mail-waiters.js';
import type { ResourceService } from './resource-service.js';
import type { SendPipeline } from './send-pipeline.js';
import type { ServerSeat } from './server-control.js';

export interface HubCore {
  readonly limits: HubLimits;
  /** The store behind its gate; each change it makes publishes itself. */
  readonly mail: MailCore;
  /** Hellos, row tokens, who is online, the peer list. */
  readonly sessions: HubSessions;
  /** Every send, from params to "accepted". */
  readonly sends: SendPipeline;
  /** What the hub tells: mail, receipts, peers, to connections and in-process listeners. */
  readonly fanOut: FanOut;
  /** Long polls (`mail.wait`). */
  readonly waiters: MailWaiters;
  /** `swb events` subscribers; the embedding server publishes row events here too. */
  readonly events: EventStream;
  /** Agents' end-of-turn hooks asking whether their row has mail (delivery without typing). */
  readonly hooks: HookDelivery;
  /** Reservations between agents (issue #35). */
  readonly resources: ResourceService;
  /** The embedding workspace server (`server.*`, `rows.explain`), or none. */
  readonly server: ServerSeat;
  /** The link to other nodes, for `swb status` (null: not federated). */
  federationStatus(): Promise<LinkStatus | null>;
  /** Stops the hub (a headless hub asked to step down). */
  stop(): Promise<void>;
  log(line: string): void;
}
