// The fusion rule table (issue #37), every pair of signals: each screen state against each hook signal,
// with the hook newer or older than the screen's last change, fresh or old enough to be outvoted, and
// with the screen's content changed after the hook and still since for the settle time or not yet.
import { describe, expect, it } from 'vitest';
import { fuseSignals, type FusedVerdict, type HookSide, type ScreenSide } from '../../../src/agents/fuse-signals.js';
import { ESC_IN_TRANSCRIPT, hookSignalOf, type HookSignal } from '../../../src/agents/hook-signal.js';
import type { AgentState } from '../../../src/agents/profile-schema.js';

const N = 5000;
const SCREEN: AgentState[] = ['unknown', 'idle', 'busy', 'waiting', 'exited'];
const HOOKS: Record<string, HookSignal> = {
  'turn-start': hookSignalOf({ event: 'user-prompt-submit' }),
  work: hookSignalOf({ event: 'pre-tool-use', toolName: 'Bash' }),
  'turn-end': hookSignalOf({ event: 'stop' }),
  permission: hookSignalOf({ event: 'permission-request' }),
  question: hookSignalOf({ event: 'pre-tool-use', toolName: 'AskUserQuestion' }),
  'idle-prompt': hookSignalOf({ event: 'notification', notificationType: 'idle_prompt' }),
  none: hookSignalOf({ event: 'session-end' }),
  // Claude Code's Esc, read from its transcript: weighed as a hook's end of turn.
  'transcript-esc': ESC_IN_TRANSCRIPT,
};
const HOOK_STATE: Record<string, AgentState | null> = {
  'turn-start': 'busy',
  work: 'busy',
  'turn-end': 'idle',
  'transcript-esc': 'idle',
  permission: 'waiting',
  question: 'waiting',
  'idle-prompt': 'waiting',
  none: null,
};
const HOOK_REASON: Record<string, string | null> = { permission: 'permission', question: 'question', 'idle-prompt': 'idle-prompt' };

/** The table, written out: what each pair must give (the screen's rules read what it reports). */
type Timing = 'hook-newer' | 'screen-newer' | 'hook-old' | 'settled' | 'settling';
function expected(screen: AgentState, hookName: string, timing: Timing): Pick<FusedVerdict, 'state' | 'rule' | 'won'> {
  const said = HOOK_STATE[hookName]!;
  if (screen === 'exited') return { state: 'exited', rule: 'exit', won: 'screen' };
  if (said === null) return { state: screen, rule: 'screen-only', won: 'screen' };
  const agree = screen === said || (hookName === 'idle-prompt' && screen === 'idle');
  if (agree) return { state: said, rule: 'agree', won: 'both' };
  if (screen === 'unknown') return { state: said, rule: 'hook', won: 'hook' };
  if (timing === 'screen-newer') return { state: screen, rule: 'screen-newer', won: 'screen' };
  if (timing === 'hook-old') return { state: screen, rule: 'disagree', won: 'screen' };
  // An idle screen whose content changed after a busy hook and has been still since for the settle time.
  if (timing === 'settled' && said === 'busy' && screen === 'idle') return { state: 'idle', rule: 'screen-settled', won: 'screen' };
  return { state: said, rule: 'hook', won: 'hook' };
}

const SETTLED = 600;
// screen: its reported state's age; still: how long its content has been unchanged (none: not known).
const ages: Record<Timing, { screen: number; hook: number; still?: number }> = {
  'hook-newer': { screen: 2000, hook: 100 },
  'screen-newer': { screen: 100, hook: 2000 },
  'hook-old': { screen: 9000, hook: N },
  settled: { screen: 9000, hook: 1500, still: SETTLED },
  settling: { screen: 9000, hook: 1500, still: SETTLED - 1 },
};

