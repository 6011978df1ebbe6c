import { describe, expect, it } from 'vitest';
import {
  dedupId,
  ENVELOPE_VERSION,
  inboundFilter,
  mailSubject,
  MAX_ITEMS,
  originOfSubject,
  readEnvelope,
  STREAM,
  SUBJECT_ROOT,
} from '../../../src/federation/envelope.js';

const SELF = 'beta';
const SUBJECT = 'swb.alpha.beta.m';
const MAX = 1 << 16;

type Raw = Record<string, unknown>;

function mailItem(id: number, over: Raw = {}): Raw {
  return { id, t: 'mail', from: 'alice', messageId: `m-${id}`, to: ['bob'], kind: 'msg', text: 'hello', replyTo: null, createdAt: 1_000, ...over };
}

function receiptItem(id: number, over: Raw = {}): Raw {
  return { id, t: 'receipt', sender: 'bob', messageId: 'm-1', to: 'alice', state: 2, woken: false, at: 7, ...over };
}

/** An envelope (prev, seq] holding these items; seq is the last item's id unless given. */
function envelope(prev: number, items: Raw[], over: Raw = {}): Raw {
  return { v: ENVELOPE_VERSION, origin: 'alpha', epoch: '0123456789abcdef', prev, seq: items.length > 0 ? items[items.length - 1]!.id : prev + 1, items, ...over };
}

/** One mail item with these fields changed. */
const withMail = (over: Raw) => envelope(1, [mailItem(2, over)]);
const withReceipt = (over: Raw) => envelope(1, [receiptItem(2, over)]);

const bytes = (v: unknown) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v));

function read(value: unknown, subject = SUBJECT, maxBytes = MAX) {
  return readEnvelope(bytes(value), subject, SELF, maxBytes);
}

function refusal(value: unknown, subject = SUBJECT, maxBytes = MAX): string {
  const r = read(value, subject, maxBytes);
  if (!('refused' in r)) throw new Error(`accepted: ${JSON.stringify(value).slice(0, 200)}`);
  return r.refused;
}

describe('subjects and ids', () => {
  it('names swb.<origin>.<destination>.m', () => {
    expect(SUBJECT_ROOT).toBe('swb');
    expect(STREAM).toBe('SWB_MAIL');
    expect(mailSubject('alpha', 'beta')).toBe('swb.alpha.beta.m');
    expect(inboundFilter('beta')).toBe('swb.*.beta.*');
  });

  it('makes a dedup id from origin, epoch and the run (prev, seq]', () => {
    expect(dedupId({ origin: 'alpha', epoch: 'ab12', prev: 3, seq: 7 })).toBe('alpha:ab12:3-7');
    const ids = new Set([
      dedupId({ origin: 'alpha', epoch: 'ab12', prev: 3, seq: 7 }),
      dedupId({ origin: 'alpha', epoch: 'cd34', prev: 3, seq: 7 }),
      dedupId({ origin: 'alpha', epoch: 'ab12', prev: 3, seq: 9 }),
      dedupId({ origin: 'alpha', epoch: 'ab12', prev: 5, seq: 7 }),
      dedupId({ origin: 'gamma', epoch: 'ab12', prev: 3, seq: 7 }),
    ]);
    expect(ids.size).toBe(5);
  });

  it('reads the origin from a subject addressed to this node only', () => {
    expect(originOfSubject('swb.alpha.beta.m', 'beta')).toBe('alpha');
    for (const s of ['swb.alpha.gamma.m', 'nats.alpha.beta.m', 'swb.alpha.beta', 'swb.al.pha.beta.m', 'swb.*.beta.m', 'swb.-x.beta.m', 'swb.alpha.beta.r', 'swb.alpha.beta.x']) {
      expect(originOfSubject(s, 'beta'), s).toBeNull();
    }
  });
});

