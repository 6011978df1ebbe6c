import { describe, expect, it } from 'vitest';
import { addArrived, appendPage, applyReceiptToView, mailFilters, nextFilter, resetMailView } from '../../../src/app/mail-view-state.js';
import { entry, row } from './fixtures.js';

describe('mail view state', () => {
  it('appends older pages without duplicates and records whether more remain', () => {
    let mv = resetMailView(null);
    mv = appendPage(mv, [entry(5), entry(4)], true);
    mv = appendPage(mv, [entry(4), entry(3)], false);
    expect(mv.entries.map((e) => e.id)).toEqual([5, 4, 3]);
    expect(mv.hasMore).toBe(false);
  });

  it('shows new mail at once when it passes the filter', () => {
    const mv = appendPage(resetMailView('b'), [entry(1)], false);
    expect(addArrived(mv, entry(2, { from: 'x', to: ['y'] }))).toBe(mv);
    expect(addArrived(mv, entry(3, { from: 'x', to: ['b'] })).entries.map((e) => e.id)).toEqual([3, 1]);
  });

  it('follows receipt changes of loaded messages, forward only', () => {
    const mv = appendPage(resetMailView(null), [entry(1)], false);
    const read = applyReceiptToView(mv, { id: 1, to: 'b', state: 'read' });
    expect(read.entries[0]!.receipts[0]!.state).toBe('read');
    expect(applyReceiptToView(read, { id: 1, to: 'b', state: 'delivered' })).toBe(read);
    expect(applyReceiptToView(read, { id: 2, to: 'b', state: 'replied' })).toBe(read);
  });

  it('cycles filters: all, the focused row, other rows, other handles', () => {
    const filters = mailFilters([row('a'), row('b')], [{ handle: 'operator', online: false, role: 'operator' }, { handle: 'a', online: true, role: 'row' }], 'b');
    expect(filters).toEqual([null, 'b', 'a', 'operator']);
    expect(nextFilter(null, filters, 1)).toBe('b');
    expect(nextFilter('operator', filters, 1)).toBeNull();
    expect(nextFilter(null, filters, -1)).toBe('operator');
  });
});