describe('fuseSignals: the rule table', () => {
  it('no hook: the screen alone decides', () => {
    for (const s of SCREEN) expect(fuseSignals({ state: s, detected: s, ageMs: 10 }, null, N)).toMatchObject({ state: s, rule: s === 'exited' ? 'exit' : 'screen-only', reason: null });
  });

  for (const screen of SCREEN)
    for (const hookName of Object.keys(HOOKS))
      for (const timing of Object.keys(ages) as Timing[])
        it(`screen ${screen} × hook ${hookName} (${timing})`, () => {
          const { screen: ageMs, hook: hookAge, still } = ages[timing];
          const s: ScreenSide = { state: screen, detected: screen, ageMs, ...(still !== undefined ? { stillMs: still } : {}) };
          const h: HookSide = { signal: HOOKS[hookName]!, ageMs: hookAge };
          const v = fuseSignals(s, h, N, SETTLED);
          const want = expected(screen, hookName, timing);
          expect(v).toMatchObject(want);
          // The waiting reason comes with a hook's waiting only, and only while the row waits.
          expect(v.reason).toBe(v.state === 'waiting' && v.won !== 'screen' ? (HOOK_REASON[hookName] ?? null) : null);
          expect(v.why.length).toBeGreaterThan(0);
        });

  it('a turn the hook ended is idle at once while the screen still holds busy for its quiet time', () => {
    const v = fuseSignals({ state: 'busy', detected: 'idle', ageMs: 30_000 }, { signal: HOOKS['turn-end']!, ageMs: 10 }, N);
    expect(v).toMatchObject({ state: 'idle', won: 'hook', rule: 'hook' });
    // ...and stays so after N s: the rules read idle, so nothing disagrees.
    expect(fuseSignals({ state: 'busy', detected: 'idle', ageMs: 30_000 }, { signal: HOOKS['turn-end']!, ageMs: N + 1 }, N).state).toBe('idle');
  });

  it('a hook that said busy is outvoted once the screen has read idle for N s (a crashed hook, a missed end)', () => {
    const fresh = fuseSignals({ state: 'idle', detected: 'idle', ageMs: 60_000 }, { signal: HOOKS['turn-start']!, ageMs: N - 1 }, N);
    expect(fresh.state).toBe('busy');
    const old = fuseSignals({ state: 'idle', detected: 'idle', ageMs: 60_000 }, { signal: HOOKS['turn-start']!, ageMs: N }, N);
    expect(old).toMatchObject({ state: 'idle', rule: 'disagree', won: 'screen' });
    expect(old.why).toContain('the screen is believed');
  });

  it('an Esc interrupt: the screen turns idle after the hook said busy, and wins', () => {
    const v = fuseSignals({ state: 'idle', detected: 'idle', ageMs: 10 }, { signal: HOOKS.work!, ageMs: 3000 }, N);
    expect(v).toMatchObject({ state: 'idle', rule: 'screen-newer' });
  });

  it('an Esc right after a prompt: the screen never read busy, but changed after the hook and settled idle: it wins after the settle time, not after N s', () => {
    const screen = (stillMs: number): ScreenSide => ({ state: 'idle', detected: 'idle', ageMs: 60_000, stillMs });
    const hook = (ageMs: number): HookSide => ({ signal: HOOKS['turn-start']!, ageMs });
    // The Esc 250 ms after the prompt; the agent redrew its prompt box 100 ms later.
    expect(fuseSignals(screen(SETTLED - 1), hook(350 + SETTLED - 1), N, SETTLED)).toMatchObject({ state: 'busy', rule: 'hook' });
    const v = fuseSignals(screen(SETTLED), hook(350 + SETTLED), N, SETTLED);
    expect(v).toMatchObject({ state: 'idle', rule: 'screen-settled', won: 'screen', reason: null });
    expect(v.why).toContain('still');
    // A screen unchanged since before the hook (the agent has not drawn the turn yet) does not outvote it.
    expect(fuseSignals(screen(2000), hook(1500), N, SETTLED)).toMatchObject({ state: 'busy', rule: 'hook' });
    // Nor does a screen whose rules read busy or a dialog, nor a screen the tracker holds busy.
    expect(fuseSignals({ state: 'idle', detected: 'busy', ageMs: 60_000, stillMs: 900 }, hook(1500), N, SETTLED).state).toBe('busy');
    // A waiting or ended hook is not what this rule overrules.
    expect(fuseSignals(screen(900), { signal: HOOKS.permission!, ageMs: 1500 }, N, SETTLED)).toMatchObject({ state: 'waiting', rule: 'hook' });
  });

  it('a permission answered: the screen goes busy after the hook said waiting, and wins', () => {
    const v = fuseSignals({ state: 'busy', detected: 'busy', ageMs: 10 }, { signal: HOOKS.permission!, ageMs: 3000 }, N);
    expect(v).toMatchObject({ state: 'busy', rule: 'screen-newer', reason: null });
  });

  it("the transcript's Esc over a busy screen ends the turn at once, and says the transcript decided", () => {
    const v = fuseSignals({ state: 'busy', detected: 'busy', ageMs: 4000 }, { signal: ESC_IN_TRANSCRIPT, ageMs: 100 });
    expect(v).toMatchObject({ state: 'idle', rule: 'hook', won: 'hook' });
    expect(v.why).toBe("the agent's transcript (Esc (transcript), 0.1 s ago) decides before the screen (busy) can tell");
  });

  it('maps the agents\' events to signals', () => {
    expect(hookSignalOf({ event: 'notification', notificationType: 'permission_prompt' })).toMatchObject({ kind: 'waiting', reason: 'permission' });
    expect(hookSignalOf({ event: 'notification', notificationType: 'elicitation_dialog' })).toMatchObject({ kind: 'waiting', reason: 'question' });
    expect(hookSignalOf({ event: 'notification', notificationType: 'auth_success' })).toMatchObject({ kind: 'none' });
    expect(hookSignalOf({ event: 'stop-blocked' })).toMatchObject({ kind: 'work' });
    expect(hookSignalOf({ event: 'session-start' })).toMatchObject({ kind: 'none' });
    expect(hookSignalOf({ event: 'turn-end' })).toMatchObject({ kind: 'turn-end' });
    expect(hookSignalOf({ event: 'interrupt' })).toMatchObject({ kind: 'turn-end', event: 'Interrupt' });
    expect(hookSignalOf({ event: 'pre-compact' })).toMatchObject({ kind: 'work' });
  });

  it("maps Claude Code's endings its screen cannot tell: /clear (SessionStart clear) and /compact (PostCompact manual) end the turn; an automatic compaction is work", () => {
    expect(hookSignalOf({ event: 'session-start', source: 'clear' })).toEqual({ kind: 'turn-end', reason: null, event: 'SessionStart(clear)' });
    // At a launch or resume Claude is not ready yet, and after a compaction SessionStart cannot tell /compact from an automatic one.
    for (const source of ['startup', 'resume', 'compact']) expect(hookSignalOf({ event: 'session-start', source })).toMatchObject({ kind: 'none', event: `SessionStart(${source})` });
    expect(hookSignalOf({ event: 'post-compact', trigger: 'manual' })).toEqual({ kind: 'turn-end', reason: null, event: 'PostCompact(manual)' });
    expect(hookSignalOf({ event: 'post-compact', trigger: 'auto' })).toMatchObject({ kind: 'work', event: 'PostCompact(auto)' });
    expect(hookSignalOf({ event: 'post-compact' })).toMatchObject({ kind: 'work', event: 'PostCompact' });
    expect(hookSignalOf({ event: 'pre-compact', trigger: 'manual' })).toMatchObject({ kind: 'work', event: 'PreCompact(manual)' });
    // UserPromptSubmit keeps the prompt's first line it was given (for the draft rule), and nothing blank.
    expect(hookSignalOf({ event: 'user-prompt-submit', prompt: ' slow one ' })).toEqual({ kind: 'turn-start', reason: null, event: 'UserPromptSubmit', prompt: 'slow one' });
    expect(hookSignalOf({ event: 'user-prompt-submit', prompt: '  ' })).not.toHaveProperty('prompt');
  });

  it('the prompt given back: a turn started with prompt P and an idle screen whose input holds P again is idle at once (rule draft-returned), before the quiet time', () => {
    const started: HookSide = { signal: hookSignalOf({ event: 'user-prompt-submit', prompt: 'slow one' }), ageMs: 900 };
    // The tracker still holds busy through its quiet time; the rules read the redrawn prompt box.
    const v = fuseSignals({ state: 'busy', detected: 'idle', ageMs: 2000, busySeenMs: 100, draft: 'slow one' }, started, N, SETTLED);
    expect(v).toMatchObject({ state: 'idle', rule: 'draft-returned', won: 'both', reason: null });
    expect(v.why).toContain('prompt is back');
    // A long prompt shows its start on the input line (the rest wraps below).
    const long: HookSide = { signal: hookSignalOf({ event: 'user-prompt-submit', prompt: 'please look at the parser and the tests' }), ageMs: 900 };
    expect(fuseSignals({ state: 'busy', detected: 'idle', ageMs: 2000, busySeenMs: 100, draft: 'please look at the' }, long, N, SETTLED).rule).toBe('draft-returned');
    // Not: an empty input, another draft, a few letters, a screen whose rules still read busy or a dialog.
    for (const draft of ['', 'quick one', 'sl']) expect(fuseSignals({ state: 'busy', detected: 'idle', ageMs: 2000, draft }, started, N, SETTLED)).toMatchObject({ state: 'busy', rule: 'agree' });
    for (const detected of ['busy', 'waiting', 'unknown'] as const) expect(fuseSignals({ state: 'busy', detected, ageMs: 2000, busySeenMs: 100, draft: 'slow one' }, started, N, SETTLED).rule).not.toBe('draft-returned');
    // Not without the prompt (an agent whose hook does not say it), nor for a hook other than a turn's start.
    expect(fuseSignals({ state: 'busy', detected: 'idle', ageMs: 2000, busySeenMs: 100, draft: 'slow one' }, { signal: HOOKS['turn-start']!, ageMs: 900 }, N, SETTLED).state).toBe('busy');
    expect(fuseSignals({ state: 'busy', detected: 'idle', ageMs: 2000, busySeenMs: 100, draft: 'slow one' }, { signal: HOOKS.work!, ageMs: 900 }, N, SETTLED).state).toBe('busy');
    // Without the draft read (screen side unknown), the rule is off.
    expect(fuseSignals({ state: 'busy', detected: 'idle', ageMs: 2000, busySeenMs: 100 }, started, N, SETTLED).state).toBe('busy');
    // Nor a turn never drawn since the hook ran (busy last read before it, or never): the line as the
    // operator typed it, the agent yet to redraw.
    expect(fuseSignals({ state: 'busy', detected: 'idle', ageMs: 2000, busySeenMs: 900, draft: 'slow one' }, started, N, SETTLED)).toMatchObject({ state: 'busy', rule: 'agree' });
    expect(fuseSignals({ state: 'idle', detected: 'idle', ageMs: 2000, draft: 'slow one' }, started, N, SETTLED)).toMatchObject({ state: 'busy', rule: 'hook' });
  });
});