describe('readEnvelope: what a receiving node accepts', () => {
  it('accepts a well-formed envelope of mail and receipts and gives it back as it was', () => {
    const v = envelope(4, [mailItem(5, { replyTo: { sender: 'bob', messageId: 'orig' } }), receiptItem(7), mailItem(12, { kind: 'task' })]);
    expect(read(v)).toEqual({ ok: v });
  });

  it('accepts receipt items of every stored state, state 0 (woken only) included', () => {
    for (const state of [0, 1, 2, 3, 9]) expect(read(withReceipt({ state, woken: state === 0 })), String(state)).toHaveProperty('ok');
  });

  it('accepts the first run of a chain (prev 0)', () => {
    expect(read(envelope(0, [mailItem(1)]))).toHaveProperty('ok');
  });

  it('accepts MAX_ITEMS items and no more', () => {
    expect(MAX_ITEMS).toBe(256);
    const items = (n: number) => Array.from({ length: n }, (_, i) => receiptItem(i + 1));
    expect(read(envelope(0, items(MAX_ITEMS)), SUBJECT, 1 << 20)).toHaveProperty('ok');
    expect(refusal(envelope(0, items(MAX_ITEMS + 1)), SUBJECT, 1 << 20)).toBe('an envelope holds 1 to 256 items');
  });

  describe('subject', () => {
    it('refuses a subject addressed to another node', () => {
      expect(refusal(envelope(0, [mailItem(1)]), 'swb.alpha.gamma.m')).toBe('subject swb.alpha.gamma.m is not swb.<origin>.beta.m');
    });

    it('refuses a subject of another shape or kind token', () => {
      for (const s of ['swb.alpha.beta', 'swb.alpha.beta.m.x', 'other.alpha.beta.m', 'swb.a.b.beta.m', 'swb.alpha.beta.r']) {
        expect(refusal(envelope(0, [mailItem(1)]), s), s).toBe(`subject ${s} is not swb.<origin>.beta.m`);
      }
    });
  });

  describe('a node may only publish as itself', () => {
    it('refuses an envelope whose origin is not the subject origin', () => {
      expect(refusal(envelope(0, [mailItem(1)], { origin: 'gamma' }))).toBe('from alpha but names origin gamma: a node may only publish as itself');
    });

    it('refuses an envelope without an origin', () => {
      const v = envelope(0, [mailItem(1)]);
      delete v.origin;
      expect(refusal(v)).toBe('from alpha but names origin undefined: a node may only publish as itself');
    });
  });

  describe('framing', () => {
    it('refuses more bytes than allowed, and takes exactly the limit', () => {
      const data = bytes(envelope(0, [mailItem(1)]));
      expect(readEnvelope(data, SUBJECT, SELF, data.length)).toHaveProperty('ok');
      expect(readEnvelope(data, SUBJECT, SELF, data.length - 1)).toEqual({ refused: `envelope of ${data.length} bytes is over ${data.length - 1}` });
    });

    it('refuses what is not JSON or not an object', () => {
      expect(refusal('{"v":1,')).toBe('not JSON');
      expect(readEnvelope(new Uint8Array([0xff, 0xfe, 0x00]), SUBJECT, SELF, MAX)).toEqual({ refused: 'not JSON' });
      for (const v of ['null', '[1,2]', '"mail"', '42']) expect(refusal(v), v).toBe('not an object');
    });

    it('refuses another envelope version', () => {
      expect(refusal(envelope(0, [mailItem(1)], { v: 2 }))).toBe('envelope version 2 (this node reads 1)');
      expect(refusal(envelope(0, [mailItem(1)], { v: '1' }))).toBe('envelope version 1 (this node reads 1)');
    });

    it('refuses a bad epoch', () => {
      for (const epoch of ['', 'ABC', 'xyz', 'a'.repeat(33), 12, null]) expect(refusal(envelope(0, [mailItem(1)], { epoch })), String(epoch)).toBe('bad epoch');
      expect(read(envelope(0, [mailItem(1)], { epoch: 'f'.repeat(32) }))).toHaveProperty('ok');
    });

    it('refuses a seq/prev that is not a count, or a prev not before seq', () => {
      for (const [seq, prev] of [[1, 1], [1, 2], [0, 0], [-1, -2], [1.5, 0], ['2', 1], [2, null], [2 ** 53, 0]] as const) {
        expect(refusal(envelope(0, [mailItem(1)], { seq, prev })), `${seq}/${prev}`).toBe('bad seq/prev');
      }
    });
  });

  describe('the run of items', () => {
    it('refuses an envelope without items', () => {
      expect(refusal(envelope(1, [], { seq: 2 }))).toBe('an envelope holds 1 to 256 items');
      expect(refusal(envelope(1, [mailItem(2)], { items: mailItem(2) }))).toBe('an envelope holds 1 to 256 items');
      const v = envelope(1, [mailItem(2)]);
      delete v.items;
      expect(refusal(v)).toBe('an envelope holds 1 to 256 items');
    });

    it('wants item ids that rise above prev', () => {
      expect(refusal(envelope(3, [mailItem(3)], { seq: 4 }))).toBe('item ids must rise above prev');
      expect(refusal(envelope(3, [mailItem(2)], { seq: 4 }))).toBe('item ids must rise above prev');
      expect(refusal(envelope(3, [mailItem(5), mailItem(5)]))).toBe('item ids must rise above prev');
      expect(refusal(envelope(3, [mailItem(6), mailItem(5)]))).toBe('item ids must rise above prev');
      expect(refusal(envelope(3, [mailItem(4.5 as number)], { seq: 5 }))).toBe('item ids must rise above prev');
      expect(refusal(envelope(3, [{ ...mailItem(4), id: '4' }], { seq: 4 }))).toBe('item ids must rise above prev');
      expect(refusal(envelope(3, [mailItem(4), 'x' as unknown as Raw], { seq: 5 }))).toBe('item ids must rise above prev');
      // Gaps between ids are fine: the other ids went to other nodes.
      expect(read(envelope(3, [mailItem(5), receiptItem(9), mailItem(40)]))).toHaveProperty('ok');
    });

    it('wants seq to be the last item’s id', () => {
      expect(refusal(envelope(3, [mailItem(4), mailItem(5)], { seq: 6 }))).toBe("seq is not the last item's id");
      expect(refusal(envelope(3, [mailItem(4), mailItem(5)], { seq: 4 }))).toBe("seq is not the last item's id");
    });

    it('names the item that is wrong', () => {
      expect(refusal(envelope(3, [mailItem(4), mailItem(5, { kind: 'spam' })]))).toBe('item 5: bad kind');
    });

    it('refuses an item of an unknown type', () => {
      expect(refusal(envelope(3, [{ id: 4, t: 'presence', messageId: 'x' }]))).toBe('item 4: unknown item type presence');
    });
  });

  describe('mail items', () => {
    const mailRefusal = (over: Raw) => refusal(withMail(over));

    it('refuses a bad sender handle', () => {
      for (const from of ['al ice', '-alice', 'alice@alpha', 'x'.repeat(65), '']) expect(mailRefusal({ from }), from).toBe('item 2: bad sender handle');
    });

    it('refuses a mail item without a sender', () => {
      const v = withMail({});
      delete (v.items as Raw[])[0]!.from;
      expect(refusal(v)).toBe('item 2: bad sender handle');
    });

    it('refuses a sender that is not a string', () => {
      expect(mailRefusal({ from: null })).toBe('item 2: bad sender handle');
      expect(mailRefusal({ from: ['alice'] })).toBe('item 2: bad sender handle');
    });

    it('bounds the message id', () => {
      expect(mailRefusal({ messageId: '' })).toBe('item 2: bad message id');
      expect(mailRefusal({ messageId: 'm'.repeat(129) })).toBe('item 2: bad message id');
      expect(mailRefusal({ messageId: 7 })).toBe('item 2: bad message id');
      expect(read(withMail({ messageId: 'm'.repeat(128) }))).toHaveProperty('ok');
    });

    it('bounds the recipients and checks each handle', () => {
      expect(mailRefusal({ to: [] })).toBe('item 2: bad recipients');
      expect(mailRefusal({ to: 'bob' })).toBe('item 2: bad recipients');
      expect(mailRefusal({ to: ['bob', 'carol@gamma'] })).toBe('item 2: bad recipients');
      expect(mailRefusal({ to: ['bob', 3] })).toBe('item 2: bad recipients');
      expect(refusal(withMail({ to: Array.from({ length: 257 }, (_, i) => `h${i}`) }), SUBJECT, 1 << 20)).toBe('item 2: bad recipients');
      expect(read(withMail({ to: Array.from({ length: 256 }, (_, i) => `h${i}`) }), SUBJECT, 1 << 20)).toHaveProperty('ok');
    });

    it('refuses a kind it does not know', () => {
      for (const kind of ['spam', '', null, 'MSG']) expect(mailRefusal({ kind }), String(kind)).toBe('item 2: bad kind');
      for (const kind of ['msg', 'task', 'response', 'data']) expect(read(withMail({ kind })), kind).toHaveProperty('ok');
    });

    it('refuses empty, non-string or oversized text (even when the byte limit would allow it)', () => {
      expect(mailRefusal({ text: '' })).toBe('item 2: bad text');
      expect(mailRefusal({ text: 5 })).toBe('item 2: bad text');
      expect(refusal(withMail({ text: 'x'.repeat((1 << 20) + 1) }), SUBJECT, 1 << 22)).toBe('item 2: bad text');
      expect(read(withMail({ text: 'x'.repeat(1 << 20) }), SUBJECT, 1 << 22)).toHaveProperty('ok');
    });

    it('refuses a bad createdAt', () => {
      for (const createdAt of [-1, 1.5, '1000', null]) expect(mailRefusal({ createdAt }), String(createdAt)).toBe('item 2: bad createdAt');
    });

    it('refuses a bad replyTo', () => {
      for (const replyTo of [{ sender: 'bob@beta', messageId: 'x' }, { sender: 'bob', messageId: 5 }, { sender: 'bob', messageId: 'x'.repeat(129) }, 'x', [], 3]) {
        expect(mailRefusal({ replyTo }), JSON.stringify(replyTo)).toBe('item 2: bad replyTo');
      }
    });

    it('refuses a replyTo without a sender', () => {
      expect(mailRefusal({ replyTo: { messageId: 'x' } })).toBe('item 2: bad replyTo');
    });
  });

  describe('receipt items', () => {
    const r = (over: Raw) => refusal(withReceipt(over));

    it('refuses bad handles', () => {
      expect(r({ sender: 'bob@beta' })).toBe('item 2: bad receipt handles');
      expect(r({ to: '-alice' })).toBe('item 2: bad receipt handles');
    });

    it('refuses handles that are missing or not strings', () => {
      const v = withReceipt({});
      delete (v.items as Raw[])[0]!.sender;
      expect(refusal(v)).toBe('item 2: bad receipt handles');
      expect(r({ sender: [['bob']] })).toBe('item 2: bad receipt handles');
      expect(r({ to: null })).toBe('item 2: bad receipt handles');
    });

    it('bounds the message id', () => {
      expect(r({ messageId: '' })).toBe('item 2: bad message id');
      expect(r({ messageId: 'm'.repeat(129) })).toBe('item 2: bad message id');
    });

    it('takes only the stored state codes', () => {
      for (const state of [4, 8, 10, -1, '2', null, 2.5]) expect(r({ state }), String(state)).toBe('item 2: bad state');
    });

    it('refuses a woken that is not a boolean and a bad time', () => {
      expect(r({ woken: 1 })).toBe('item 2: bad receipt');
      expect(r({ at: -5 })).toBe('item 2: bad receipt');
      expect(r({ at: 'now' })).toBe('item 2: bad receipt');
    });
  });
});
