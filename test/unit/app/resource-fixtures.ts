// Hand-built reservation statuses for the dashboard's tests (the shape resource.status answers).
import type { ResourceStatus, TicketView } from '../../../src/protocol/resource-name.js';

export function ticket(over: Partial<TicketView> & Pick<TicketView, 'ticket' | 'holder' | 'state'>): TicketView {
  return {
    resources: ['db'],
    reason: null,
    requestedAt: 1_000,
    deadline: null,
    grantedAt: over.state === 'queued' ? null : 2_000,
    grantedBy: over.state === 'queued' ? null : 'hub',
    endedAt: null,
    why: null,
    launch: null,
    ...over,
  };
}

export function status(over: Partial<ResourceStatus> & Pick<ResourceStatus, 'name'>): ResourceStatus {
  return { capacity: 1, controller: null, waitMs: null, epoch: 1, holders: [], queue: [], ...over };
}

/** db held by alice's swb run, bob waiting for it; e2e held uncertainly by carol. */
export function sampleStatuses(): ResourceStatus[] {
  return [
    status({
      name: 'db',
      holders: [ticket({ ticket: 1, holder: 'alice', state: 'held', reason: 'migrations', launch: { pid: 4242, pgid: 4242, startTime: '99', command: 'npm test', launchedAt: 2_000 } })],
      queue: [ticket({ ticket: 2, holder: 'bob', state: 'queued' })],
    }),
    status({ name: 'e2e', holders: [ticket({ ticket: 3, holder: 'carol', state: 'uncertain', resources: ['e2e'], why: 'row carol exited holding a grant with no process recorded' })] }),
  ];
}
