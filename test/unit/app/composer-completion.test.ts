import { describe, expect, it } from 'vitest';
import { completionCandidates, describeStale, staleMentions } from '../../../src/app/composer-completion.js';
import type { PeerView } from '../../../src/app/composer-state.js';
import { row } from './fixtures.js';

const peers: PeerView[] = [
  { handle: 'operator', online: false, role: 'operator' },
  { handle: 'alice', online: false, role: 'row' },
  { handle: 'script', online: true, role: 'participant' },
  { handle: 'archive', online: false, role: 'participant' },
];

describe('completionCandidates', () => {
  it('lists running rows first, then other known handles (online first), then @all', () => {
    const rows = [row('old', { running: false }), row('alice'), row('bob')];
    const c = completionCandidates('', rows, peers);
    expect(c.map((x) => x.handle)).toEqual(['alice', 'bob', 'old', 'script', 'archive', 'all']);
    expect(c[0]).toMatchObject({ target: 'row', incarnation: 1, note: 'running' });
    expect(c[2]!.note).toBe('exited');
    expect(c.find((x) => x.handle === 'all')!.target).toBe('broadcast');
  });

  it('never offers the operator itself', () => {
    expect(completionCandidates('op', [], peers)).toEqual([]);
  });

  it('matches prefixes first, case-insensitively, then substrings', () => {
    const rows = [row('Alpha'), row('beta'), row('gamma-a')];
    expect(completionCandidates('a', rows, peers).map((x) => x.handle)).toEqual(['Alpha', 'alice', 'archive', 'all', 'beta', 'gamma-a']);
  });

  it('binds a row candidate to its incarnation', () => {
    const c = completionCandidates('bo', [row('bob', { incarnation: 4 })], []);
    expect(c[0]).toMatchObject({ handle: 'bob', target: 'row', incarnation: 4 });
  });
});

describe('staleMentions', () => {
  const bindings = [
    { handle: 'a', target: 'row' as const, incarnation: 1 },
    { handle: 'b', target: 'row' as const, incarnation: 2 },
    { handle: 'p', target: 'peer' as const, incarnation: null },
  ];

  it('flags a row restarted or closed since its mention was completed', () => {
    const rows = [row('a', { incarnation: 2 }), row('b', { incarnation: 2 })];
    expect(staleMentions(['a', 'b', 'c', 'p'], bindings, rows)).toEqual([{ handle: 'a', reason: 'restarted' }]);
    expect(staleMentions(['b'], bindings, [])).toEqual([{ handle: 'b', reason: 'closed' }]);
    expect(describeStale([{ handle: 'a', reason: 'restarted' }])).toMatch(/@a was restarted .*not sent/);
  });

  it('ignores recipients that were typed, not completed', () => {
    expect(staleMentions(['zed'], bindings, [])).toEqual([]);
  });
});
