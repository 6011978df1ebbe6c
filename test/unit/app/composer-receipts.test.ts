import { describe, expect, it } from 'vitest';
import { applyReceiptToSend, applySendError, applySendResult, summarizeSend } from '../../../src/app/composer-receipts.js';
import type { SendStatus } from '../../../src/app/composer-state.js';

const sending: SendStatus = {
  messageId: 'op-1',
  id: null,
  at: 0,
  recipients: [
    { to: 'a', state: 'sending', woken: false },
    { to: 'b', state: 'sending', woken: false },
  ],
  error: null,
  duplicate: false,
};

describe('send receipts', () => {
  it('shows each recipient as the hub answers and as receipts move', () => {
    expect(summarizeSend(sending)).toEqual({ text: 'sending → @a … sending · @b … sending', tone: 'pending' });
    let s = applySendResult(sending, { id: 7, messageId: 'op-1', duplicate: false, recipients: [{ to: 'a', seq: 1, state: 'delivered' }, { to: 'b', seq: 1, state: 'accepted' }] });
    s = applyReceiptToSend(s, { id: 7, to: 'b', state: 'woken' });
    expect(summarizeSend(s).text).toBe('#7 → @a ✓ delivered · @b · accepted, woken');
    s = applyReceiptToSend(s, { id: 7, to: 'a', state: 'replied' });
    s = applyReceiptToSend(s, { id: 7, to: 'b', state: 'read' });
    expect(summarizeSend(s).text).toBe('#7 → @a ↩ replied · @b ✓✓ read');
  });

  it('never moves a receipt back, and ignores other messages', () => {
    let s = applySendResult(sending, { id: 7, messageId: 'op-1', duplicate: false, recipients: [{ to: 'a', seq: 1, state: 'read' }] });
    expect(applyReceiptToSend(s, { id: 7, to: 'a', state: 'delivered' })).toBe(s);
    expect(applyReceiptToSend(s, { id: 8, to: 'a', state: 'replied' })).toBe(s);
    s = applyReceiptToSend(s, { id: 7, to: 'a', state: 'replied' });
    expect(s.recipients[0]!.state).toBe('replied');
  });

  it('shows an error with its code', () => {
    const s = applySendError(sending, { code: 'QUEUE_FULL', message: 'b already has 256 unread messages' });
    expect(summarizeSend(s)).toEqual({ text: '✗ QUEUE_FULL: b already has 256 unread messages', tone: 'error' });
  });
});
