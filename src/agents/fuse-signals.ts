// The fusion rule: one row's state from its two signals, the screen (the profile's rules, after the
// quiet time) and the agent's own hooks (hook-signal.ts). A pure function, tried top to bottom; the
// first rule that applies decides, and says which signal won and why (explain shows it):
//   1. exit         the process ended: exited, whatever a hook said last.
//   2. screen-only  no hook has spoken (an agent without hooks, or none yet this incarnation).
//   3. draft-returned the hook said a turn started with prompt P, the screen's rules read busy after
//                   the hook's process started (the turn drawn: not the line as typed, before the agent
//                   redrew), now read idle (no busy marker, no dialog), and its input holds P again:
//                   the agent dropped the turn and gave the prompt back. Claude Code does this for a
//                   turn interrupted (Esc) before its answer began, with no hook and nothing in its
//                   transcript; the screen alone cannot tell that from a pause, so it waited out the
//                   quiet time. Idle at once: a turn that runs shows its busy marker, and its input
//                   does not hold the prompt it took.
//   4. agree        both say the same state: it, with the hook's waiting reason (the screen has none);
//                   an idle screen agrees with a hook's "waiting at an idle prompt".
//   5. screen-newer the screen's state changed after the hook spoke: the screen covers what hooks miss
//                   (a dialog answered, an Esc interrupt, a turn whose end no hook reported). Not a busy
//                   screen against a hook's waiting before the screen has shown the dialog
//                   (dialogNotYetShown): the agent's spinner turning until it draws it is no answer.
//   6. screen-settled the hook says busy, the screen reads idle, and the screen's content changed
//                   after the hook spoke and has been still since for `settledMs` (the profile's quiet
//                   time): something happened after the turn started and the agent is back at its idle
//                   prompt. An Esc right after a prompt does this: the agent drops the turn before its
//                   busy marker is ever read, so the reported screen state never changes and rule 5
//                   cannot see it; without this rule the hook held busy till rule 7 (5 s). A turn that
//                   really runs draws its busy marker (a spinner, a ticking timer) in that time and is
//                   never still that long (bench:states: no gap over 351 ms inside a turn).
//   7. disagree     the hook spoke at least `disagreeMs` ago and the screen has shown another state
//                   since: a crashed hook or a missed event; the screen is believed.
//   8. hook         otherwise the hook decides at once: a turn started (busy), ended (idle), or
//                   stopped for the operator (waiting, with its reason), before the screen can tell.
// The agent's transcript speaks as a hook does where the agent has no hook for a moment (Claude Code's
// Esc once its answer began: ESC_IN_TRANSCRIPT, hook-signal.ts), dated from the line's own time.
// A screen that reads `unknown` (no rule matched, or idle not yet quiet from a non-busy state) never
// outvotes a hook.
import type { AgentState } from './profile-schema.js';
import type { HookSignal, WaitingReason } from './hook-signal.js';

export type FusionRule = 'exit' | 'screen-only' | 'agree' | 'draft-returned' | 'screen-newer' | 'screen-settled' | 'disagree' | 'hook';

export interface ScreenSide {
  /** The tracker's reported state (quiet time applied). */
  state: AgentState;
  /** What the rules say about the newest screen, before the quiet time. */
  detected: AgentState;
  /** How long ago the reported state last changed. */
  ageMs: number;
  /** How long the screen's content (text, title, cursor) has been unchanged; unknown: rule 6 is off. */
  stillMs?: number;
  /** What the agent's input line holds (a draft; '' when empty); unknown: rule 3 is off. */
  draft?: string;
  /** How long ago the rules last read busy (undefined: not since this incarnation began, or not known); rule 3 needs it. */
  busySeenMs?: number;
  /**
   * How long ago the rules last read a dialog (waiting; Infinity: never), while a hook says waiting;
   * undefined: not known (the exception in rule 5 is off).
   */
  dialogSeenMs?: number;
}

