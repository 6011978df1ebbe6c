// The Jepsen-style test's checker (test/helpers/jepsen/history.ts) on small made-up histories: a
// clean one passes, and each anomaly it exists to catch is caught (a checker that passes
// everything would make the Jepsen test pass vacuously).
import { describe, expect, it } from 'vitest';
import { rpcNumberFor } from '../../src/protocol/error-codes.js';
import { checkHistory, type CheckInput, type Observation, type Op } from '../helpers/jepsen/history.js';

const planned = [
  { sender: 's1', n: 1, messageId: 's1-000001', to: ['r1', 'r2'], text: 'one', kind: 'msg', replyTo: null },
  { sender: 's1', n: 2, messageId: 's1-000002', to: ['r1'], text: 'two', kind: 'msg', replyTo: null },
  { sender: 's1', n: 3, messageId: 's1-000003', to: ['r1'], text: 'three', kind: 'msg', replyTo: null },
];

function send(messageId: string, attempt: number, t: number, outcome: Op['outcome'], extra: Partial<Op> = {}): Op {
  return { process: 's1', method: 'mail.send', conn: 1, invokedAt: t, completedAt: t + 1, outcome, messageId, attempt, ...extra };
}

function obs(id: number, to: string, state: Observation['state'], t: number, exact = true): Observation {
  return { id, to, state, exact, invokedAt: t, completedAt: t + 1, source: 'test', process: to };
}

function base(): CheckInput {
  return {
    planned: planned.map((p) => ({ ...p })),
    ops: [
      send('s1-000001', 1, 10, 'indeterminate', { reason: 'closed' }),
      send('s1-000001', 2, 20, 'ok', { id: 1, duplicate: true }),
      send('s1-000002', 1, 30, 'error', { code: 'RATE_LIMITED', rpcCode: rpcNumberFor('RATE_LIMITED') }),
      send('s1-000002', 2, 40, 'ok', { id: 2, duplicate: false }),
      // s1-000003: the run ended with its answer lost; it may or may not be stored.
      send('s1-000003', 1, 50, 'indeterminate', { reason: 'timeout' }),
    ],
    observations: [obs(1, 'r1', 'accepted', 21), obs(1, 'r1', 'delivered', 60), obs(1, 'r1', 'read', 70, false), obs(1, 'r1', 'read', 80)],
    messages: [
      { id: 1, sender: 's1', message_id: 's1-000001', text: 'one', kind: 'msg', reply_to: null, recipients: '["r1","r2"]' },
      { id: 2, sender: 's1', message_id: 's1-000002', text: 'two', kind: 'msg', reply_to: null, recipients: '["r1"]' },
      { id: 3, sender: 's1', message_id: 's1-000003', text: 'three', kind: 'msg', reply_to: null, recipients: '["r1"]' },
    ],
    deliveries: [
      { message: 1, recipient: 'r1', seq: 1, state: 2 },
      { message: 1, recipient: 'r2', seq: 1, state: 0 },
      { message: 2, recipient: 'r1', seq: 2, state: 0 },
      { message: 3, recipient: 'r1', seq: 3, state: 0 },
    ],
    workloadSenders: new Set(['s1', 'r1', 'r2']),
  };
}

function anomalies(input: CheckInput) {
  const { stats: _stats, ...lists } = checkHistory(input);
  return Object.fromEntries(Object.entries(lists).filter(([, list]) => list.length > 0));
}

