import { describe, expect, it } from 'vitest';
import { buildSendRequest, type SendContext } from '../../../src/hub/send-request.js';

const ctx = (over: Partial<SendContext> = {}): SendContext => ({
  limits: { maxMessageBytes: 100, maxRecipients: 3, ratePerSecond: 10 },
  onlineHandles: () => ['alice', 'bob', 'me'],
  hearsPushes: (h) => h === 'bob',
  rateWait: () => 0,
  isStored: () => false,
  ...over,
});

describe('buildSendRequest', () => {
  it('expands @all to the online sessions but the sender; only @all recipients are optional', () => {
    const r = buildSendRequest('me', { to: ['carol', 'all'], text: 'hi' }, ctx());
    if (!('request' in r)) throw new Error('refused');
    expect(r.request.to).toEqual(['carol', 'alice', 'bob']);
    expect([...(r.request.optional ?? [])]).toEqual(['alice', 'bob']);
    expect([...r.request.live]).toEqual(['bob']);
    expect(r.request.requestedTo).toEqual(['carol', 'all']);
    expect(r.request.messageId).toMatch(/^[A-Za-z0-9_-]{12}$/);
  });

  it('refuses what is over the limits, empty, or too fast — unless it is a retry of a stored message', () => {
    expect(buildSendRequest('me', { to: ['a'], text: 'x'.repeat(101) }, ctx())).toMatchObject({ error: { code: 'MESSAGE_TOO_LARGE' } });
    expect(buildSendRequest('me', { to: ['a'], text: '' }, ctx())).toMatchObject({ error: { code: 'BAD_REQUEST' } });
    expect(buildSendRequest('me', { to: ['a', 'b', 'c', 'd'], text: 'x' }, ctx())).toMatchObject({ error: { code: 'BAD_REQUEST' } });
    const fast = ctx({ rateWait: () => 250 });
    expect(buildSendRequest('me', { to: ['a'], text: 'x' }, fast)).toMatchObject({ error: { code: 'RATE_LIMITED', details: { retryAfterMs: 250 } } });
    expect('request' in buildSendRequest('me', { to: ['a'], text: 'x', messageId: 'm1' }, ctx({ rateWait: () => 250, isStored: () => true }))).toBe(true);
  });

  it('stores well-formed text: a lone surrogate becomes U+FFFD', () => {
    const r = buildSendRequest('me', { to: ['a'], text: 'a\ud800b' }, ctx());
    expect('request' in r && r.request.text).toBe('a\ufffdb');
  });
});