/**
 * How long before a hook's waiting a dialog the screen showed still counts as that dialog (an agent
 * may draw it just before it runs the hook, Codex up to a second): rule 5's exception.
 */
export const DIALOG_BEFORE_HOOK_MS = 2000;

/**
 * Rule 5's exception: a hook says the agent waits for the operator, the screen reads busy, and the
 * screen has not shown the dialog since (nor just before). Claude Code runs its PermissionRequest hook
 * before it draws the dialog, and its spinner, still turning, is not an answer: only a dialog seen and
 * gone is (the real-agent claude-states test saw the row turn busy 24 ms after the hook, the dialog not
 * yet drawn). A dialog the screen never shows leaves it to rule 7.
 */
function dialogNotYetShown(screen: ScreenSide, hook: HookSide, said: AgentState): boolean {
  // An idle prompt has no dialog: the next turn's busy screen is news at once.
  if (said !== 'waiting' || hook.signal.reason === 'idle-prompt') return false;
  return screen.state === 'busy' && screen.dialogSeenMs !== undefined && screen.dialogSeenMs > hook.ageMs + DIALOG_BEFORE_HOOK_MS;
}

export interface HookSide {
  signal: HookSignal;
  /** How long ago the hook spoke. */
  ageMs: number;
}

export interface FusedVerdict {
  state: AgentState;
  /** Why a `waiting` row waits (null when not waiting or not known). */
  reason: WaitingReason | null;
  won: 'screen' | 'hook' | 'both';
  rule: FusionRule;
  why: string;
}

/** A hook older than this that the screen still contradicts is outvoted (rule 7). */
export const DEFAULT_DISAGREE_MS = 5000;

/** How long an idle screen that changed after a busy hook must stay still to outvote it (rule 6): a profile's quiet time. */
export const DEFAULT_SETTLED_MS = 600;

/** The state a hook signal stands for (null: it says nothing about the turn). */
export function hookState(s: HookSignal): AgentState | null {
  switch (s.kind) {
    case 'turn-start':
    case 'work':
      return 'busy';
    case 'turn-end':
      return 'idle';
    case 'waiting':
      return 'waiting';
    default:
      return null;
  }
}

/** An idle prompt the agent says it waits at is what an idle screen shows: no disagreement. */
function agrees(screenState: AgentState, said: AgentState, reason: WaitingReason | null): boolean {
  return screenState === said || (said === 'waiting' && reason === 'idle-prompt' && screenState === 'idle');
}

const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/**
 * The end of a turn whose prompt the agent gave back (rule 3), kept by StateFusion as the turn's last
 * news once seen (the draft may be erased next); explain and the row's events name it.
 */
export const PROMPT_GIVEN_BACK: HookSignal = { kind: 'turn-end', reason: null, event: 'Esc: prompt given back' };

const draftReturned = (seen: string): FusedVerdict => ({
  state: 'idle',
  reason: null,
  won: 'both',
  rule: 'draft-returned',
  why: `${seen}: the turn was interrupted (Esc) before its answer and the prompt given back`,
});

/**
 * Rule 3's test: an idle screen, read busy since the hook ran, whose input holds the prompt the hook's turn started with. The input
 * line shows a long prompt's start only (the rest wraps onto rows below): a draft that begins the
 * prompt, at least 4 characters of it (or all of a shorter one), is the prompt given back.
 */
export function promptGivenBack(screen: ScreenSide, hook: HookSide): boolean {
  const prompt = hook.signal.kind === 'turn-start' ? hook.signal.prompt : undefined;
  const draft = screen.draft;
  if (!prompt || !draft || screen.detected !== 'idle') return false;
  // The turn must have been drawn (the rules read busy after the hook's process started): an agent
  // that took the prompt but has not redrawn yet (loaded, it may take a second) still shows the line
  // as it was typed, with no busy marker. Claude draws its spinner in the frame the prompt goes out.
  if (screen.busySeenMs === undefined || screen.busySeenMs >= hook.ageMs) return false;
  return draft.length >= Math.min(prompt.length, 4) && prompt.startsWith(draft);
}

