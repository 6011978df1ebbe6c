// A row's agent with both signals (issue #37), on a fake clock: a hook decides a transition at once,
// the screen covers what hooks miss, the waiting reason rides on the state event, a turn's end is
// announced once, and a hook's Stop lets a wake fire without waiting out the screen's quiet time.
import { describe, expect, it } from 'vitest';
import { formatExplanation } from '../../../src/agents/format-explanation.js';
import { loadProfiles } from '../../../src/agents/load-profiles.js';
import type { AgentStateEvent, AgentTurnEndedEvent } from '../../../src/supervisor/row-agent.js';
import { agentOnRow, FakeAgentRow } from '../../helpers/fake-agent-row.js';
import { FakeClock } from '../../helpers/fake-clock.js';
import { loadScreenFixture } from '../../helpers/screen-fixture.js';

const claude = loadProfiles({ configDir: '/nonexistent-swb-config' }).profiles.get('claude')!;
const idle = loadScreenFixture('claude', 'real-idle.txt').snapshot;
const afterTurn = loadScreenFixture('claude', 'real-after-turn.txt').snapshot;
const busy = loadScreenFixture('claude', 'real-busy.txt').snapshot;
const permission = loadScreenFixture('claude', 'real-permission-dialog.txt').snapshot;

function setup(unread = { messageIds: [] as string[], maxSeq: 0 }) {
  const clock = new FakeClock();
  let screen = idle;
  const typed: string[] = [];
  const row = new FakeAgentRow('alice', () => screen, (b) => typed.push(b));
  const agent = agentOnRow({ row, profile: claude, clock, snapshotEveryMs: 50, unread: () => unread });
  const changes: AgentStateEvent[] = [];
  const ends: AgentTurnEndedEvent[] = [];
  agent.onStateChange((e) => changes.push(e));
  agent.onTurnEnded((e) => ends.push(e));
  const show = (s: typeof idle) => {
    screen = s;
    row.changed();
  };
  // Settle on the idle prompt (the quiet time passes).
  clock.advance(50 + claude.quietMs + 10);
  return { clock, row, agent, changes, ends, show, typed };
}

