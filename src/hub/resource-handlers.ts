// The reservation methods (issue #35; docs/PROTOCOL.md, "Reservations"), merged into the hub's
// handler table by rpc-handlers.ts. Params are parsed with their schemas before a handler runs;
// the actor is always the connection's identity, never the payload's. The rules are the
// coordinator's (src/resources/), the waiting and the evidence watch the ResourceService's.
import type { SessionIdentity } from './session-registry.js';
import {
  resourceLaunchedParams,
  resourcePolicyParams,
  resourceReleaseParams,
  resourceRequestParams,
  resourceStatusParams,
  resourceTicketParams,
  resourceWaitParams,
} from '../protocol/method-params.js';
import type { Actor } from '../resources/ticket-authority.js';
import { handler, type Handler } from './rpc-handler.js';

const actorOf = (who: SessionIdentity): Actor => ({ handle: who.handle, role: who.role });

export const RESOURCE_HANDLERS: Record<string, Handler<unknown>> = {
  'resource.request': handler({
    params: resourceRequestParams,
    run: (core, conn, p, who) =>
      core.resources.request(conn, actorOf(who), p.resources, p.reason ?? null, p.waitMs, p.pid === undefined ? undefined : { pid: p.pid, command: p.command }),
  }),
  'resource.wait': handler({
    params: resourceWaitParams,
    run: (core, conn, p, who) => core.resources.wait(conn, actorOf(who), p.ticket, p.waitMs),
  }),
  'resource.launched': handler({
    params: resourceLaunchedParams,
    run: (core, conn, p, who) => core.resources.launched(conn, actorOf(who), p.ticket, p.pid, p.command),
  }),
  'resource.release': handler({
    params: resourceReleaseParams,
    run: (core, _conn, p, who) => core.resources.release(actorOf(who), p.ticket, p.force ?? false),
  }),
  'resource.cancel': handler({
    params: resourceTicketParams,
    run: (core, _conn, p, who) => core.resources.cancel(actorOf(who), p.ticket),
  }),
  'resource.grant': handler({
    params: resourceTicketParams,
    run: (core, _conn, p, who) => core.resources.grant(actorOf(who), p.ticket),
  }),
  'resource.status': handler({
    params: resourceStatusParams,
    run: async (core, _conn, p) => ({ ok: { resources: await core.resources.status(p.name) } }),
  }),
  'resource.policy': handler({
    params: resourcePolicyParams,
    run: async (core, _conn, p, who) => {
      const change = {
        ...(p.capacity !== undefined ? { capacity: p.capacity } : {}),
        ...(p.controller !== undefined ? { controller: p.controller } : {}),
        ...(p.waitMs !== undefined ? { waitMs: p.waitMs } : {}),
      };
      return core.resources.setPolicy(actorOf(who), p.name, change);
    },
  }),
};
