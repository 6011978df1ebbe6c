// The fusion rule table (issue #37), every pair of signals: each screen state against each hook signal,
// with the hook newer or older than the screen's last change, fresh or old enough to be outvoted.
import { describe, expect, it } from 'vitest';
import { fuseSignals, type FusedVerdict, type HookSide, type ScreenSide } from '../../../src/agents/fuse-signals.js';
import { hookSignalOf, type HookSignal } from '../../../src/agents/hook-signal.js';
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
};
const HOOK_STATE: Record<string, AgentState | null> = {
  'turn-start': 'busy',
  work: 'busy',
  'turn-end': 'idle',
  permission: 'waiting',
  question: 'waiting',
  'idle-prompt': 'waiting',
  none: null,
};
const HOOK_REASON: Record<string, string | null> = { permission: 'permission', question: 'question', 'idle-prompt': 'idle-prompt' };

/** The table, written out: what each pair must give (the screen's rules read what it reports). */
function expected(screen: AgentState, hookName: string, timing: 'hook-newer' | 'screen-newer' | 'hook-old'): Pick<FusedVerdict, 'state' | 'rule' | 'won'> {
  const said = HOOK_STATE[hookName]!;
  if (screen === 'exited') return { state: 'exited', rule: 'exit', won: 'screen' };
  if (said === null) return { state: screen, rule: 'screen-only', won: 'screen' };
  const agree = screen === said || (hookName === 'idle-prompt' && screen === 'idle');
  if (agree) return { state: said, rule: 'agree', won: 'both' };
  if (screen === 'unknown') return { state: said, rule: 'hook', won: 'hook' };
  if (timing === 'screen-newer') return { state: screen, rule: 'screen-newer', won: 'screen' };
  if (timing === 'hook-old') return { state: screen, rule: 'disagree', won: 'screen' };
  return { state: said, rule: 'hook', won: 'hook' };
}

const ages = { 'hook-newer': { screen: 2000, hook: 100 }, 'screen-newer': { screen: 100, hook: 2000 }, 'hook-old': { screen: 9000, hook: N } } as const;

describe('fuseSignals: the rule table', () => {
  it('no hook: the screen alone decides', () => {
    for (const s of SCREEN) expect(fuseSignals({ state: s, detected: s, ageMs: 10 }, null, N)).toMatchObject({ state: s, rule: s === 'exited' ? 'exit' : 'screen-only', reason: null });
  });

  for (const screen of SCREEN)
    for (const hookName of Object.keys(HOOKS))
      for (const timing of ['hook-newer', 'screen-newer', 'hook-old'] as const)
        it(`screen ${screen} × hook ${hookName} (${timing})`, () => {
          const s: ScreenSide = { state: screen, detected: screen, ageMs: ages[timing].screen };
          const h: HookSide = { signal: HOOKS[hookName]!, ageMs: ages[timing].hook };
          const v = fuseSignals(s, h, N);
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

  it('a permission answered: the screen goes busy after the hook said waiting, and wins', () => {
    const v = fuseSignals({ state: 'busy', detected: 'busy', ageMs: 10 }, { signal: HOOKS.permission!, ageMs: 3000 }, N);
    expect(v).toMatchObject({ state: 'busy', rule: 'screen-newer', reason: null });
  });

  it('maps the agents\' events to signals', () => {
    expect(hookSignalOf({ event: 'notification', notificationType: 'permission_prompt' })).toMatchObject({ kind: 'waiting', reason: 'permission' });
    expect(hookSignalOf({ event: 'notification', notificationType: 'elicitation_dialog' })).toMatchObject({ kind: 'waiting', reason: 'question' });
    expect(hookSignalOf({ event: 'notification', notificationType: 'auth_success' })).toMatchObject({ kind: 'none' });
    expect(hookSignalOf({ event: 'stop-blocked' })).toMatchObject({ kind: 'work' });
    expect(hookSignalOf({ event: 'session-start' })).toMatchObject({ kind: 'none' });
    expect(hookSignalOf({ event: 'turn-end' })).toMatchObject({ kind: 'turn-end' });
    expect(hookSignalOf({ event: 'pre-compact' })).toMatchObject({ kind: 'work' });
  });
});
