// StateFusion over time (issue #37): the rule table (fuse-signals.test.ts) applied as the two signals
// move, on a fake clock. Above all: a hook's news dates from when the agent ran it, so a background
// hook that reaches the hub after the screen has shown what came next does not override the screen.
import { describe, expect, it } from 'vitest';
import { HOOK_START_RESOLUTION_MS, HOOK_START_TRUSTED_MS, StateFusion, type FusedChange } from '../../../src/agents/state-fusion.js';
import { hookSignalOf } from '../../../src/agents/hook-signal.js';
import type { AgentState } from '../../../src/agents/profile-schema.js';
import { FakeClock } from '../../helpers/fake-clock.js';

function setup(disagreeMs = 5000) {
  const clock = new FakeClock();
  const screen = { state: 'idle' as AgentState, detected: 'idle' as AgentState };
  const fusion = new StateFusion({ clock, screenState: () => screen.state, detected: () => screen.detected, disagreeMs });
  const changes: FusedChange[] = [];
  fusion.onChange((c) => changes.push(c));
  /** The tracker reports a new state. */
  const show = (state: AgentState, detected: AgentState = state) => {
    screen.state = state;
    screen.detected = detected;
    fusion.screenChanged();
  };
  return { clock, fusion, changes, show, screen };
}