describe('the Jepsen checker', () => {
  it('passes a clean history with retries, a lost answer and an unacknowledged stored message', () => {
    const verdict = checkHistory(base());
    expect(anomalies(base())).toEqual({});
    expect(verdict.stats).toMatchObject({ planned: 3, sendAttempts: 5, accepted: 2, retries: 2, indeterminateSends: 2, storedUnacknowledged: 1 });
  });

  it('catches an acknowledged message that is missing, or lacks a delivery', () => {
    const missing = base();
    missing.messages = missing.messages.filter((m) => m.id !== 2);
    missing.deliveries = missing.deliveries.filter((d) => d.message !== 2);
    expect(anomalies(missing)).toEqual({ lost: [expect.stringContaining('s1-000002 was accepted')] });

    const noDelivery = base();
    noDelivery.deliveries = noDelivery.deliveries.filter((d) => !(d.message === 1 && d.recipient === 'r2'));
    expect(anomalies(noDelivery).lost).toEqual([expect.stringContaining('deliveries to [r1], sent to [r1,r2]')]);
  });

  it('catches a messageId stored twice', () => {
    const twice = base();
    twice.messages.push({ id: 4, sender: 's1', message_id: 's1-000002', text: 'two', kind: 'msg', reply_to: null, recipients: '["r1"]' });
    expect(anomalies(twice)).toMatchObject({ duplicates: [expect.stringContaining('s1-000002 stored 2 times')] });
  });

  it('catches a receipt that moves backwards, between observations or against the final mail.db', () => {
    const back = base();
    back.observations.push(obs(1, 'r1', 'delivered', 90));
    expect(anomalies(back)).toEqual({ regressions: [expect.stringContaining('read (test by r1, done 71 ms) then delivered')] });

    const forgotten = base();
    forgotten.deliveries[0]!.state = 1; // mail.db says delivered, but read was seen
    expect(anomalies(forgotten)).toEqual({ regressions: [expect.stringContaining('seen read (test by r1), delivered in mail.db at the end')] });
  });

  it('lets concurrent observations be ordered either way', () => {
    const overlapping = base();
    // Invoked before the mail.read (done at 71 ms) completed, answered after: the hub may have run it first.
    overlapping.observations.push({ ...obs(1, 'r1', 'delivered', 70), completedAt: 95 });
    expect(anomalies(overlapping)).toEqual({});
  });

  it('catches a recipient sequence out of the sender\'s order', () => {
    const swapped = base();
    swapped.deliveries[0]!.seq = 5; // s1-000001 → r1 after s1-000002 → r1 (seq 2)
    expect(anomalies(swapped)).toEqual({ reordered: [expect.stringContaining('s1-000002 has seq 2, after s1-000001 with seq 5')] });
  });

  it('catches an error without a documented code or with the wrong JSON-RPC number', () => {
    const bad = base();
    bad.ops.push(send('s1-000003', 2, 60, 'error', { code: 'OOPS', rpcCode: -32000 }));
    bad.ops.push(send('s1-000003', 3, 70, 'error', { code: 'INTERNAL', rpcCode: -32000 }));
    expect(anomalies(bad)).toEqual({
      badErrorCodes: [expect.stringContaining('without a known code: OOPS'), expect.stringContaining('INTERNAL came with JSON-RPC code -32000, expected -32603')],
    });
  });

  it('catches a stored message nobody sent, and one whose every answer was an error', () => {
    const phantom = base();
    phantom.messages.push({ id: 9, sender: 'r1', message_id: 'r1-re-000001', text: 'never sent', kind: 'response', reply_to: 1, recipients: '["s1"]' });
    phantom.ops[4] = send('s1-000003', 1, 50, 'error', { code: 'INTERNAL', rpcCode: -32603 });
    expect(anomalies(phantom)).toEqual({
      phantoms: [expect.stringContaining('s1-000003 is stored (id 3) but every answer was an error: INTERNAL'), expect.stringContaining('never sent by this workload')],
    });
  });

  it('reports a valid send refused for good', () => {
    const refused = base();
    refused.ops.push(send('s1-000003', 2, 60, 'error', { code: 'MESSAGE_ID_CONFLICT', rpcCode: -32011, errorMessage: 'conflict' }));
    expect(anomalies(refused)).toEqual({ refusedForGood: ['s1-000003 attempt 2: MESSAGE_ID_CONFLICT (conflict)'] });
  });
});