describe('RowAgent with hooks', () => {
  it('a turn start and end reach the state at once, ahead of the screen, with the source and a turn-ended event', () => {
    const { clock, agent, changes, ends, show } = setup();
    expect(agent.state).toBe('idle');
    agent.hookReported({ event: 'user-prompt-submit' });
    expect(agent.state).toBe('busy');
    expect(changes.at(-1)).toMatchObject({ state: 'busy', source: 'hook', rule: 'hook UserPromptSubmit' });
    show(busy);
    clock.advance(50);
    expect(agent.state).toBe('busy');
    show(afterTurn);
    clock.advance(50);
    // The screen's rules read idle, but it holds busy for its quiet time; the Stop hook ends it now.
    expect(agent.explainRow().state.state).toBe('busy');
    agent.hookReported({ event: 'stop' });
    expect(agent.state).toBe('idle');
    expect(ends).toEqual([{ row: 'alice', at: clock.now(), by: 'hook' }]);
    clock.advance(claude.quietMs + 100);
    expect(agent.state).toBe('idle');
    expect(ends).toHaveLength(1);
    agent.dispose();
  });

  it("a state a hook decided carries when the agent started that hook (signalAt); one the screen decided does not", () => {
    const { clock, agent, changes, show } = setup();
    expect(changes.at(-1)).not.toHaveProperty('signalAt');
    clock.advance(1000);
    const started = clock.now() - 40;
    agent.hookReported({ event: 'user-prompt-submit', startedAt: started });
    expect(changes.at(-1)).toMatchObject({ state: 'busy', source: 'hook', signalAt: started });
    show(busy);
    clock.advance(50);
    show(afterTurn);
    clock.advance(50);
    agent.hookReported({ event: 'stop', startedAt: clock.now() - 5 });
    expect(changes.at(-1)).toMatchObject({ state: 'idle', signalAt: clock.now() - 5 });
    // No hook for the next turn's start: the screen decides it, and says so by no signalAt.
    show(busy);
    clock.advance(50);
    expect(changes.at(-1)).toMatchObject({ state: 'busy', source: 'screen' });
    expect(changes.at(-1)).not.toHaveProperty('signalAt');
    agent.dispose();
  });

  it('a permission hook shows waiting (permission); the screen agreeing keeps the reason; an answer takes it back to busy', () => {
    const { clock, agent, changes, show } = setup();
    agent.hookReported({ event: 'user-prompt-submit' });
    show(busy);
    clock.advance(50);
    agent.hookReported({ event: 'permission-request' });
    expect(changes.at(-1)).toMatchObject({ state: 'waiting', reason: 'permission', source: 'hook' });
    show(permission);
    clock.advance(50);
    expect(agent.state).toBe('waiting');
    expect(agent.waitingReason).toBe('permission');
    // Answered: the dialog is gone and the tool runs (no hook yet): the newer screen wins.
    show(busy);
    clock.advance(50);
    expect(agent.state).toBe('busy');
    expect(agent.waitingReason).toBeNull();
    agent.dispose();
  });

  it('an Esc interrupt (no Stop hook) is covered by the screen: back to idle after its quiet time', () => {
    const { clock, agent, show, ends } = setup();
    agent.hookReported({ event: 'user-prompt-submit' });
    show(busy);
    clock.advance(50);
    show(afterTurn);
    clock.advance(50 + claude.quietMs + 10);
    expect(agent.state).toBe('idle');
    expect(agent.explainRow().fusion.verdict.rule).toBe('screen-newer');
    expect(ends).toMatchObject([{ by: 'screen' }]);
    agent.dispose();
  });

  it('a hook that said busy while the screen stays idle is outvoted after N s, and explain says so', () => {
    const { clock, agent } = setup();
    agent.hookReported({ event: 'pre-tool-use', toolName: 'Bash' });
    expect(agent.state).toBe('busy');
    clock.advance(5001);
    expect(agent.state).toBe('idle');
    const f = agent.explainRow().fusion;
    expect(f.verdict).toMatchObject({ rule: 'disagree', won: 'screen' });
    expect(f.hook).toMatchObject({ event: 'PreToolUse(Bash)', kind: 'work' });
    agent.dispose();
  });

  it('explain shows both signals, their ages, which won and why', () => {
    const { clock, agent } = setup();
    agent.hookReported({ event: 'permission-request' });
    clock.advance(1200);
    const e = agent.explainRow();
    const text = formatExplanation(e.state, { fusion: e.fusion, prompt: e.prompt, wake: e.wake });
    expect(text).toMatch(/^alice: waiting \(permission\) \(profile claude\)/);
    expect(text).toMatch(/\n {2}screen: {3}idle for \d+\.\d s/);
    expect(text).toContain('  hook:     PermissionRequest → waiting (permission), 1.2 s ago');
    expect(text).toMatch(/\n {2}decided: {2}hook won by rule hook: /);
    agent.dispose();
  });

  it('a hook that started before the last one reported is stale news', () => {
    const { agent } = setup();
    agent.hookReported({ event: 'stop', startedAt: 2000 });
    agent.hookReported({ event: 'post-tool-use', startedAt: 1999 });
    expect(agent.state).toBe('idle');
    agent.dispose();
  });

  it("a hook's Stop lets a pending wake type without waiting out the screen's quiet time", () => {
    const unread = { messageIds: [] as string[], maxSeq: 0 };
    const { clock, agent, show, typed } = setup(unread);
    agent.hookReported({ event: 'user-prompt-submit' });
    show(busy);
    clock.advance(50);
    unread.messageIds = ['7'];
    unread.maxSeq = 7;
    agent.setUnread(unread);
    expect(typed).toEqual([]);
    show(afterTurn);
    clock.advance(50);
    expect(typed).toEqual([]); // the screen alone would wait its quiet time out
    agent.hookReported({ event: 'stop' });
    expect(typed).toEqual([claude.wakeLine]);
    agent.dispose();
  });

  it("a hook's idle-prompt notification reads as waiting (idle-prompt); the wake still types into it", () => {
    const unread = { messageIds: [] as string[], maxSeq: 0 };
    const { agent, typed } = setup(unread);
    agent.hookReported({ event: 'notification', notificationType: 'idle_prompt' });
    expect(agent.state).toBe('waiting');
    expect(agent.waitingReason).toBe('idle-prompt');
    agent.setUnread({ messageIds: ['1'], maxSeq: 1 });
    expect(typed).toEqual([claude.wakeLine]);
    agent.dispose();
  });
});

