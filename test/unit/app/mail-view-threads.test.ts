import { describe, expect, it } from 'vitest';
import type { MailEntry } from '../../../src/app/mail-view-state.js';
import { entry } from './fixtures.js';
import { buildThreads, mailDetailLines, mailLineView, markReadTargets, receiptBadge, unreadFor } from '../../../src/app/mail-view-threads.js';

const ids = (entries: MailEntry[]) => buildThreads(entries).map((l) => `${'  '.repeat(l.depth)}${l.entry.id}`);

describe('buildThreads', () => {
  it('puts replies under their parent, oldest first, threads by latest activity', () => {
    // newest first, as the store pages them
    const entries = [entry(6), entry(5, { replyTo: 1 }), entry(4), entry(3, { replyTo: 2 }), entry(2, { replyTo: 1 }), entry(1)];
    expect(ids(entries)).toEqual(['6', '1', '  2', '    3', '  5', '4']);
  });

  it('starts a thread for a reply whose parent is not loaded, and says so', () => {
    const lines = buildThreads([entry(9, { replyTo: 3 })]);
    expect(lines[0]).toMatchObject({ depth: 0, orphanOf: 3 });
    expect(mailLineView(lines[0]!, null).prefix).toBe('re #3 ');
  });

  it('survives a deep chain without recursion', () => {
    const entries = Array.from({ length: 5000 }, (_, i) => entry(5000 - i, { replyTo: 5000 - i > 1 ? 4999 - i : null }));
    const lines = buildThreads(entries);
    expect(lines).toHaveLength(5000);
    expect(lines[4999]!.depth).toBe(4999);
    expect(mailLineView(lines[4999]!, null).prefix.length).toBeLessThan(20);
  });
});

describe('unread and mark read', () => {
  const e = entry(1, {
    to: ['b', 'operator', 'c'],
    receipts: [
      { to: 'b', state: 'read', woken: false },
      { to: 'operator', state: 'delivered', woken: false },
      { to: 'c', state: 'accepted', woken: true },
    ],
  });

  it('takes the filtered row’s copy, else the operator’s, else anyone’s', () => {
    expect(unreadFor(e, 'b')).toBe(false);
    expect(unreadFor(e, 'c')).toBe(true);
    expect(unreadFor(e, null)).toBe(true);
    expect(markReadTargets(e, 'c')).toEqual(['c']);
    expect(markReadTargets(e, 'b')).toEqual([]);
    expect(markReadTargets(e, null)).toEqual(['operator']);
    const notMine = entry(2, { to: ['b', 'c'], receipts: e.receipts.filter((r) => r.to !== 'operator') });
    expect(markReadTargets(notMine, null)).toEqual(['c']);
  });

  it('summarises receipts', () => {
    expect(receiptBadge(e.receipts)).toBe('read 1/3');
    expect(receiptBadge([{ to: 'x', state: 'accepted', woken: true }])).toBe('woken');
    expect(receiptBadge([{ to: 'x', state: 'replied', woken: false }, { to: 'y', state: 'expired', woken: false }])).toBe('replied 1/2 expired 1');
  });
});

describe('what reaches the screen', () => {
  const hostile = entry(1, {
    from: 'ev\x1b[2Jil',
    kind: 'msg\x07',
    text: '\x1b]0;pwned\x07first\u202eline\nsecond \x1b[31mline\x1b[0m\x9b2J',
    to: ['b\x1bc'],
  });

  it('sanitizes every peer string in list lines and the opened message', () => {
    const v = mailLineView(buildThreads([hostile])[0]!, null);
    const d = mailDetailLines(hostile, 10);
    const all = [v.head, v.kind, v.preview, ...d.header, ...d.body].join('\n');
    // eslint-disable-next-line no-control-regex
    expect(all).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f-\x9f\u202e]/);
    expect(v.preview).toContain('first');
    expect(v.preview).not.toContain('second');
    expect(d.body.join('\n')).toContain('second');
  });

  it('bounds the opened message to the lines it has', () => {
    const long = entry(1, { text: Array.from({ length: 100 }, (_, i) => `line ${i}`).join('\n') });
    expect(mailDetailLines(long, 5).body.length).toBeLessThanOrEqual(6);
  });
});