describe('StateFusion', () => {
  it('a PreToolUse that the agent ran before it drew the permission dialog, reaching the hub after the dialog, leaves the row waiting', () => {
    const { clock, fusion, show } = setup();
    show('busy');
    const ranAt = clock.now() + 100;
    clock.advance(600);
    show('waiting');
    clock.advance(300);
    // The hook process took 800 ms to start and report.
    fusion.hookSaid(hookSignalOf({ event: 'pre-tool-use', toolName: 'Bash' }), ranAt);
    expect(fusion.verdict).toMatchObject({ state: 'waiting', rule: 'screen-newer', won: 'screen' });
  });

  it('the same hook without its start time is dated by its arrival and decides (the rule before this fix)', () => {
    const { clock, fusion, show } = setup();
    show('busy');
    clock.advance(600);
    show('waiting');
    clock.advance(300);
    fusion.hookSaid(hookSignalOf({ event: 'pre-tool-use', toolName: 'Bash' }));
    expect(fusion.verdict).toMatchObject({ state: 'busy', rule: 'hook' });
  });

  it('a Stop the agent ran after the screen last changed ends the turn at once, however late it arrives', () => {
    const { clock, fusion, show, changes } = setup();
    show('busy');
    clock.advance(2000);
    const ranAt = clock.now();
    clock.advance(700);
    fusion.hookSaid(hookSignalOf({ event: 'stop' }), ranAt);
    expect(fusion.verdict).toMatchObject({ state: 'idle', rule: 'hook', won: 'hook' });
    expect(changes.at(-1)).toMatchObject({ from: 'busy', to: 'idle' });
  });

  it('a Stop that reaches the hub after the operator started the next turn on screen leaves the row busy', () => {
    const { clock, fusion, show } = setup();
    show('busy');
    clock.advance(2000);
    const stopRanAt = clock.now();
    clock.advance(200);
    // The operator typed the next prompt; the screen went idle then busy again before the Stop arrived.
    show('idle');
    clock.advance(100);
    show('busy');
    clock.advance(400);
    fusion.hookSaid(hookSignalOf({ event: 'stop' }), stopRanAt);
    expect(fusion.verdict).toMatchObject({ state: 'busy', rule: 'screen-newer' });
  });

  it('a start time in the future counts as now; one older than HOOK_START_TRUSTED_MS counts as that old', () => {
    const future = setup();
    future.clock.advance(100);
    future.fusion.hookSaid(hookSignalOf({ event: 'stop' }), future.clock.now() + 60_000);
    expect(future.fusion.explain().hook?.ageMs).toBe(0);
    const past = setup();
    past.clock.advance(100);
    past.fusion.hookSaid(hookSignalOf({ event: 'stop' }), past.clock.now() - HOOK_START_TRUSTED_MS * 5);
    expect(past.fusion.explain().hook?.ageMs).toBe(HOOK_START_TRUSTED_MS);
  });

  it('a hook older than the last one that reported is dropped (background hooks out of order)', () => {
    const { clock, fusion, show } = setup();
    show('busy');
    const start = clock.now();
    clock.advance(500);
    fusion.hookSaid(hookSignalOf({ event: 'stop' }), start + 400);
    fusion.hookSaid(hookSignalOf({ event: 'pre-tool-use' }), start + 100);
    expect(fusion.hook?.signal.event).toBe('Stop');
    expect(fusion.verdict.state).toBe('idle');
  });

  it('a hook that says nothing of the turn (SessionStart, an unknown Notification) keeps the last meaningful one', () => {
    const { clock, fusion, show, changes } = setup();
    show('busy');
    clock.advance(100);
    fusion.hookSaid(hookSignalOf({ event: 'permission-request' }), clock.now());
    expect(fusion.verdict).toMatchObject({ state: 'waiting', reason: 'permission', rule: 'hook' });
    const before = changes.length;
    clock.advance(200);
    fusion.hookSaid(hookSignalOf({ event: 'session-start' }), clock.now());
    clock.advance(200);
    fusion.hookSaid(hookSignalOf({ event: 'notification', notificationType: 'auth_success' }), clock.now());
    // Still the permission request's verdict: the row did not fall back to the busy screen.
    expect(fusion.hook?.signal.event).toBe('PermissionRequest');
    expect(fusion.verdict).toMatchObject({ state: 'waiting', reason: 'permission', rule: 'hook' });
    expect(changes.length).toBe(before);
  });

  it('a PreToolUse that started within the start times\' resolution of the PermissionRequest it led to, reporting after it, leaves the row waiting', () => {
    const { clock, fusion, show } = setup();
    show('busy');
    const start = clock.now();
    clock.advance(300);
    // Dated from /proc in 10 ms steps, the later-run PermissionRequest may read as the earlier start.
    fusion.hookSaid(hookSignalOf({ event: 'permission-request' }), start);
    fusion.hookSaid(hookSignalOf({ event: 'pre-tool-use', toolName: 'Bash' }), start + 10);
    expect(fusion.verdict).toMatchObject({ state: 'waiting', reason: 'permission', rule: 'hook' });
    expect(fusion.hook?.signal.event).toBe('PermissionRequest');
    // So does the turn's own UserPromptSubmit (an agent that asks at once, as the fake one does).
    fusion.hookSaid(hookSignalOf({ event: 'user-prompt-submit' }), start + 5);
    expect(fusion.hook?.signal.event).toBe('PermissionRequest');
    // Further apart than that resolution, the start decides: a tool's hook after the answer is news.
    clock.advance(100);
    fusion.hookSaid(hookSignalOf({ event: 'post-tool-use', toolName: 'Bash' }), start + HOOK_START_RESOLUTION_MS + 10);
    expect(fusion.hook?.signal.event).toBe('PostToolUse(Bash)');
    expect(fusion.verdict).toMatchObject({ state: 'busy', rule: 'agree' });
  });

  it('within that resolution the later step of a turn wins whichever reports first: a Stop is not undone by its turn\'s last tool hook', () => {
    const { clock, fusion, show } = setup();
    show('busy');
    const start = clock.now();
    clock.advance(300);
    fusion.hookSaid(hookSignalOf({ event: 'pre-tool-use', toolName: 'Bash' }), start);
    fusion.hookSaid(hookSignalOf({ event: 'stop' }), start + 5);
    fusion.hookSaid(hookSignalOf({ event: 'post-tool-use', toolName: 'Bash' }), start + 8);
    expect(fusion.verdict).toMatchObject({ state: 'idle', rule: 'hook' });
    // A turn's start close after its end is the next turn's.
    fusion.hookSaid(hookSignalOf({ event: 'user-prompt-submit' }), start + 12);
    expect(fusion.verdict).toMatchObject({ state: 'busy' });
    expect(fusion.hook?.signal.event).toBe('UserPromptSubmit');
    // Two hooks of the same step: the later report stands (the same state either way).
    fusion.hookSaid(hookSignalOf({ event: 'notification', notificationType: 'permission_prompt' }), start + 400);
    fusion.hookSaid(hookSignalOf({ event: 'permission-request' }), start + 390);
    expect(fusion.verdict).toMatchObject({ state: 'waiting', reason: 'permission' });
  });

  it('a busy screen does not answer a PermissionRequest before the screen has shown its dialog (Claude runs the hook, then draws the dialog); a dialog shown and gone does', () => {
    const { clock, fusion, show, screen } = setup();
    show('busy');
    clock.advance(1000);
    fusion.hookSaid(hookSignalOf({ event: 'permission-request' }), clock.now());
    expect(fusion.verdict).toMatchObject({ state: 'waiting', reason: 'permission', rule: 'hook' });
    // Claude redraws before the dialog: a frame where nothing matched, then its spinner again.
    clock.advance(20);
    screen.detected = 'unknown';
    fusion.screenJudged();
    clock.advance(20);
    screen.detected = 'busy';
    fusion.screenJudged();
    expect(fusion.verdict).toMatchObject({ state: 'waiting', reason: 'permission', rule: 'hook' });
    // The dialog drawn, then answered yes: busy, by the screen.
    clock.advance(100);
    show('waiting');
    expect(fusion.verdict).toMatchObject({ state: 'waiting', rule: 'agree' });
    clock.advance(2000);
    show('busy');
    expect(fusion.verdict).toMatchObject({ state: 'busy', rule: 'screen-newer' });
  });

  it('an idle prompt has no dialog: a busy screen after a Notification(idle_prompt) is the next turn at once', () => {
    const { clock, fusion, show } = setup();
    show('idle');
    clock.advance(1000);
    fusion.hookSaid(hookSignalOf({ event: 'notification', notificationType: 'idle_prompt' }), clock.now());
    clock.advance(500);
    show('busy');
    expect(fusion.verdict).toMatchObject({ state: 'busy', rule: 'screen-newer' });
  });

  it('a dialog the screen drew just before the hook ran counts as shown: its answer reads busy', () => {
    const { clock, fusion, show } = setup();
    show('busy');
    clock.advance(500);
    show('waiting');
    clock.advance(300);
    fusion.hookSaid(hookSignalOf({ event: 'permission-request' }), clock.now());
    clock.advance(1000);
    show('busy');
    expect(fusion.verdict).toMatchObject({ state: 'busy', rule: 'screen-newer' });
  });

  it("a meaningful hook that started before a silent one but reported after it is not dropped as older news", () => {
    const { clock, fusion, show } = setup();
    show('busy');
    const start = clock.now();
    clock.advance(500);
    // Background hooks: a SessionStart reports before the Stop whose process started first.
    fusion.hookSaid(hookSignalOf({ event: 'session-start' }), start + 400);
    fusion.hookSaid(hookSignalOf({ event: 'stop' }), start + 300);
    expect(fusion.hook?.signal.event).toBe('Stop');
    expect(fusion.verdict).toMatchObject({ state: 'idle', rule: 'hook' });
  });

  it('a contradicted hook is outvoted disagreeMs after the agent ran it, not after it arrived', () => {
    const { clock, fusion, show, changes } = setup(5000);
    show('idle');
    clock.advance(100);
    const ranAt = clock.now();
    clock.advance(1000);
    // Said busy, but the screen stays idle (a crashed turn): judged again 5 s after the hook ran.
    fusion.hookSaid(hookSignalOf({ event: 'user-prompt-submit' }), ranAt);
    expect(fusion.verdict).toMatchObject({ state: 'busy', rule: 'hook' });
    clock.advance(3999);
    expect(fusion.verdict.state).toBe('busy');
    clock.advance(2);
    expect(fusion.verdict).toMatchObject({ state: 'idle', rule: 'disagree' });
    expect(changes.map((c) => c.to)).toEqual(['busy', 'idle']);
  });

  it('the next turn drawn while the tracker still holds busy through its quiet time is newer than the Stop before it', () => {
    const { clock, fusion, show, screen } = setup();
    show('busy');
    clock.advance(3000);
    fusion.hookSaid(hookSignalOf({ event: 'stop' }), clock.now() - 200);
    expect(fusion.verdict.state).toBe('idle');
    // The spinner goes: the rules read idle, the tracker holds busy for its quiet time (no change).
    screen.detected = 'idle';
    clock.advance(100);
    fusion.screenJudged();
    expect(fusion.verdict.state).toBe('idle');
    // The operator's next prompt: the spinner is back before the quiet time ran out.
    screen.detected = 'busy';
    clock.advance(400);
    fusion.screenJudged();
    expect(fusion.verdict).toMatchObject({ state: 'busy', rule: 'screen-newer', won: 'screen' });
  });

  it('a screen that kept showing work through a Stop is not newer than it: the Stop decides', () => {
    const { clock, fusion, show } = setup();
    show('busy');
    clock.advance(3000);
    fusion.hookSaid(hookSignalOf({ event: 'stop' }), clock.now() - 200);
    // Claude draws its spinner while the Stop hook runs: the rules still read busy, as before the hook.
    clock.advance(80);
    fusion.screenJudged();
    clock.advance(80);
    fusion.screenJudged();
    expect(fusion.verdict).toMatchObject({ state: 'idle', rule: 'hook' });
  });

  it('an Esc before the screen read the turn: once the redrawn prompt has been still for the settle time the row is idle, without waiting out the disagreement', () => {
    const clock = new FakeClock();
    let changedAt = clock.now();
    const fusion = new StateFusion({ clock, screenState: () => 'idle', detected: () => 'idle', stillMs: () => clock.now() - changedAt, settledMs: 600 });
    const changes: FusedChange[] = [];
    fusion.onChange((c) => changes.push(c));
    // The prompt's Enter: the hook ran at once; the agent's busy frame came and went between two snapshots.
    fusion.hookSaid(hookSignalOf({ event: 'user-prompt-submit' }), clock.now());
    expect(fusion.verdict).toMatchObject({ state: 'busy', rule: 'hook' });
    // The Esc 250 ms later: the agent redraws its idle prompt box (the screen changes, still reads idle).
    clock.advance(250);
    changedAt = clock.now();
    fusion.screenJudged();
    expect(fusion.verdict.state).toBe('busy');
    // No snapshot comes while the screen is still: the fusion's own timer judges it again.
    clock.advance(599);
    expect(fusion.verdict.state).toBe('busy');
    clock.advance(2);
    expect(fusion.verdict).toMatchObject({ state: 'idle', rule: 'screen-settled', won: 'screen' });
    expect(changes.map((c) => c.to)).toEqual(['busy', 'idle']);
  });

  it('a turn start the agent has not drawn yet (its screen unchanged since before the hook) stays busy', () => {
    const clock = new FakeClock();
    const changedAt = clock.now();
    clock.advance(5000);
    const fusion = new StateFusion({ clock, screenState: () => 'idle', detected: () => 'idle', stillMs: () => clock.now() - changedAt, settledMs: 600 });
    fusion.hookSaid(hookSignalOf({ event: 'user-prompt-submit' }), clock.now());
    clock.advance(2000);
    fusion.screenJudged();
    expect(fusion.verdict).toMatchObject({ state: 'busy', rule: 'hook' });
  });

  it("an Esc before Claude's answer: the prompt given back in the idle screen's input ends the turn at the next snapshot, and erasing the draft does not bring it back", () => {
    const clock = new FakeClock();
    const screen = { state: 'idle' as AgentState, detected: 'idle' as AgentState, draft: '' };
    const fusion = new StateFusion({ clock, screenState: () => screen.state, detected: () => screen.detected, draft: () => screen.draft, settledMs: 600 });
    const changes: FusedChange[] = [];
    fusion.onChange((c) => changes.push(c));
    // The operator typed the prompt (the screen shows it in the input) and pressed Enter.
    screen.draft = 'slow one';
    clock.advance(500);
    const enterAt = clock.now();
    // A loaded agent: its hook ran at once and reported before it redrew: the typed line is no prompt given back.
    clock.advance(300);
    fusion.hookSaid(hookSignalOf({ event: 'user-prompt-submit', prompt: 'slow one' }), enterAt + 10);
    fusion.screenJudged();
    expect(fusion.verdict).toMatchObject({ state: 'busy', rule: 'hook' });
    // The spinner drawn, the input emptied; the hook's report had come 300 ms after its start.
    clock.advance(80);
    screen.state = screen.detected = 'busy';
    screen.draft = '';
    fusion.screenChanged();
    clock.advance(500);
    expect(fusion.verdict).toMatchObject({ state: 'busy', rule: 'agree' });
    // The Esc: Claude drops the turn and puts the prompt back; the tracker holds busy for its quiet time.
    clock.advance(1400);
    screen.detected = 'idle';
    fusion.screenJudged();
    // The spinner went a frame before the draft came back: not yet.
    expect(fusion.verdict.state).toBe('busy');
    clock.advance(80);
    screen.draft = 'slow one';
    fusion.screenJudged();
    expect(fusion.verdict).toMatchObject({ state: 'idle', rule: 'draft-returned' });
    expect(changes.map((c) => c.to)).toEqual(['busy', 'idle']);
    expect(fusion.explain().hook).toMatchObject({ event: 'Esc: prompt given back', kind: 'turn-end' });
    // The operator erases the draft before the quiet time is out: still idle (the turn's end was kept).
    clock.advance(100);
    screen.draft = '';
    fusion.screenJudged();
    expect(fusion.verdict).toMatchObject({ state: 'idle', rule: 'draft-returned' });
    expect(fusion.explain().verdict).toMatchObject({ state: 'idle', rule: 'draft-returned' });
    screen.state = 'idle';
    fusion.screenChanged();
    expect(fusion.verdict).toMatchObject({ state: 'idle', rule: 'draft-returned' });
    expect(changes.map((c) => c.to)).toEqual(['busy', 'idle']);
    // The next turn's hook, and its screen, are news again.
    clock.advance(3000);
    fusion.hookSaid(hookSignalOf({ event: 'user-prompt-submit', prompt: 'quick one' }), clock.now());
    expect(fusion.verdict).toMatchObject({ state: 'busy', rule: 'hook' });
  });

  it('/clear: SessionStart(clear) ends what the operator asked at once, while the screen still holds busy through its quiet time', () => {
    const { clock, fusion, show, changes, screen } = setup();
    show('busy');
    clock.advance(200);
    fusion.hookSaid(hookSignalOf({ event: 'session-start', source: 'clear' }), clock.now() - 50);
    // The rules read the prompt box again; the tracker holds busy for its quiet time.
    screen.detected = 'idle';
    fusion.screenJudged();
    expect(fusion.verdict).toMatchObject({ state: 'idle', rule: 'hook', won: 'hook' });
    expect(changes.at(-1)).toMatchObject({ from: 'busy', to: 'idle' });
    // A launch's SessionStart is no news of a turn: the screen decides.
    const launch = setup();
    launch.show('busy');
    launch.fusion.hookSaid(hookSignalOf({ event: 'session-start', source: 'startup' }), launch.clock.now());
    expect(launch.fusion.verdict).toMatchObject({ state: 'busy', rule: 'screen-only' });
  });

  it('/compact: PostCompact(manual) ends it; an automatic compaction mid-turn (PostCompact auto) keeps the turn busy', () => {
    const { clock, fusion, show } = setup();
    show('busy');
    clock.advance(100);
    fusion.hookSaid(hookSignalOf({ event: 'pre-compact', trigger: 'manual' }), clock.now());
    clock.advance(900);
    fusion.hookSaid(hookSignalOf({ event: 'session-start', source: 'compact' }), clock.now());
    expect(fusion.verdict.state).toBe('busy');
    clock.advance(150);
    fusion.hookSaid(hookSignalOf({ event: 'post-compact', trigger: 'manual' }), clock.now());
    expect(fusion.verdict).toMatchObject({ state: 'idle', rule: 'hook' });
    const auto = setup();
    auto.show('busy');
    auto.clock.advance(100);
    auto.fusion.hookSaid(hookSignalOf({ event: 'post-compact', trigger: 'auto' }), auto.clock.now());
    auto.screen.detected = 'idle';
    auto.fusion.screenJudged();
    expect(auto.fusion.verdict).toMatchObject({ state: 'busy' });
  });
});
