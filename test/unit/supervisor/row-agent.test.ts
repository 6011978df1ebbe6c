// One row's agent on a fake clock: what lies between a screen change and its state (one snapshot
// interval, one timer), and its events, fired once, by the agent itself.
import { describe, expect, it } from 'vitest';
import { loadProfiles } from '../../../src/agents/load-profiles.js';
import type { AgentStateEvent } from '../../../src/supervisor/row-agent.js';
import { agentOnRow, FakeAgentRow } from '../../helpers/fake-agent-row.js';
import { FakeClock } from '../../helpers/fake-clock.js';
import { loadScreenFixture } from '../../helpers/screen-fixture.js';

const claude = loadProfiles({ configDir: '/nonexistent-swb-config' }).profiles.get('claude')!;
const idle = loadScreenFixture('claude', 'idle-placeholder.txt').snapshot;
const busy = loadScreenFixture('claude', 'real-busy.txt').snapshot;

function setup(first = idle) {
  const clock = new FakeClock();
  let screen = first;
  const row = new FakeAgentRow('alice', () => screen, () => {});
  const agent = agentOnRow({ row, profile: claude, clock, snapshotEveryMs: 50 });
  const changes: AgentStateEvent[] = [];
  agent.onStateChange((e) => changes.push(e));
  const show = (s: typeof idle) => {
    screen = s;
    row.changed();
  };
  return { clock, row, agent, changes, show };
}

describe('RowAgent', () => {
  it('coalesces a burst of changes into one detection', () => {
    const { clock, changes, show, agent } = setup();
    for (let i = 0; i < 20; i++) show(i % 2 ? busy : idle);
    expect(clock.pendingTimers).toBe(1);
    clock.advance(50);
    expect(changes).toHaveLength(1);
    agent.dispose();
  });

  it('a screen change reaches its state within one snapshot interval', () => {
    const { clock, changes, show, agent } = setup();
    clock.advance(50);
    show(busy);
    clock.advance(49);
    expect(agent.state).toBe('unknown');
    clock.advance(1);
    expect(agent.state).toBe('busy');
    expect(changes).toEqual([{ row: 'alice', state: 'busy', rule: 'esc_to_interrupt', reason: null, source: 'screen' }]);
    agent.dispose();
  });

  it('the first screen of an incarnation counts toward the quiet time from when it was shown', () => {
    const { clock, agent } = setup(idle);
    clock.advance(claude.quietMs - 1);
    expect(agent.state).toBe('unknown');
    clock.advance(1);
    expect(agent.state).toBe('idle');
    agent.dispose();
  });

  it('disposing stops its timer and its events', () => {
    const { clock, changes, show, agent } = setup();
    show(busy);
    agent.dispose();
    clock.advance(10_000);
    expect(clock.pendingTimers).toBe(0);
    expect(changes).toEqual([]);
  });
});
