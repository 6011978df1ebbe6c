import { describe, expect, it } from 'vitest';
import { loadProfiles } from '../../../src/agents/load-profiles.js';
import type { AuditEntry, WakeOutcome, WakePolicy } from '../../../src/agents/wake-controller.js';
import type { ScreenSnapshot } from '../../../src/rows/screen-snapshot.js';
import { agentOnRow, FakeAgentRow } from '../../helpers/fake-agent-row.js';
import { FakeClock } from '../../helpers/fake-clock.js';

// The wake's timing below is written for a 1500 ms quiet time (Claude's bundled one is shorter).
const claude = { ...loadProfiles({ configDir: '/nonexistent-swb-config' }).profiles.get('claude')!, quietMs: 1500 };
const RULE = '─'.repeat(80);
const PLACEHOLDER = 'Try "refactor parser.ts"';

/** A Claude-like screen model driven by a fake clock: it echoes typed text and runs turns on Enter. */
class SimAgent {
  mode: 'idle' | 'busy' | 'dialog' = 'idle';
  input = '';
  echo = true;
  enterWorks = true;
  /** Enter takes the line without starting a turn (an agent that answers at once). */
  noTurn = false;
  turnMs = 3000;
  private spin = 0;
  constructor(
    private readonly clock: FakeClock,
    private readonly onScreen: (s: ScreenSnapshot) => void,
  ) {}

  render(): ScreenSnapshot {
    const top = ['> earlier task', '', '● Done.', ''];
    if (this.mode === 'dialog') {
      const lines = [...top, ' Bash command', '   rm -rf build', ' Do you want to proceed?', ' ❯ 1. Yes', '   2. No'];
      return { lines, cols: 80, rows: lines.length, cursor: { x: 0, y: 0, visible: false }, title: '', alternateScreen: false };
    }
    const status = this.mode === 'busy' ? [`✻ Working… (${this.spin}s · esc to interrupt)`, ''] : [];
    const promptLine = `> ${this.input === '' ? PLACEHOLDER : this.input}`;
    const lines = [...top, ...status, RULE, promptLine, RULE, '  ? for shortcuts'];
    const y = lines.length - 3;
    const dimRanges = lines.map(() => [] as Array<[number, number]>);
    if (this.input === '') dimRanges[y] = [[2, promptLine.length]];
    return {
      lines,
      cols: 80,
      rows: lines.length,
      cursor: { x: 2 + this.input.length, y, visible: true },
      title: '',
      alternateScreen: false,
      dimRanges,
    };
  }

  show(): void {
    this.onScreen(this.render());
  }

  /** The prompt the running turn was started with (Claude Code gives it back when interrupted). */
  private submitted = '';
  private turnEnd: { dispose(): void } | null = null;

  /** Esc during a turn: the turn stops and the prompt that started it is back in the input. */
  interrupt(): void {
    if (this.mode !== 'busy') return;
    this.turnEnd?.dispose();
    this.mode = 'idle';
    this.input = this.submitted;
    this.show();
  }

  type(bytes: string): void {
    if (/^\x7f+$/.test(bytes)) {
      if (this.mode === 'idle') this.input = [...this.input].slice(0, -bytes.length).join('');
    } else if (bytes === '\r') {
      if (this.mode === 'idle' && this.input !== '' && this.enterWorks) {
        this.submitted = this.input;
        this.input = '';
        if (this.noTurn) this.show();
        else this.startTurn();
      }
    } else if (this.echo && this.mode === 'idle') {
      this.input += bytes;
    }
    this.show();
  }

  startTurn(ms = this.turnMs): void {
    this.mode = 'busy';
    this.show();
    for (let t = 1000; t < ms; t += 1000) {
      this.clock.setTimer(() => {
        this.spin += 1;
        this.show();
      }, t);
    }
    this.turnEnd = this.clock.setTimer(() => {
      this.mode = 'idle';
      this.show();
    }, ms);
  }
}

function setup(opts: { policy?: WakePolicy; maxWakesPerHour?: number } = {}) {
  const clock = new FakeClock();
  const writes: string[] = [];
  const audits: AuditEntry[] = [];
  const records: Array<[string[], WakeOutcome]> = [];
  let row!: FakeAgentRow;
  const sim = new SimAgent(clock, () => row.changed());
  row = new FakeAgentRow('alice', () => sim.render(), (b) => {
    writes.push(b);
    // The pty answers asynchronously.
    clock.setTimer(() => sim.type(b), 5);
  });
  const agent = agentOnRow({
    row,
    profile: claude,
    clock,
    policy: opts.policy ?? 'auto',
    snapshotEveryMs: 50,
    audit: (e) => audits.push(e),
    recordWakeEvent: (ids, outcome) => records.push([ids, outcome]),
    wake: { maxWakesPerHour: opts.maxWakesPerHour },
  });
  const events: string[] = [];
  agent.wake.onWoken((e) => events.push(`woken:${e.messageIds.join(',')}:${e.attempts}`));
  agent.wake.onWakeFailed((e) => events.push(`failed:${e.reason}`));
  agent.wake.onNotifyOnly((e) => events.push(`notify:${e.reason}`));
  sim.show();
  return { clock, sim, agent, writes, audits, records, events };
}

