// Who decides a shared row's size when several clients look at it (RowFleet.decidesSize).
import { describe, expect, it } from 'vitest';
import type { OperatorPort } from '../../../src/hub/operator-port.js';
import type { RowManager } from '../../../src/rows/row-manager.js';
import { RowFleet } from '../../../src/supervisor/row-fleet.js';

// Sizing is bookkeeping only: no row is started here, so the row manager and the port are never called.
const fleet = () => new RowFleet({ rows: {} as RowManager, port: {} as OperatorPort });

describe('RowFleet sizes', () => {
  it('a row nobody is attached to takes the size of the client that typed last', () => {
    const f = fleet();
    const a = {};
    const b = {};
    expect(f.decidesSize('one', a)).toBe(true); // nobody typed yet: whoever is there
    f.claimSizes(a);
    expect([f.decidesSize('one', a), f.decidesSize('one', b)]).toEqual([true, false]);
    f.claimSizes(b);
    expect([f.decidesSize('one', a), f.decidesSize('one', b)]).toEqual([false, true]);
  });

  it('an attached row takes the size of the attached client that typed last, not of a dashboard that typed', () => {
    const f = fleet();
    const a = {};
    const b = {};
    const c = {};
    f.setAttached('one', a, true);
    f.claimSizes(c); // c types on its dashboard
    expect([f.decidesSize('one', a), f.decidesSize('one', c)]).toEqual([true, false]);
    f.setAttached('one', b, true);
    expect(f.decidesSize('one', b)).toBe(true); // the newest attach decides
    f.claimSizes(a, 'one'); // a types into the row
    expect([f.decidesSize('one', a), f.decidesSize('one', b)]).toEqual([true, false]);
    f.setAttached('one', a, false);
    expect(f.decidesSize('one', b)).toBe(true);
    f.setAttached('one', b, false);
    // Back to the dashboards' owner: a, whose keys came last (into the row).
    expect([f.decidesSize('one', a), f.decidesSize('one', b), f.decidesSize('one', c)]).toEqual([true, false, false]);
    expect(f.attachedRows().size).toBe(0);
  });

  it('tells every client when who decides changed', () => {
    const f = fleet();
    const a = {};
    let told = 0;
    f.onSizeOwner(() => told++);
    f.claimSizes(a);
    f.claimSizes(a); // no change, no news
    f.setAttached('one', a, true);
    f.setAttached('one', a, false);
    expect(told).toBe(3);
  });
});