describe('RowAgent: an Esc read from the transcript (Claude Code has no hook for it)', () => {
  /** A turn started by its hook, then drawn (the screen reads busy). */
  function turnOnScreen(clock: FakeClock, agent: ReturnType<typeof setup>['agent'], show: ReturnType<typeof setup>['show']): void {
    agent.hookReported({ event: 'user-prompt-submit', startedAt: clock.now() });
    show(busy);
    clock.advance(50);
  }

  it('ends the turn at once, ahead of the screen, named in the state event and explain', () => {
    const { clock, agent, changes, ends, show } = setup();
    turnOnScreen(clock, agent, show);
    clock.advance(150);
    // The Esc: the spinner still up on the newest screen, the transcript's line already written.
    agent.transcriptInterrupted(clock.now() - 20);
    expect(agent.state).toBe('idle');
    expect(changes.at(-1)).toMatchObject({ state: 'idle', source: 'hook', rule: 'Esc (transcript)' });
    expect(ends).toEqual([{ row: 'alice', at: clock.now(), by: 'hook' }]);
    const e = agent.explainRow();
    const text = formatExplanation(e.state, { fusion: e.fusion, prompt: e.prompt, wake: e.wake });
    expect(text).toContain('  hook:     Esc (transcript) → turn-end, 0.0 s ago');
    expect(text).toMatch(/decided: {2}hook won by rule hook: the agent's transcript \(Esc \(transcript\), 0\.0 s ago\) decides before the screen \(busy\) can tell/);
    // The screen follows (Claude draws its prompt): both agree, and the turn ended once.
    show(afterTurn);
    clock.advance(50 + claude.quietMs + 10);
    expect(agent.state).toBe('idle');
    expect(agent.explainRow().fusion.verdict.rule).toBe('agree');
    expect(ends).toHaveLength(1);
    // The next prompt's hook starts a turn again.
    agent.hookReported({ event: 'user-prompt-submit', startedAt: clock.now() });
    expect(agent.state).toBe('busy');
    agent.dispose();
  });

  it('without hooks (screen-only rows) it ends a turn the screen read busy, and the next busy screen is believed', () => {
    const { clock, agent, show } = setup();
    show(busy);
    clock.advance(50);
    expect(agent.state).toBe('busy');
    agent.transcriptInterrupted(clock.now());
    expect(agent.state).toBe('idle');
    show(afterTurn);
    clock.advance(50 + claude.quietMs + 10);
    show(busy);
    clock.advance(50);
    expect(agent.state).toBe('busy');
    agent.dispose();
  });

  it('a line older than the turn’s prompt, or than this incarnation (a backlog read again), is not news', () => {
    const { clock, agent, show } = setup();
    turnOnScreen(clock, agent, show);
    agent.transcriptInterrupted(clock.now() - 100); // before the UserPromptSubmit started
    expect(agent.state).toBe('busy');
    agent.transcriptInterrupted(0); // long before the row started
    agent.transcriptInterrupted(Number.NaN);
    expect(agent.state).toBe('busy');
    agent.dispose();
  });

  it('a line dated in the future counts as now: it does not make the next prompt’s hook look stale', () => {
    const { clock, agent, show } = setup();
    turnOnScreen(clock, agent, show);
    agent.transcriptInterrupted(clock.now() + 3_600_000);
    expect(agent.state).toBe('idle');
    clock.advance(10);
    agent.hookReported({ event: 'user-prompt-submit', startedAt: clock.now() });
    expect(agent.state).toBe('busy');
    agent.dispose();
  });
});
