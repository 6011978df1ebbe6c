import { describe, expect, it } from 'vitest';
import { rowReservations } from '../../../src/app/row-reservations.js';
import { sampleStatuses } from './resource-fixtures.js';

describe('rowReservations', () => {
  it('says what a row holds (an uncertain hold marked ?) and what it waits for', () => {
    const statuses = sampleStatuses();
    expect(rowReservations(statuses, 'alice')).toEqual({ held: ['db'], waiting: [] });
    expect(rowReservations(statuses, 'bob')).toEqual({ held: [], waiting: ['db'] });
    expect(rowReservations(statuses, 'carol')).toEqual({ held: ['e2e?'], waiting: [] });
    expect(rowReservations(statuses, 'dave')).toEqual({ held: [], waiting: [] });
  });
});
