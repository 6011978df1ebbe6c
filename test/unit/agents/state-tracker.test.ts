import { describe, expect, it } from 'vitest';
import { formatExplanation } from '../../../src/agents/format-explanation.js';
import { loadProfiles } from '../../../src/agents/load-profiles.js';
import { parseProfile } from '../../../src/agents/profile-schema.js';
import { DIALOG_CLOSED_QUIET_MS, StateTracker, type StateChange } from '../../../src/agents/state-tracker.js';
import { FakeClock } from '../../helpers/fake-clock.js';
import { loadScreenFixture } from '../../helpers/screen-fixture.js';

const bundledClaude = loadProfiles({ configDir: '/nonexistent-swb-config' }).profiles.get('claude')!;
// The quiet-time mechanics below are timed for a 1500 ms quiet time (Claude's own is shorter: its test is below).
const claude = { ...bundledClaude, quietMs: 1500 };
const idle = loadScreenFixture('claude', 'idle-placeholder.txt').snapshot;
const busy = loadScreenFixture('claude', 'real-busy.txt').snapshot;
const dialog = loadScreenFixture('claude', 'permission-dialog.txt').snapshot;

function setup() {
  const clock = new FakeClock();
  const tracker = new StateTracker({ row: 'alice', profile: claude, clock });
  const changes: StateChange[] = [];
  tracker.onStateChange((c) => changes.push(c));
  return { clock, tracker, changes };
}

