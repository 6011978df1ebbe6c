import { describe, expect, it } from 'vitest';
import {
  dedupId,
  ENVELOPE_VERSION,
  inboundFilter,
  mailSubject,
  originOfSubject,
  readEnvelope,
  STREAM,
  SUBJECT_ROOT,
} from '../../../src/federation/envelope.js';

const SELF = 'beta';
const MAX = 1 << 16;

function mail(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    v: ENVELOPE_VERSION,
    origin: 'alpha',
    epoch: '0123456789abcdef',
    seq: 2,
    prev: 1,
    t: 'mail',
    from: 'alice',
    messageId: 'm-1',
    to: ['bob'],
    kind: 'msg',
    text: 'hello',
    replyTo: null,
    createdAt: 1_000,
    ...over,
  };
}

function receipt(over: Record<string, unknown> = {}): Record<string, unknown> {
  return { v: ENVELOPE_VERSION, origin: 'alpha', epoch: 'abc', seq: 5, prev: 4, t: 'receipt', sender: 'bob', messageId: 'm-1', to: 'alice', state: 2, woken: false, at: 7, ...over };
}

const bytes = (v: unknown) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v));

function read(value: unknown, subject = 'swb.alpha.beta.m', maxBytes = MAX) {
  return readEnvelope(bytes(value), subject, SELF, maxBytes);
}

function refusal(value: unknown, subject = 'swb.alpha.beta.m', maxBytes = MAX): string {
  const r = read(value, subject, maxBytes);
  if (!('refused' in r)) throw new Error(`accepted: ${JSON.stringify(value).slice(0, 200)}`);
  return r.refused;
}

describe('subjects and ids', () => {
  it('names swb.<origin>.<destination>.<m|r>', () => {
    expect(SUBJECT_ROOT).toBe('swb');
    expect(STREAM).toBe('SWB_MAIL');
    expect(mailSubject('alpha', 'beta', 'mail')).toBe('swb.alpha.beta.m');
    expect(mailSubject('alpha', 'beta', 'receipt')).toBe('swb.alpha.beta.r');
    expect(inboundFilter('beta')).toBe('swb.*.beta.*');
  });

  it('makes a dedup id from origin, epoch and seq', () => {
    expect(dedupId({ origin: 'alpha', epoch: 'ab12', seq: 42 })).toBe('alpha:ab12:42');
    expect(dedupId({ origin: 'alpha', epoch: 'ab12', seq: 42 })).not.toBe(dedupId({ origin: 'alpha', epoch: 'cd34', seq: 42 }));
  });

  it('reads the origin from a subject addressed to this node only', () => {
    expect(originOfSubject('swb.alpha.beta.m', 'beta')).toBe('alpha');
    expect(originOfSubject('swb.alpha.beta.r', 'beta')).toBe('alpha');
    expect(originOfSubject('swb.alpha.gamma.m', 'beta')).toBeNull();
    expect(originOfSubject('nats.alpha.beta.m', 'beta')).toBeNull();
    expect(originOfSubject('swb.alpha.beta', 'beta')).toBeNull();
    expect(originOfSubject('swb.al.pha.beta.m', 'beta')).toBeNull();
    expect(originOfSubject('swb.*.beta.m', 'beta')).toBeNull();
    expect(originOfSubject('swb.-x.beta.m', 'beta')).toBeNull();
  });
});

