import { describe, expect, it } from 'vitest';
import { initialState, type RowView } from '../../../src/app/app-state.js';
import { AppStore } from '../../../src/app/app-store.js';
import { ResourceBoard } from '../../../src/app/resource-board.js';
import { selectedEntry } from '../../../src/app/resources-view-state.js';
import type { PortResult } from '../../../src/hub/operator-port.js';
import type { ResourceStatus, TicketView } from '../../../src/protocol/resource-name.js';
import type { ResourceEvent } from '../../../src/resources/resource-coordinator.js';
import { Emitter } from '../../../src/util/event.js';
import { waitUntil } from '../../helpers/wait-until.js';
import { sampleStatuses, status } from './resource-fixtures.js';

function rowView(name: string): RowView {
  return { name, profile: null, command: 'bash', running: true, exitCode: null, exitSignal: null, agentState: 'idle', stateRule: null, unread: 0, lastOutputAt: 0, title: '', wakePolicy: 'notify', wakeFailed: false, incarnation: 1, restored: null };
}

function setup(statuses: ResourceStatus[] = []) {
  const events = new Emitter<ResourceEvent>();
  const calls: string[] = [];
  let reads = 0;
  const state = { statuses };
  const ok = <T,>(v: T): Promise<PortResult<T>> => Promise.resolve({ ok: v });
  const port = {
    resourceStatus: () => {
      reads += 1;
      return ok(state.statuses);
    },
    grantTicket: (t: number) => {
      calls.push(`grant ${t}`);
      return ok({ ticket: t, holder: 'bob', state: 'granted' } as TicketView);
    },
    releaseTicket: (t: number) => {
      calls.push(`release ${t}`);
      return ok({ ticket: t, holder: 'alice', state: 'released' } as TicketView);
    },
    setController: (r: string, c: string | null) => {
      calls.push(`controller ${r} ${c}`);
      return ok(status({ name: r, controller: c, epoch: 2 }));
    },
    onResource: events.event,
  };
  const store = new AppStore(initialState({ cols: 80, rows: 24 }, 'stack', 'dark'), 0);
  for (const n of ['alice', 'bob', 'carol']) store.addRow(rowView(n));
  const board = new ResourceBoard(port, store);
  const event = (): ResourceEvent => ({ kind: 'resource', event: 'granted', at: 1, ticket: 1, resources: ['db'], holder: 'alice', actor: 'hub' });
  return { board, store, state, calls, fire: () => events.fire(event()), reads: () => reads };
}

const row = (store: AppStore, name: string) => store.getState().rows.find((r) => r.name === name)!;

describe('ResourceBoard', () => {
  it('reads the status again on each reservation event and marks the rows from it', async () => {
    const s = setup();
    await waitUntil(() => s.reads() === 1, { what: 'the first read' });
    expect(row(s.store, 'alice').reservations).toEqual({ held: [], waiting: [] });
    s.state.statuses = sampleStatuses();
    s.fire();
    await waitUntil(() => row(s.store, 'alice').reservations?.held.length === 1, { what: 'alice marked' });
    expect(row(s.store, 'bob').reservations).toEqual({ held: [], waiting: ['db'] });
    expect(row(s.store, 'carol').reservations).toEqual({ held: ['e2e?'], waiting: [] });
    s.board.dispose();
  });

  it('grants the selected queued ticket and force-releases a holder only after the operator confirms', async () => {
    const s = setup(sampleStatuses());
    await waitUntil(() => s.store.getState().resources.statuses.length === 2, { what: 'the statuses' });
    s.board.moveResourceSelection(2); // db, alice's hold, bob's queued ticket
    expect(selectedEntry(s.store.getState().resources)).toMatchObject({ kind: 'queued', ticket: { ticket: 2 } });
    s.board.grantSelected();
    await waitUntil(() => s.calls.includes('grant 2'), { what: 'the grant' });
    s.board.moveResourceSelection(-1);
    s.board.askReleaseSelected();
    expect(s.calls).not.toContain('release 1');
    expect(s.store.getState().resources.confirmRelease?.ticket).toBe(1);
    s.board.answerRelease(true);
    await waitUntil(() => s.calls.includes('release 1'), { what: 'the release' });
    await waitUntil(() => s.store.getState().resources.message?.text === 'ticket 1 of @alice: released', { what: 'the answer shown' });
    s.board.askController();
    s.board.chooseController('carol');
    await waitUntil(() => s.calls.includes('controller db carol'), { what: 'the controller set' });
    s.board.dispose();
  });

  it('a queued ticket is not released from the overlay (it is granted, or left waiting)', async () => {
    const s = setup(sampleStatuses());
    await waitUntil(() => s.store.getState().resources.statuses.length === 2, { what: 'the statuses' });
    s.board.moveResourceSelection(2);
    s.board.askReleaseSelected();
    expect(s.store.getState().resources.confirmRelease).toBeNull();
    expect(s.store.getState().resources.message?.kind).toBe('error');
    s.board.dispose();
  });
});
