// Another node's presence entry is its own words: only real handles come through to `swb peers`
// and the composer's completion.
import { describe, expect, it } from 'vitest';
import { parsePresenceValue } from '../../../src/federation/presence.js';

describe('parsePresenceValue', () => {
  it('keeps real handles and drops anything else a node puts in its presence', () => {
    const v = parsePresenceValue(
      JSON.stringify({
        node: 'beta',
        epoch: 'ab',
        at: 5,
        peers: [
          { handle: 'bob', online: true },
          { handle: '\x1b]0;owned\x07', online: true },
          { handle: 'x'.repeat(65), online: false },
          { handle: 'a b', online: true },
          { handle: 'carol', online: 'yes' },
          'dave',
        ],
      }),
    );
    expect(v?.peers).toEqual([{ handle: 'bob', online: true }]);
  });

  it('refuses an entry that is not one', () => {
    expect(parsePresenceValue('not json')).toBeNull();
    expect(parsePresenceValue(JSON.stringify({ node: 'beta', epoch: 'ab', at: 'now', peers: [] }))).toBeNull();
  });
});