const LINE = claude.wakeLine;

describe('WakeController', () => {
  it('mail that arrives while the agent is busy is woken only after the turn ends and the screen is quiet', () => {
    const t = setup();
    t.sim.startTurn(4000);
    t.clock.advance(100);
    expect(t.agent.state).toBe('busy');
    t.agent.setUnread({ messageIds: ['m1'], maxSeq: 1 });
    t.clock.advance(3800);
    expect(t.writes).toEqual([]);
    t.clock.advance(1000); // turn ended ~4000, quiet time 1500 not yet over
    expect(t.agent.state).toBe('busy');
    expect(t.writes).toEqual([]);
    t.clock.advance(1000);
    expect(t.writes[0]).toBe(LINE);
    t.clock.advance(1000);
    expect(t.writes).toEqual([LINE, '\r']);
    expect(t.events).toEqual(['woken:m1:1']);
    expect(t.records).toEqual([[['m1'], 'woken']]);
    expect(t.agent.wake.reason).toBe('woken: the wake line was typed and taken (attempt 1)');
    expect(t.audits.map((a) => [a.bytes, a.purpose, a.row])).toEqual([
      [LINE, 'wake-line', 'alice'],
      ['\r', 'wake-submit', 'alice'],
    ]);
  });

  it('never types while a permission dialog is open', () => {
    const t = setup();
    t.sim.mode = 'dialog';
    t.sim.show();
    t.agent.setUnread({ messageIds: ['m1'], maxSeq: 1 });
    t.clock.advance(60_000);
    expect(t.agent.state).toBe('waiting');
    expect(t.writes).toEqual([]);
    // The operator answers; the agent finishes its turn; then the wake goes in.
    t.sim.startTurn(2000);
    t.clock.advance(2000 + 1500 + 200);
    t.clock.advance(1000);
    expect(t.writes).toEqual([LINE, '\r']);
    expect(t.events).toEqual(['woken:m1:1']);
  });

  it('never touches a half-typed draft, and wakes once the operator has cleared it', () => {
    const t = setup();
    t.sim.input = 'half typed tho';
    t.sim.show();
    t.clock.advance(3000);
    expect(t.agent.state).toBe('idle');
    t.agent.setUnread({ messageIds: ['m1'], maxSeq: 1 });
    t.clock.advance(120_000);
    expect(t.writes).toEqual([]);
    expect(t.agent.wake.reason).toBe('the input holds a draft');
    t.sim.input = '';
    t.agent.operatorTyped();
    t.sim.show();
    t.clock.advance(4000);
    expect(t.writes).toEqual([]); // operator grace period
    t.clock.advance(2000);
    expect(t.writes[0]).toBe(LINE);
  });

  it('retries the submit once, then reports the wake as failed', () => {
    const t = setup();
    t.sim.enterWorks = false;
    t.clock.advance(2000);
    t.agent.setUnread({ messageIds: ['m1', 'm2'], maxSeq: 2 });
    t.clock.advance(30_000);
    expect(t.writes).toEqual([LINE, '\r', '\r']);
    expect(t.events).toEqual(['failed:the wake line stayed in the input after two submits']);
    expect(t.records).toEqual([[['m1', 'm2'], 'failed']]);
    expect(t.audits.map((a) => a.attempt)).toEqual([1, 1, 2]);
  });

  it('retypes once when the line never shows up, then fails without pressing Enter', () => {
    const t = setup();
    t.sim.echo = false;
    t.clock.advance(2000);
    t.agent.setUnread({ messageIds: ['m1'], maxSeq: 1 });
    t.clock.advance(30_000);
    expect(t.writes).toEqual([LINE, LINE]);
    expect(t.events).toEqual(['failed:the typed wake line never showed in the input']);
  });

  it('does not press Enter when a dialog appears between typing and submitting', () => {
    const t = setup();
    t.clock.advance(2000);
    t.agent.setUnread({ messageIds: ['m1'], maxSeq: 1 });
    t.clock.advance(60); // line typed, echoed, and seen by the agent (its snapshot interval is 50 ms)
    t.sim.mode = 'dialog';
    t.sim.show();
    t.clock.advance(5000);
    expect(t.writes).toEqual([LINE]);
    expect(t.events[0]).toMatch(/^failed:a dialog opened/);
  });

  it('wakes once per batch, again for new mail', () => {
    const t = setup();
    t.clock.advance(2000);
    t.agent.setUnread({ messageIds: ['m1'], maxSeq: 1 });
    t.clock.advance(10_000);
    t.agent.setUnread({ messageIds: ['m1'], maxSeq: 1 });
    t.clock.advance(10_000);
    expect(t.writes.filter((w) => w === LINE)).toHaveLength(1);
    t.agent.setUnread({ messageIds: ['m1', 'm2'], maxSeq: 2 });
    t.clock.advance(10_000);
    expect(t.writes.filter((w) => w === LINE)).toHaveLength(2);
    expect(t.events).toEqual(['woken:m1:1', 'woken:m1,m2:1']);
  });

  it('re-nudges after ten minutes while the mail stays unread, not after it is read', () => {
    const t = setup();
    t.clock.advance(2000);
    t.agent.setUnread({ messageIds: ['m1'], maxSeq: 1 });
    t.clock.advance(10_000);
    expect(t.writes.filter((w) => w === LINE)).toHaveLength(1);
    t.clock.advance(9 * 60_000);
    expect(t.writes.filter((w) => w === LINE)).toHaveLength(1);
    t.clock.advance(2 * 60_000);
    expect(t.writes.filter((w) => w === LINE)).toHaveLength(2);
    t.agent.setUnread({ messageIds: [], maxSeq: 1 });
    t.clock.advance(30 * 60_000);
    expect(t.writes.filter((w) => w === LINE)).toHaveLength(2);
  });

  it('the loop guard caps automatic wakes per hour and falls back to a notification', () => {
    const t = setup({ maxWakesPerHour: 3 });
    t.clock.advance(2000);
    for (let i = 1; i <= 4; i++) {
      t.agent.setUnread({ messageIds: [`m${i}`], maxSeq: i });
      t.clock.advance(10_000);
      t.agent.setUnread({ messageIds: [], maxSeq: i });
    }
    expect(t.writes.filter((w) => w === LINE)).toHaveLength(3);
    expect(t.events.at(-1)).toBe('notify:loop-guard');
    expect(t.records.at(-1)).toEqual([['m4'], 'notified']);
    t.clock.advance(60 * 60_000);
    t.agent.setUnread({ messageIds: ['m5'], maxSeq: 5 });
    t.clock.advance(10_000);
    expect(t.writes.filter((w) => w === LINE)).toHaveLength(4);
  });

  it('policy notify only notifies; off does nothing; switching to auto wakes for unread mail', () => {
    const t = setup({ policy: 'notify' });
    t.clock.advance(2000);
    t.agent.setUnread({ messageIds: ['m1'], maxSeq: 1 });
    t.clock.advance(10_000);
    expect(t.writes).toEqual([]);
    expect(t.events).toEqual(['notify:policy']);
    // Explain says what "done" means here: nothing was typed.
    expect(t.agent.wake).toMatchObject({ phase: 'done', reason: 'policy notify: shown to the operator, nothing typed' });
    t.agent.setPolicy('off');
    t.agent.setUnread({ messageIds: ['m1', 'm2'], maxSeq: 2 });
    t.clock.advance(10_000);
    expect(t.writes).toEqual([]);
    expect(t.events).toEqual(['notify:policy']);
    t.agent.setPolicy('auto');
    t.clock.advance(10_000);
    expect(t.writes).toEqual([LINE, '\r']);
    expect(t.events.at(-1)).toBe('woken:m1,m2:1');
  });

  it('switching notify to auto wakes for mail that was only notified, with nothing newer arriving', () => {
    const t = setup({ policy: 'notify' });
    t.clock.advance(2000);
    t.agent.setUnread({ messageIds: ['m1'], maxSeq: 1 });
    t.clock.advance(10_000);
    expect(t.events).toEqual(['notify:policy']);
    t.agent.setPolicy('auto');
    t.clock.advance(10_000);
    expect(t.writes).toEqual([LINE, '\r']);
    expect(t.events.at(-1)).toBe('woken:m1:1');
  });

  it('forgets why a wake was held once it went ahead', () => {
    const t = setup();
    t.clock.advance(2000);
    t.sim.input = 'draft';
    t.sim.show();
    t.agent.flushScreen(); // the agent has seen the draft when the mail comes
    t.agent.setUnread({ messageIds: ['m1'], maxSeq: 1 });
    t.clock.advance(100);
    expect(t.agent.explainRow().wake.reason).not.toBe('');
    t.sim.input = '';
    t.sim.show();
    for (let i = 0; i < 100 && t.writes.length === 0; i++) t.clock.advance(100);
    // Typing has begun, not finished: the old "draft" reason must already be gone.
    expect(t.writes).toEqual([LINE]);
    expect(t.agent.explainRow().wake.reason).toBe('');
  });

  it('operator keystrokes hold the wake for the typing quiet time after the last one, then it goes ahead', () => {
    const t = setup();
    t.clock.advance(2000);
    t.agent.operatorTyped();
    t.agent.setUnread({ messageIds: ['m1'], maxSeq: 1 });
    t.clock.advance(3000);
    t.agent.operatorTyped();
    t.clock.advance(4000);
    expect(t.writes).toEqual([]);
    expect(t.agent.explainRow().prompt).toMatchObject({ free: false, reason: 'operator-typing', detail: expect.stringMatching(/^the operator typed here 4000 ms ago/) });
    t.clock.advance(1500);
    expect(t.writes[0]).toBe(LINE);
  });

  it('an interrupted wake turn: the wake line given back as a draft is erased, and the mail is woken again after a hold', () => {
    const t = setup();
    t.sim.turnMs = 20_000;
    t.clock.advance(2000);
    t.agent.setUnread({ messageIds: ['m1'], maxSeq: 1 });
    t.clock.advance(1000);
    expect(t.writes).toEqual([LINE, '\r']);
    expect(t.agent.state).toBe('busy');
    expect(t.events).toEqual(['woken:m1:1']);
    // K: the supervisor writes the interrupt key and tells the agent; the screen answers a moment later.
    t.agent.wake.turnInterrupted();
    t.clock.setTimer(() => t.sim.interrupt(), 5);
    t.clock.advance(2000);
    expect(t.writes[2]).toBe('\x7f'.repeat(LINE.length));
    expect(t.audits[2]).toMatchObject({ purpose: 'wake-erase', messageIds: ['m1'] });
    expect(t.sim.input).toBe('');
    expect(t.agent.explainRow().wake).toMatchObject({ phase: 'pending', reason: expect.stringContaining('the operator interrupted the turn the wake started') });
    t.clock.advance(25_000);
    expect(t.writes).toHaveLength(3);
    t.clock.advance(6000);
    expect(t.writes.slice(3)).toEqual([LINE, '\r']);
    expect(t.events).toEqual(['woken:m1:1', 'woken:m1:1']);
  });

  it('a wake taken without a turn: the next turn, started long after, is not the wake\u2019s to give back', () => {
    const t = setup();
    t.sim.noTurn = true;
    t.clock.advance(2000);
    t.agent.setUnread({ messageIds: ['m1'], maxSeq: 1 });
    t.clock.advance(1000);
    expect(t.events).toEqual(['woken:m1:1']);
    t.clock.advance(60_000);
    t.sim.noTurn = false;
    t.sim.type('mine');
    t.sim.type('\r');
    t.clock.advance(100);
    t.agent.wake.turnInterrupted();
    t.clock.setTimer(() => t.sim.interrupt(), 5);
    t.clock.advance(60_000);
    expect(t.writes).toEqual([LINE, '\r']);
    expect(t.sim.input).toBe('mine');
    expect(t.agent.explainRow().wake.phase).toBe('done');
  });

  it("interrupting a turn the wake did not start changes nothing about the mail (and erases nothing)", () => {
    const t = setup();
    t.sim.turnMs = 20_000;
    t.clock.advance(2000);
    t.agent.setUnread({ messageIds: ['m1'], maxSeq: 1 });
    t.clock.advance(1000);
    t.clock.advance(21_000); // the wake's turn ends on its own
    t.sim.type('do the thing');
    t.sim.type('\r');
    t.clock.advance(100);
    t.agent.wake.turnInterrupted();
    t.clock.setTimer(() => t.sim.interrupt(), 5);
    t.clock.advance(60_000);
    expect(t.writes).toEqual([LINE, '\r']);
    expect(t.sim.input).toBe('do the thing');
  });

  it('explains the row: state, whether the prompt is free, and the wake phase', () => {
    const t = setup();
    t.clock.advance(2000);
    t.sim.input = 'draft';
    t.sim.show();
    t.agent.flushScreen(); // the agent has seen the draft when the mail comes
    t.agent.setUnread({ messageIds: ['m1'], maxSeq: 1 });
    t.clock.advance(100);
    const r = t.agent.explainRow();
    expect(r.state).toMatchObject({ state: 'idle', ruleId: 'prompt_box' });
    expect(r.prompt).toMatchObject({ free: false, reason: 'draft' });
    expect(r.wake).toEqual({ policy: 'auto', phase: 'pending', reason: 'the input holds a draft' });
  });

  it('disposing stops every timer', () => {
    const t = setup();
    t.agent.setUnread({ messageIds: ['m1'], maxSeq: 1 });
    t.agent.dispose();
    t.clock.advance(60_000);
    expect(t.writes).toEqual([]);
  });
});
