// The operator port's reservation methods (issue #35), which the dashboard's resources overlay uses:
// they act as the operator through the hub's own rules (a forced release, a grant past the queue,
// a controller), and every committed reservation event reaches the port's listeners once.
import { afterEach, describe, expect, it } from 'vitest';
import { operatorPort } from '../../../src/hub/operator-port.js';
import type { TicketView } from '../../../src/protocol/resource-name.js';
import type { ResourceEvent } from '../../../src/resources/resource-coordinator.js';
import { runCleanups } from '../../helpers/cleanup.js';
import { connectClient, startTestHub } from '../../helpers/hub-harness.js';

afterEach(runCleanups);

describe('operatorPort reservations', () => {
  it('grants, force-releases and sets the controller as the operator; each committed event is heard once', async () => {
    const { hub, paths } = await startTestHub();
    const port = operatorPort(hub.core);
    const heard: string[] = [];
    port.onResource((e: ResourceEvent) => heard.push(`${e.event} ${e.ticket ?? '-'} ${e.actor}`));
    const rows = await Promise.all(
      ['alice', 'bob'].map(async (name) => {
        const reg = hub.core.sessions.registerRow(name);
        if (!reg.ok) throw new Error(reg.error.message);
        return (await connectClient(paths, { session: name, token: reg.token })).client;
      }),
    );
    const [alice, bob] = rows as [(typeof rows)[0], (typeof rows)[0]];

    const set = await port.setController('db', 'operator');
    expect(set).toMatchObject({ ok: { name: 'db', controller: 'operator', epoch: 2 } });
    const a = await alice.request<TicketView>('resource.request', { resources: ['db'] });
    const b = await bob.request<TicketView>('resource.request', { resources: ['db'] });
    expect([a.state, b.state]).toEqual(['queued', 'queued']);

    // The controller (the operator) grants bob's first: it jumps the queue.
    expect(await port.grantTicket(b.ticket)).toMatchObject({ ok: { ticket: b.ticket, state: 'granted', holder: 'bob' } });
    const status = await port.resourceStatus();
    if (!('ok' in status)) throw new Error(status.error.message);
    expect(status.ok[0]).toMatchObject({ name: 'db', holders: [{ holder: 'bob' }], queue: [{ holder: 'alice' }] });

    // Forced: a row could not release another's ticket, the operator can.
    expect(await port.releaseTicket(b.ticket)).toMatchObject({ ok: { ticket: b.ticket, state: 'released' } });
    expect(heard).toEqual([
      'policy - operator',
      `requested ${a.ticket} alice`,
      `requested ${b.ticket} bob`,
      `granted ${b.ticket} operator`,
      `released ${b.ticket} operator`,
    ]);
  });
});