describe('StateTracker', () => {
  it('reports idle only after the screen was still for the quiet time', () => {
    const { clock, tracker, changes } = setup();
    tracker.onScreenChange(idle);
    clock.advance(50);
    expect(tracker.state).toBe('unknown');
    expect(tracker.explain().idlePending).toBe(true);
    clock.advance(1400);
    expect(tracker.state).toBe('unknown');
    clock.advance(100);
    expect(tracker.state).toBe('idle');
    expect(changes.map((c) => c.to)).toEqual(['idle']);
  });

  it('a finishing turn stays busy until the quiet time has passed', () => {
    const { clock, tracker, changes } = setup();
    tracker.onScreenChange(busy);
    clock.advance(50);
    expect(tracker.state).toBe('busy');
    tracker.onScreenChange(idle);
    clock.advance(1000);
    expect(tracker.state).toBe('busy');
    clock.advance(600);
    expect(tracker.state).toBe('idle');
    expect(changes.map((c) => `${c.from}->${c.to}`)).toEqual(['unknown->busy', 'busy->idle']);
  });

  it('output during the quiet time restarts it', () => {
    const { clock, tracker } = setup();
    tracker.onScreenChange(busy);
    clock.advance(50);
    tracker.onScreenChange(idle);
    clock.advance(1000);
    tracker.onScreenChange({ ...idle, lines: [...idle.lines.slice(0, 6), ' ※ Tip: something else', ...idle.lines.slice(7)] });
    clock.advance(1000);
    expect(tracker.state).toBe('busy');
    clock.advance(600);
    expect(tracker.state).toBe('idle');
  });

  it('an identical snapshot does not restart the quiet time', () => {
    const { clock, tracker } = setup();
    tracker.onScreenChange(idle);
    clock.advance(1000);
    tracker.onScreenChange({ ...idle, lines: [...idle.lines] });
    clock.advance(600);
    expect(tracker.state).toBe('idle');
  });

  it("Claude's own quiet time: a turn whose spinner is gone reads idle 600 ms later (bench:states found no spinner-less gap that long inside a turn)", () => {
    expect(bundledClaude.quietMs).toBe(600);
    const clock = new FakeClock();
    const tracker = new StateTracker({ row: 'alice', profile: bundledClaude, clock });
    tracker.onScreenChange(busy);
    clock.advance(50);
    tracker.onScreenChange(idle);
    clock.advance(550);
    expect(tracker.state).toBe('busy');
    clock.advance(50);
    expect(tracker.state).toBe('idle');
  });

  it.each(['codex', 'gemini'])("%s's own quiet time: a turn whose working line is gone reads idle 600 ms later (bench:states found no gap that long inside a turn)", (id) => {
    const profile = loadProfiles({ configDir: '/nonexistent-swb-config' }).profiles.get(id)!;
    expect(profile.quietMs).toBe(600);
    const clock = new FakeClock();
    const tracker = new StateTracker({ row: 'alice', profile, clock });
    tracker.onScreenChange(loadScreenFixture(id, 'real-busy.txt').snapshot);
    clock.advance(50);
    tracker.onScreenChange(loadScreenFixture(id, 'real-idle.txt').snapshot);
    clock.advance(550);
    expect(tracker.state).toBe('busy');
    clock.advance(50);
    expect(tracker.state).toBe('idle');
  });

  // A burst of changes is coalesced before the tracker, by the row's agent: test/unit/supervisor/row-agent.test.ts.

  it('a dialog is waiting at once, and exit is final', () => {
    const { clock, tracker } = setup();
    tracker.onScreenChange(dialog);
    clock.advance(50);
    expect(tracker.state).toBe('waiting');
    tracker.onExit(0);
    tracker.onScreenChange(idle);
    clock.advance(5000);
    expect(tracker.state).toBe('exited');
    expect(tracker.explain().evidence).toBe('process exited with code 0');
  });

  it('a dialog refused: idle DIALOG_CLOSED_QUIET_MS after it closed, straight from waiting, however the screen changes meanwhile', () => {
    const { clock, tracker, changes } = setup();
    tracker.onScreenChange(dialog);
    clock.advance(50);
    tracker.onScreenChange(idle);
    const closedAt = clock.now();
    clock.advance(DIALOG_CLOSED_QUIET_MS - 100);
    // The operator starts typing: the screen changes, the dialog's close still counts.
    tracker.onScreenChange({ ...idle, lines: [...idle.lines.slice(0, 6), ' ※ Tip: something else', ...idle.lines.slice(7)] });
    expect(tracker.state).toBe('waiting');
    clock.advance(100);
    expect(tracker.state).toBe('idle');
    expect(changes.map((c) => `${c.from}->${c.to}`)).toEqual(['unknown->waiting', 'waiting->idle']);
    // A redraw's margin, no more: bench:states saw a busy marker 0-21 ms after an answer yes and a
    // dialog drawn again 10-12 ms after it went (docs/AGENTS-REAL.md, states-gc); 300 ms read a refusal late.
    expect(changes.at(-1)!.at - closedAt).toBeLessThan(200);
  });

  it('a dialog answered yes: the busy marker in the same frame reads busy at once', () => {
    const { clock, tracker, changes } = setup();
    tracker.onScreenChange(dialog);
    clock.advance(50);
    tracker.onScreenChange(busy);
    expect(tracker.state).toBe('busy');
    clock.advance(DIALOG_CLOSED_QUIET_MS * 3);
    // ...and a later idle screen is a finishing turn: the whole quiet time.
    tracker.onScreenChange(idle);
    clock.advance(DIALOG_CLOSED_QUIET_MS * 2);
    expect(tracker.state).toBe('busy');
    clock.advance(1500);
    expect(tracker.state).toBe('idle');
    expect(changes.map((c) => `${c.from}->${c.to}`)).toEqual(['unknown->waiting', 'waiting->busy', 'busy->idle']);
  });

  it('a dialog that flickers back while redrawing restarts its close', () => {
    const { clock, tracker } = setup();
    tracker.onScreenChange(dialog);
    clock.advance(50);
    tracker.onScreenChange(idle);
    clock.advance(DIALOG_CLOSED_QUIET_MS - 50);
    tracker.onScreenChange(dialog);
    tracker.onScreenChange(idle);
    clock.advance(DIALOG_CLOSED_QUIET_MS - 50);
    expect(tracker.state).toBe('waiting');
    clock.advance(50);
    expect(tracker.state).toBe('idle');
  });

  it('a rule saying exited is not final; only the process exit is', () => {
    const clock = new FakeClock();
    const profile = parseProfile(
      {
        format: 1,
        id: 'shellish',
        version: '1',
        displayName: 'Shellish',
        command: ['x'],
        interruptKey: '\u0003',
        wakeLine: 'mail',
        quietMs: 0,
        rules: [
          { id: 'done', state: 'exited', priority: 2, region: { kind: 'screen' }, match: { contains: '[process completed]' } },
          { id: 'any', state: 'busy', priority: 1, region: { kind: 'screen' }, match: { regex: '\\S' } },
        ],
      },
      'shellish.json',
    );
    const tracker = new StateTracker({ row: 'r', profile, clock });
    const snap = (text: string) => ({ lines: [text], cols: 80, rows: 1, cursor: { x: 0, y: 0, visible: true }, title: '', alternateScreen: false });
    tracker.onScreenChange(snap('[Process completed]'));
    clock.advance(10);
    expect(tracker.state).toBe('exited');
    tracker.onScreenChange(snap('restarted'));
    clock.advance(10);
    expect(tracker.state).toBe('busy');
  });

  it('explains the rule, region, evidence and quiet time', () => {
    const { clock, tracker } = setup();
    tracker.onScreenChange(busy);
    clock.advance(50);
    const e = tracker.explain();
    expect(e).toMatchObject({ row: 'alice', state: 'busy', ruleId: 'esc_to_interrupt', quietMs: 1500 });
    expect(e.evidence).toContain('esc to interrupt');
    const text = formatExplanation(e);
    expect(text).toContain('alice: busy (profile claude)');
    expect(text).toContain('rule:     esc_to_interrupt → busy');
    expect(text).toMatch(/region: {3}bottom 2 non-empty lines/);
    expect(text).toMatch(/quiet: {4}screen still for 0\.\d s, quiet time 1\.5 s/);
    expect(formatExplanation(e, { verbose: true })).toContain('· trust_folder [waiting, 1000]');
    const extras = formatExplanation(e, {
      prompt: { free: false, reason: 'not-idle', detail: 'state is busy' },
      wake: { policy: 'auto', phase: 'pending', reason: 'state is busy' },
    });
    expect(extras).toContain('prompt:   not free (not-idle: state is busy)');
    expect(extras).toContain('wake:     policy auto, pending (state is busy)');
  });

  it('dispose cancels its timers', () => {
    const { clock, tracker } = setup();
    tracker.onScreenChange(idle);
    tracker.dispose();
    clock.advance(10_000);
    expect(clock.pendingTimers).toBe(0);
    expect(tracker.state).toBe('unknown');
  });
});