describe('readEnvelope: what a receiving node accepts', () => {
  it('accepts a well-formed mail envelope and gives it back as it was', () => {
    const v = mail({ replyTo: { sender: 'bob', messageId: 'orig' } });
    expect(read(v)).toEqual({ ok: v });
  });

  it('accepts a well-formed receipt envelope on an .r subject, state 0 (woken only) included', () => {
    expect(read(receipt(), 'swb.alpha.beta.r')).toEqual({ ok: receipt() });
    for (const state of [0, 1, 2, 3, 9]) expect(read(receipt({ state, woken: state === 0 }), 'swb.alpha.beta.r'), String(state)).toHaveProperty('ok');
  });

  it('accepts the first envelope of a chain (prev 0, seq 1)', () => {
    expect(read(mail({ seq: 1, prev: 0 }))).toHaveProperty('ok');
  });

  describe('subject', () => {
    it('refuses a subject addressed to another node', () => {
      expect(refusal(mail(), 'swb.alpha.gamma.m')).toBe('subject swb.alpha.gamma.m is not swb.<origin>.beta.<m|r>');
    });

    it('refuses a subject of the wrong shape', () => {
      for (const s of ['swb.alpha.beta', 'swb.alpha.beta.m.x', 'other.alpha.beta.m', 'swb.a.b.beta.m']) expect(refusal(mail(), s), s).toContain('is not swb.<origin>.beta');
    });

    it('refuses a kind token other than m or r', () => {
      expect(refusal(mail(), 'swb.alpha.beta.x')).toBe('a mail envelope on a unknown subject');
    });

    it('refuses mail on a receipt subject and a receipt on a mail subject', () => {
      expect(refusal(mail(), 'swb.alpha.beta.r')).toBe('a mail envelope on a receipt subject');
      expect(refusal(receipt(), 'swb.alpha.beta.m')).toBe('a receipt envelope on a mail subject');
      expect(refusal(mail({ t: 'presence' }))).toBe('a presence envelope on a mail subject');
    });
  });

  describe('a node may only publish as itself', () => {
    it('refuses an envelope whose origin is not the subject origin', () => {
      expect(refusal(mail({ origin: 'gamma' }))).toBe('from alpha but names origin gamma: a node may only publish as itself');
      expect(refusal(receipt({ origin: 'gamma' }), 'swb.alpha.beta.r')).toContain('a node may only publish as itself');
    });

    it('refuses an envelope without an origin', () => {
      const v = mail();
      delete v.origin;
      expect(refusal(v)).toContain('names origin undefined');
    });
  });

  describe('framing', () => {
    it('refuses more bytes than allowed, and takes exactly the limit', () => {
      const data = bytes(mail());
      expect(readEnvelope(data, 'swb.alpha.beta.m', SELF, data.length)).toHaveProperty('ok');
      expect(readEnvelope(data, 'swb.alpha.beta.m', SELF, data.length - 1)).toEqual({ refused: `envelope of ${data.length} bytes is over ${data.length - 1}` });
    });

    it('refuses what is not JSON or not an object', () => {
      expect(refusal('{"v":1,')).toBe('not JSON');
      expect(readEnvelope(new Uint8Array([0xff, 0xfe, 0x00]), 'swb.alpha.beta.m', SELF, MAX)).toEqual({ refused: 'not JSON' });
      for (const v of ['null', '[1,2]', '"mail"', '42']) expect(refusal(v), v).toBe('not an object');
    });

    it('refuses another envelope version', () => {
      expect(refusal(mail({ v: 2 }))).toBe('envelope version 2 (this node reads 1)');
      expect(refusal(mail({ v: '1' }))).toContain('envelope version 1');
      const v = mail();
      delete v.v;
      expect(refusal(v)).toContain('envelope version undefined');
    });

    it('refuses a bad epoch', () => {
      for (const epoch of ['', 'ABC', 'xyz', 'a'.repeat(33), 12, null]) expect(refusal(mail({ epoch })), String(epoch)).toBe('bad epoch');
      expect(read(mail({ epoch: 'f'.repeat(32) }))).toHaveProperty('ok');
    });

    it('refuses a seq/prev that is not a count, or a prev not before seq', () => {
      for (const [seq, prev] of [[1, 1], [1, 2], [0, 0], [-1, -2], [1.5, 0], ['2', 1], [2, null], [2 ** 53, 0]] as const) {
        expect(refusal(mail({ seq, prev })), `${seq}/${prev}`).toBe('bad seq/prev');
      }
      expect(read(mail({ seq: 2 ** 53 - 1, prev: 0 }))).toHaveProperty('ok');
    });
  });

  describe('mail fields', () => {
    it('refuses a bad sender handle', () => {
      for (const from of ['al ice', '-alice', 'alice@alpha', 'x'.repeat(65), '']) expect(refusal(mail({ from })), from).toBe('bad sender handle');
    });

    it('refuses a mail envelope without a sender', () => {
      const v = mail();
      delete v.from;
      expect(refusal(v)).toBe('bad sender handle');
    });

    it('refuses a sender that is not a string', () => {
      expect(refusal(mail({ from: null }))).toBe('bad sender handle');
      expect(refusal(mail({ from: ['alice'] }))).toBe('bad sender handle');
    });

    it('bounds the message id', () => {
      expect(refusal(mail({ messageId: '' }))).toBe('bad message id');
      expect(refusal(mail({ messageId: 'm'.repeat(129) }))).toBe('bad message id');
      expect(refusal(mail({ messageId: 7 }))).toBe('bad message id');
      expect(read(mail({ messageId: 'm'.repeat(128) }))).toHaveProperty('ok');
    });

    it('bounds the recipients and checks each handle', () => {
      expect(refusal(mail({ to: [] }))).toBe('bad recipients');
      expect(refusal(mail({ to: 'bob' }))).toBe('bad recipients');
      expect(refusal(mail({ to: ['bob', 'carol@gamma'] }))).toBe('bad recipients');
      expect(refusal(mail({ to: ['bob', 3] }))).toBe('bad recipients');
      expect(refusal(mail({ to: Array.from({ length: 257 }, (_, i) => `h${i}`) }), undefined, 1 << 20)).toBe('bad recipients');
      expect(read(mail({ to: Array.from({ length: 256 }, (_, i) => `h${i}`) }), undefined, 1 << 20)).toHaveProperty('ok');
    });

    it('refuses a kind it does not know', () => {
      for (const kind of ['spam', '', null, 'MSG']) expect(refusal(mail({ kind })), String(kind)).toBe('bad kind');
      for (const kind of ['msg', 'task', 'response', 'data']) expect(read(mail({ kind })), kind).toHaveProperty('ok');
    });

    it('refuses empty, non-string or oversized text (even when the byte limit would allow it)', () => {
      expect(refusal(mail({ text: '' }))).toBe('bad text');
      expect(refusal(mail({ text: 5 }))).toBe('bad text');
      expect(refusal(mail({ text: 'x'.repeat((1 << 20) + 1) }), undefined, 1 << 22)).toBe('bad text');
      expect(read(mail({ text: 'x'.repeat(1 << 20) }), undefined, 1 << 22)).toHaveProperty('ok');
    });

    it('refuses a bad createdAt', () => {
      for (const createdAt of [-1, 1.5, '1000', null]) expect(refusal(mail({ createdAt })), String(createdAt)).toBe('bad createdAt');
    });

    it('refuses a bad replyTo', () => {
      for (const replyTo of [{ sender: 'bob@beta', messageId: 'x' }, { sender: 'bob', messageId: 5 }, { sender: 'bob', messageId: 'x'.repeat(129) }, 'x', [], 3]) {
        expect(refusal(mail({ replyTo })), JSON.stringify(replyTo)).toBe('bad replyTo');
      }
    });

    it('refuses a replyTo without a sender', () => {
      expect(refusal(mail({ replyTo: { messageId: 'x' } }))).toBe('bad replyTo');
    });
  });

  describe('receipt fields', () => {
    const r = (over: Record<string, unknown>) => refusal(receipt(over), 'swb.alpha.beta.r');

    it('refuses bad handles', () => {
      expect(r({ sender: 'bob@beta' })).toBe('bad receipt handles');
      expect(r({ to: '-alice' })).toBe('bad receipt handles');
    });

    it('refuses handles that are missing or not strings', () => {
      const v = receipt();
      delete v.sender;
      expect(refusal(v, 'swb.alpha.beta.r')).toBe('bad receipt handles');
      expect(r({ sender: [['bob']] })).toBe('bad receipt handles');
      expect(r({ to: null })).toBe('bad receipt handles');
    });

    it('bounds the message id', () => {
      expect(r({ messageId: '' })).toBe('bad message id');
      expect(r({ messageId: 'm'.repeat(129) })).toBe('bad message id');
    });

    it('takes only the stored state codes', () => {
      for (const state of [4, 8, 10, -1, '2', null, 2.5]) expect(r({ state }), String(state)).toBe('bad state');
    });

    it('refuses a woken that is not a boolean and a bad time', () => {
      expect(r({ woken: 1 })).toBe('bad receipt');
      expect(r({ at: -5 })).toBe('bad receipt');
      expect(r({ at: 'now' })).toBe('bad receipt');
    });
  });
});
