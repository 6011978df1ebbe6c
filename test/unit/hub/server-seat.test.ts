// The embedding server's seat in its hub: `server.*` answers NO_SERVER until a server serves and
// again once it is stopping (when a successor asking the hub to step down may wait), and
// `rows.explain` answers NOT_FOUND with no server to ask.
import { describe, expect, it } from 'vitest';
import { ServerSeat, type ServerControl } from '../../../src/hub/server-control.js';

const control = { killRow: (name: string) => ({ ok: { closed: name === 'a' } }) } as unknown as ServerControl;

describe('ServerSeat', () => {
  it('routes to the server while it serves, and answers NO_SERVER before and once it is stopping', () => {
    const seat = new ServerSeat('ws1', true);
    expect(seat.ask((c) => c.killRow('a'))).toMatchObject({ error: { code: 'NO_SERVER' } });
    expect(seat.stopping).toBe(false);
    seat.setControl(control);
    expect(seat.ask((c) => c.killRow('a'))).toEqual({ ok: { closed: true } });
    seat.setControl('stopping');
    expect(seat.stopping).toBe(true);
    expect(seat.ask((c) => c.killRow('a'))).toMatchObject({ error: { code: 'NO_SERVER', message: expect.stringContaining('ws1') } });
  });

  it('explains a row through the server’s provider, and says NOT_FOUND without one', () => {
    const seat = new ServerSeat('ws1', false);
    expect(seat.explain('a', false)).toMatchObject({ error: { code: 'NOT_FOUND' } });
    seat.setExplainProvider((row, verbose) => ({ error: { code: 'NOT_FOUND', message: `${row} ${verbose}` } }));
    expect(seat.explain('a', true)).toEqual({ error: { code: 'NOT_FOUND', message: 'a true' } });
  });
});