/** Whether rule 3 could apply: a turn started with a known prompt and the screen's rules read idle (the draft is worth reading). */
export function draftMatters(detected: AgentState, hook: HookSignal | undefined): boolean {
  return detected === 'idle' && hook?.kind === 'turn-start' && hook.prompt !== undefined;
}

/**
 * Rule 6's first half: the hook says busy, the screen reads idle, and its content changed after the
 * hook spoke (still for less time than the hook's age). StateFusion also uses it to know when to judge
 * again: once the screen has been still for `settledMs`.
 */
export function idleAfterBusyHook(screen: ScreenSide, hook: HookSide): boolean {
  return hookState(hook.signal) === 'busy' && screen.state === 'idle' && screen.detected === 'idle' && screen.stillMs !== undefined && screen.stillMs < hook.ageMs;
}

export function fuseSignals(screen: ScreenSide, hook: HookSide | null, disagreeMs: number = DEFAULT_DISAGREE_MS, settledMs: number = DEFAULT_SETTLED_MS): FusedVerdict {
  if (screen.state === 'exited') return { state: 'exited', reason: null, won: 'screen', rule: 'exit', why: 'the process exited' };
  const said = hook ? hookState(hook.signal) : null;
  if (hook === null || said === null) {
    const why = hook === null ? 'no hook has reported: the screen alone decides' : `the last hook (${hook.signal.event}) says nothing of the turn: the screen decides`;
    return { state: screen.state, reason: null, won: 'screen', rule: 'screen-only', why };
  }
  const event = hook.signal.event;
  const who = hook.signal.from === 'transcript' ? "the agent's transcript" : 'the hook';
  const reason = said === 'waiting' ? hook.signal.reason : null;
  // The turn whose prompt came back (now, or before: StateFusion keeps it as PROMPT_GIVEN_BACK).
  const given = promptGivenBack(screen, hook);
  const dropped = hook.signal === PROMPT_GIVEN_BACK;
  if (given) return draftReturned(`${who} (${event}, ${secs(hook.ageMs)} ago) said a turn started, and its prompt is back in the idle screen's input`);
  const droppedVerdict = () => draftReturned(`${secs(hook.ageMs)} ago the prompt of the turn came back into the idle screen's input`);
  if (agrees(screen.state, said, reason)) return dropped ? droppedVerdict() : { state: said, reason, won: 'both', rule: 'agree', why: `${who} (${event}) and the screen agree` };
  if (screen.state !== 'unknown' && screen.ageMs < hook.ageMs && !dialogNotYetShown(screen, hook, said)) {
    return {
      state: screen.state,
      reason: null,
      won: 'screen',
      rule: 'screen-newer',
      why: `the screen turned ${screen.state} ${secs(screen.ageMs)} ago, after ${who} (${event}, ${secs(hook.ageMs)} ago)`,
    };
  }
  if (idleAfterBusyHook(screen, hook) && screen.stillMs! >= settledMs) {
    return {
      state: 'idle',
      reason: null,
      won: 'screen',
      rule: 'screen-settled',
      why: `${who} (${event}) said busy ${secs(hook.ageMs)} ago, but the screen changed after it and has read idle, still, for ${secs(screen.stillMs!)}: the turn was dropped (an Esc) before its busy marker was read`,
    };
  }
  if (hook.ageMs >= disagreeMs && screen.detected !== 'unknown' && !agrees(screen.detected, said, reason) && screen.state !== 'unknown') {
    return {
      state: screen.state,
      reason: null,
      won: 'screen',
      rule: 'disagree',
      why: `${who} (${event}) said ${said} ${secs(hook.ageMs)} ago but the screen still reads ${screen.detected}: the screen is believed after ${secs(disagreeMs)}`,
    };
  }
  if (dropped) return droppedVerdict();
  return { state: said, reason, won: 'hook', rule: 'hook', why: `${who} (${event}, ${secs(hook.ageMs)} ago) decides before the screen (${screen.state}) can tell` };
}
