// The wake controller and the agent's own end-of-turn hook (issue #13): when the Stop hook told the
// agent of its mail (`toldByHook(maxSeq)`), the typed wake for that batch is not needed — a wake still
// pending for it is dropped with nothing typed — while newer mail still starts a batch of its own.
// Same harness as wake-controller.test.ts: a Claude-like screen model on a fake clock.
import { describe, expect, it } from 'vitest';
import { loadProfiles } from '../../../src/agents/load-profiles.js';
import type { AuditEntry, WakeOutcome } from '../../../src/agents/wake-controller.js';
import type { ScreenSnapshot } from '../../../src/rows/screen-snapshot.js';
import { agentOnRow, FakeAgentRow } from '../../helpers/fake-agent-row.js';
import { FakeClock } from '../../helpers/fake-clock.js';

const claude = loadProfiles({ configDir: '/nonexistent-swb-config' }).profiles.get('claude')!;
const LINE = claude.wakeLine;
const RULE = '─'.repeat(80);
const PLACEHOLDER = 'Try "refactor parser.ts"';
const HOOK_REASON = 'told by its own hook at the end of its turn: nothing typed';

/** A Claude-like screen: echoes typed text, runs a turn on Enter, shows a spinner while busy. */
class SimAgent {
  mode: 'idle' | 'busy' = 'idle';
  input = '';
  private spin = 0;
  constructor(
    private readonly clock: FakeClock,
    private readonly onScreen: (s: ScreenSnapshot) => void,
  ) {}

  render(): ScreenSnapshot {
    const top = ['> earlier task', '', '● Done.', ''];
    const status = this.mode === 'busy' ? [`✻ Working… (${this.spin}s · esc to interrupt)`, ''] : [];
    const promptLine = `> ${this.input === '' ? PLACEHOLDER : this.input}`;
    const lines = [...top, ...status, RULE, promptLine, RULE, '  ? for shortcuts'];
    const y = lines.length - 3;
    const dimRanges = lines.map(() => [] as Array<[number, number]>);
    if (this.input === '') dimRanges[y] = [[2, promptLine.length]];
    return { lines, cols: 80, rows: lines.length, cursor: { x: 2 + this.input.length, y, visible: true }, title: '', alternateScreen: false, dimRanges };
  }

  show(): void {
    this.onScreen(this.render());
  }

  type(bytes: string): void {
    if (bytes === '\r') {
      if (this.mode === 'idle' && this.input !== '') {
        this.input = '';
        this.startTurn(3000);
      }
    } else if (this.mode === 'idle') {
      this.input += bytes;
    }
    this.show();
  }

  startTurn(ms: number): void {
    this.mode = 'busy';
    this.show();
    for (let t = 1000; t < ms; t += 1000) {
      this.clock.setTimer(() => {
        this.spin += 1;
        this.show();
      }, t);
    }
    this.clock.setTimer(() => {
      this.mode = 'idle';
      this.show();
    }, ms);
  }
}

function setup() {
  const clock = new FakeClock();
  const writes: string[] = [];
  const audits: AuditEntry[] = [];
  const records: Array<[string[], WakeOutcome]> = [];
  let row!: FakeAgentRow;
  const sim = new SimAgent(clock, () => row.changed());
  row = new FakeAgentRow('claude', () => sim.render(), (b) => {
    writes.push(b);
    clock.setTimer(() => sim.type(b), 5);
  });
  const agent = agentOnRow({
    row,
    profile: claude,
    clock,
    snapshotEveryMs: 50,
    audit: (e) => audits.push(e),
    recordWakeEvent: (ids, outcome) => records.push([ids, outcome]),
  });
  const events: string[] = [];
  agent.wake.onWoken((e) => events.push(`woken:${e.messageIds.join(',')}`));
  agent.wake.onWakeFailed((e) => events.push(`failed:${e.reason}`));
  agent.wake.onNotifyOnly((e) => events.push(`notify:${e.reason}`));
  sim.show();
  return { clock, sim, agent, writes, audits, records, events };
}

