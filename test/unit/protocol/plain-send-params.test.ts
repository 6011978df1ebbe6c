// The hub's hand check of mail.send params (issue #33) stands in for the zod schema on the hot
// path: whatever it accepts, the schema must accept as the same value, and anything else must be
// left to the schema (undefined), so refusals keep the schema's words.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { plainSendParams, sendParams } from '../../../src/protocol/method-params.js';

const accepted = [
  { to: ['bob'], text: 'hi' },
  { to: ['bob', 'carol@beta', 'all'], text: '', kind: 'task', replyTo: 7, messageId: 'a.b:c-d_1' },
  { to: ['x'.repeat(129)], text: 'é\u{1F600}', kind: 'data' },
  { to: Array.from({ length: 256 }, (_, i) => `h${i}`), text: 'many' },
];

const refused: unknown[] = [
  null,
  [],
  'text',
  {},
  { to: [], text: 'hi' },
  { to: 'bob', text: 'hi' },
  { to: ['bob'] },
  { to: ['bob'], text: 3 },
  { to: [''], text: 'hi' },
  { to: ['x'.repeat(130)], text: 'hi' },
  { to: Array.from({ length: 257 }, (_, i) => `h${i}`), text: 'many' },
  { to: [3], text: 'hi' },
  { to: ['bob'], text: 'hi', kind: 'chat' },
  { to: ['bob'], text: 'hi', replyTo: 0 },
  { to: ['bob'], text: 'hi', replyTo: 1.5 },
  { to: ['bob'], text: 'hi', replyTo: 2 ** 53 },
  { to: ['bob'], text: 'hi', messageId: '' },
  { to: ['bob'], text: 'hi', messageId: 'has space' },
  { to: ['bob'], text: 'hi', messageId: 'x'.repeat(129) },
  { to: ['bob'], text: 'hi', from: 'mallory' },
  JSON.parse('{"to":["bob"],"text":"hi","__proto__":{"x":1}}'),
];

describe('plainSendParams', () => {
  it('takes the common sends as they are, exactly as the schema parses them', () => {
    for (const p of accepted) {
      const plain = plainSendParams(p);
      expect(plain).toBe(p);
      expect(sendParams().parse(p)).toEqual(plain);
    }
  });

  it('leaves everything the schema refuses to the schema', () => {
    for (const p of refused) {
      expect(plainSendParams(p)).toBeUndefined();
      expect(sendParams().safeParse(p).success).toBe(false);
    }
  });

  it('never accepts what the schema refuses, nor anything it would parse differently (random params)', () => {
    const value = fc.oneof(fc.string({ maxLength: 140 }), fc.integer(), fc.double(), fc.constant(undefined), fc.constant(null), fc.boolean());
    const params = fc.record(
      {
        to: fc.oneof(fc.array(fc.string({ maxLength: 140 }), { maxLength: 4 }), value),
        text: value,
        kind: fc.oneof(fc.constantFrom('msg', 'task', 'response', 'data', 'chat'), value),
        replyTo: value,
        messageId: fc.oneof(fc.stringMatching(/^[A-Za-z0-9._:-]{0,3}$/), value),
        extra: value,
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(params, (p) => {
        const plain = plainSendParams(p);
        if (plain === undefined) return;
        const parsed = sendParams().safeParse(p);
        expect(parsed.success).toBe(true);
        expect(parsed.data).toEqual(plain);
      }),
      { numRuns: 2000 },
    );
  });
});