describe('WakeController.toldByHook', () => {
  it('drops the wake pending for mail that came during a turn: nothing typed when the turn ends; newer mail still wakes', () => {
    const t = setup();
    t.sim.startTurn(4000);
    t.clock.advance(100);
    t.agent.setUnread({ messageIds: ['m1'], maxSeq: 1 });
    t.clock.advance(1000);
    expect(t.agent.wake.phase).toBe('pending');

    // The turn ends; Claude runs its Stop hook at once, which tells it of m1 (before the quiet time is over).
    t.clock.advance(2900);
    t.agent.toldByHook(1);
    expect(t.agent.wake).toMatchObject({ phase: 'done', reason: HOOK_REASON });
    t.clock.advance(60_000);
    expect(t.agent.state).toBe('idle');
    expect(t.writes).toEqual([]);
    expect(t.audits).toEqual([]);
    // Not a wake of swb's, woken or failed: the hub records the hook's delivery itself.
    expect(t.records).toEqual([]);
    expect(t.events).toEqual([]);

    // The agent reads m1 (nothing unread), then new mail comes while it is idle: a typed wake as usual.
    t.agent.setUnread({ messageIds: [], maxSeq: 1 });
    t.agent.setUnread({ messageIds: ['m2'], maxSeq: 2 });
    t.clock.advance(10_000);
    expect(t.writes).toEqual([LINE, '\r']);
    expect(t.events).toEqual(['woken:m2']);
    expect(t.audits.map((a) => a.messageIds)).toEqual([['m2'], ['m2']]);
  });

  it('newer mail after the hook told of a batch that is still unread starts a batch with all of it', () => {
    const t = setup();
    t.sim.startTurn(3000);
    t.clock.advance(100);
    t.agent.setUnread({ messageIds: ['m1'], maxSeq: 1 });
    t.clock.advance(3000);
    t.agent.toldByHook(1);
    t.clock.advance(10_000);
    expect(t.writes).toEqual([]);
    // m1 still unread (the agent stopped anyway), m2 arrives: m2 is news, so a wake for both.
    t.agent.setUnread({ messageIds: ['m1', 'm2'], maxSeq: 2 });
    t.clock.advance(10_000);
    expect(t.writes).toEqual([LINE, '\r']);
    expect(t.events).toEqual(['woken:m1,m2']);
  });

  it('a hook that told of the mail before the controller heard of it means no batch at all', () => {
    const t = setup();
    t.clock.advance(2000);
    t.agent.toldByHook(3);
    t.agent.setUnread({ messageIds: ['m1', 'm2', 'm3'], maxSeq: 3 });
    expect(t.agent.wake.phase).not.toBe('pending');
    t.clock.advance(60_000);
    expect(t.writes).toEqual([]);
    // The same mail reported again is no news either.
    t.agent.setUnread({ messageIds: ['m1', 'm2', 'm3'], maxSeq: 3 });
    t.clock.advance(60_000);
    expect(t.writes).toEqual([]);
    t.agent.setUnread({ messageIds: ['m1', 'm2', 'm3', 'm4'], maxSeq: 4 });
    t.clock.advance(10_000);
    expect(t.events).toEqual(['woken:m1,m2,m3,m4']);
  });

  it('a hook that told of older mail only leaves the wake for the newer batch pending', () => {
    const t = setup();
    t.sim.startTurn(3000);
    t.clock.advance(100);
    t.agent.setUnread({ messageIds: ['m1', 'm2'], maxSeq: 2 });
    t.clock.advance(3000);
    // The hook ran before m2 reached the row's mail (it saw only up to seq 1).
    t.agent.toldByHook(1);
    expect(t.agent.wake.phase).toBe('pending');
    t.clock.advance(10_000);
    expect(t.writes).toEqual([LINE, '\r']);
    expect(t.events).toEqual(['woken:m1,m2']);
  });

  it('a wake already being typed is finished, not cut off halfway; the told mail is not woken for again', () => {
    const t = setup();
    t.clock.advance(2000);
    t.agent.setUnread({ messageIds: ['m1'], maxSeq: 1 });
    expect(t.writes).toEqual([LINE]); // typing began at once: the prompt was free
    t.agent.toldByHook(1);
    t.clock.advance(10_000);
    expect(t.writes).toEqual([LINE, '\r']);
    expect(t.events).toEqual(['woken:m1']);
    t.agent.setUnread({ messageIds: ['m1'], maxSeq: 1 });
    t.clock.advance(60_000);
    expect(t.writes.filter((w) => w === LINE)).toHaveLength(1);
  });

  it('after dispose it does nothing', () => {
    const t = setup();
    t.agent.setUnread({ messageIds: ['m1'], maxSeq: 1 });
    t.agent.dispose();
    expect(() => t.agent.toldByHook(1)).not.toThrow();
    t.clock.advance(60_000);
    expect(t.writes).toEqual([]);
  });

  it('when the hook gives up (its loop guard), the typed wake tells the agent once, and only once per batch', () => {
    const t = setup();
    t.sim.startTurn(3000);
    t.clock.advance(100);
    t.agent.setUnread({ messageIds: ['m1'], maxSeq: 1 });
    t.clock.advance(3000);
    t.agent.toldByHook(1);
    t.clock.advance(10_000);
    expect(t.writes).toEqual([]);
    // Told twice, still unread: the hub's guard lets the agent stop and hands the batch back.
    t.agent.hookGaveUp();
    t.clock.advance(10_000);
    expect(t.writes).toEqual([LINE, '\r']);
    expect(t.events).toEqual(['woken:m1']);
    // The agent ignored that too and its hook gave up again: no second round for the same mail.
    t.clock.advance(60_000);
    t.agent.hookGaveUp();
    t.clock.advance(10_000);
    expect(t.writes).toEqual([LINE, '\r']);
  });
});
