// One row incarnation's fused state over time: it keeps the newest of each signal (the tracker's
// screen state and when it changed, the agent's last hook and when it spoke), applies the fusion
// rule (fuse-signals.ts) whenever either moves, and fires a change only when the fused state or its
// waiting reason does. A hook that is contradicted by the screen is re-judged once it is old enough
// to be outvoted (one timer), so a lasting disagreement resolves without a screen change. A hook that
// says nothing of the turn (kind `none`) is not kept: it would leave the screen alone deciding.
// A hook's news dates from when the agent ran it (its process's start), not from when it reached the
// hub: a hook process takes a few hundred ms to start and report, and an async one (PreToolUse,
// UserPromptSubmit) may arrive after the screen has already shown what came next (the permission
// dialog drawn): the screen's newer change must not be overridden by older news (rule 5).
// A busy hook that an idle screen may outvote once it has been still long enough (rule 6, an Esc
// right after a prompt) is judged again when that time is up (a second timer): a still screen sends
// no more snapshots to judge it by.
// A turn whose prompt the agent gave back into an idle screen's input (rule 3, Claude Code's Esc before
// its answer) ends once, here: the fusion keeps that end as the turn's last news (`Esc: prompt given
// back`), so erasing the draft afterwards does not bring the dropped turn back.
import type { Clock } from '../util/clock.js';
import { Emitter, type Event } from '../util/event.js';
import type { Disposable } from '../util/lifecycle.js';
import { TimerSlot } from '../util/timer-slot.js';
import { DEFAULT_DISAGREE_MS, DEFAULT_SETTLED_MS, draftMatters, fuseSignals, idleAfterBusyHook, PROMPT_GIVEN_BACK, type FusedVerdict, type ScreenSide } from './fuse-signals.js';
import type { HookSignal, WaitingReason } from './hook-signal.js';
import type { AgentState } from './profile-schema.js';

export interface FusedChange {
  from: AgentState;
  to: AgentState;
  reason: WaitingReason | null;
  verdict: FusedVerdict;
  at: number;
  /** The change came with a hook's report: when the agent started that hook (absent: the screen or time moved it). */
  signalAt?: number;
}

/** Both signals as explain shows them, with the verdict. */
export interface FusionExplanation {
  verdict: FusedVerdict;
  screen: { state: AgentState; detected: AgentState; ageMs: number };
  hook: { event: string; kind: HookSignal['kind']; reason: WaitingReason | null; ageMs: number } | null;
  disagreeMs: number;
}

export interface StateFusionOptions {
  clock: Clock;
  /** The tracker's reported state now. */
  screenState: () => AgentState;
  /** What the rules say about the newest screen, before the quiet time. */
  detected: () => AgentState;
  /** How long the screen's content has been unchanged (the tracker's stillForMs); without it rule 6 is off. */
  stillMs?: () => number;
  /** What the agent's input line holds on the newest screen ('' when empty); without it rule 3 is off. */
  draft?: () => string;
  disagreeMs?: number;
  /** How long an idle screen that changed after a busy hook must be still to outvote it (the profile's quiet time). */
  settledMs?: number;
}

/**
 * How far back a hook's own start time is believed: a report whose process started longer ago than
 * this (a hung hook, a skewed clock) is dated this much before it arrived.
 */
export const HOOK_START_TRUSTED_MS = 10_000;

/**
 * How close two hooks' starts must be for their order to be unknown. A hook client dates its start
 * from /proc (the pid's start in clock ticks, against /proc/uptime, both in 10 ms steps), so each
 * start is within about 10 ms of the truth, and two of them within 20: Claude Code starts a tool's
 * PreToolUse and PermissionRequest hooks a few ms apart, in the background, and either may report
 * first (a loaded CI run saw the PreToolUse, reaching the hub last with an equal start, turn a row
 * waiting for permission back to busy until the screen outvoted it 5 s later).
 */
export const HOOK_START_RESOLUTION_MS = 25;

/**
 * A turn's hooks in the order an agent runs them: between two that started too close to order by
 * their starts, the one later here is the newer news (PreToolUse comes before the PermissionRequest it
 * leads to, never after it within 25 ms: an answer takes the operator longer than that). A turn's
 * start close after a turn's end is the exception: it is the next turn's.
 */
const TURN_ORDER: Record<Exclude<HookSignal['kind'], 'none'>, number> = { 'turn-start': 0, work: 1, waiting: 2, 'turn-end': 3 };

export class StateFusion implements Disposable {
  private readonly changes = new Emitter<FusedChange>();
  readonly onChange: Event<FusedChange> = this.changes.event;
  private readonly disagreeMs: number;
  private readonly settledMs: number;
  private readonly recheckTimer: TimerSlot;
  /** Judges again when a screen that settled idle after a busy hook has been still for settledMs. */
  private readonly settleTimer: TimerSlot;
  private screenChangedAt: number;
  /** The rules' reading of the last screen judged (screenJudged). */
  private lastDetected: AgentState;
  /** When the rules last read busy (rule 3: a turn whose prompt comes back must have been drawn). */
  private busySeenAt: number | null = null;
  /** When the rules last read a dialog (rule 5: a busy screen answers a hook's waiting only once its dialog was shown). */
  private dialogSeenAt: number | null = null;
  private lastHook: { signal: HookSignal; at: number } | null = null;
  /** The newest hook process's start (ms epoch): one that started before it is stale news. */
  private lastHookStartedAt = 0;
  /** That hook's place in a turn (TURN_ORDER), for hooks that started within HOOK_START_RESOLUTION_MS of it. */
  private lastHookTurnOrder = 0;
  private current: FusedVerdict;

  constructor(private readonly o: StateFusionOptions) {
    this.disagreeMs = o.disagreeMs ?? DEFAULT_DISAGREE_MS;
    this.settledMs = o.settledMs ?? DEFAULT_SETTLED_MS;
    this.recheckTimer = new TimerSlot(o.clock);
    this.settleTimer = new TimerSlot(o.clock);
    this.screenChangedAt = o.clock.now();
    this.lastDetected = this.read(this.screenChangedAt);
    this.current = this.judge(this.screenChangedAt);
  }

  get verdict(): FusedVerdict {
    return this.current;
  }

  /** The last hook that said something of the turn, and when the agent ran it, or null. */
  get hook(): { signal: HookSignal; at: number } | null {
    return this.lastHook;
  }

  /** The tracker's reported state changed. */
  screenChanged(): void {
    this.screenChangedAt = this.o.clock.now();
    this.lastDetected = this.read(this.screenChangedAt);
    this.update();
  }

  /** The rules' reading of the newest screen, noted when busy. */
  private read(now: number): AgentState {
    const detected = this.o.detected();
    if (detected === 'busy') this.busySeenAt = now;
    else if (detected === 'waiting') this.dialogSeenAt = now;
    return detected;
  }

  /**
   * The agent's hook spoke (`startedAt`: when its process started, ms on the clock's scale, if known).
   * Its news is dated from that start (within HOOK_START_TRUSTED_MS of now, never after now).
   */
  hookSaid(signal: HookSignal, startedAt?: number): void {
    // A hook that says nothing of the turn (SessionStart, SessionEnd, a notification swb does not
    // know) is no news about it: the last meaningful hook keeps deciding, and its start still orders
    // the meaningful ones (one that started before this silent hook is not stale for it).
    if (signal.kind === 'none') return;
    const now = this.o.clock.now();
    if (startedAt !== undefined) {
      // A background hook that started before the last one reported is older news than it; one that
      // started too close to it to tell is ordered by where it comes in a turn.
      const order = TURN_ORDER[signal.kind];
      const close = Math.abs(startedAt - this.lastHookStartedAt) < HOOK_START_RESOLUTION_MS;
      const nextTurn = signal.kind === 'turn-start' && this.lastHookTurnOrder === TURN_ORDER['turn-end'];
      if (close ? order < this.lastHookTurnOrder && !nextTurn : startedAt < this.lastHookStartedAt) return;
      this.lastHookStartedAt = Math.max(startedAt, this.lastHookStartedAt);
      this.lastHookTurnOrder = order;
    }
    const at = startedAt === undefined ? now : Math.min(now, Math.max(startedAt, now - HOOK_START_TRUSTED_MS));
    this.lastHook = { signal, at };
    this.update(at);
    // A hook the screen contradicts is judged again once it may be outvoted.
    if (this.current.rule === 'hook') this.recheckTimer.set(() => this.update(), at + this.disagreeMs + 1 - now);
  }

  /**
   * The newest screen was judged (its reported state may not have changed): a disagreement may now
   * last; and a screen that newly shows work or a dialog is a newer screen fact even while the tracker
   * still reports what it held through its quiet time (the next prompt's spinner drawn before the
   * quiet time after a Stop ran out: the screen is newer than that Stop, and says busy).
   */
  screenJudged(): void {
    const detected = this.read(this.o.clock.now());
    const shown = detected !== this.lastDetected && (detected === 'busy' || detected === 'waiting');
    this.lastDetected = detected;
    if (shown) {
      this.screenChangedAt = this.o.clock.now();
      this.update();
      return;
    }
    const h = this.lastHook;
    // While a turn started with a known prompt and the rules read idle, each screen may show it given back (rule 3).
    if (h !== null && (this.current.rule === 'hook' || (this.o.draft !== undefined && draftMatters(detected, h.signal)))) this.update();
  }

  explain(now: number = this.o.clock.now()): FusionExplanation {
    const verdict = this.judge(now);
    const h = this.lastHook;
    return {
      verdict,
      screen: { state: this.o.screenState(), detected: this.o.detected(), ageMs: now - this.screenChangedAt },
      hook: h ? { event: h.signal.event, kind: h.signal.kind, reason: h.signal.reason, ageMs: now - h.at } : null,
      disagreeMs: this.disagreeMs,
    };
  }

  private screenSide(now: number): ScreenSide {
    const side: ScreenSide = { state: this.o.screenState(), detected: this.o.detected(), ageMs: now - this.screenChangedAt };
    if (this.o.stillMs) side.stillMs = this.o.stillMs();
    if (this.lastHook?.signal.kind === 'waiting') side.dialogSeenMs = this.dialogSeenAt === null ? Number.POSITIVE_INFINITY : now - this.dialogSeenAt;
    // Read only when rule 3 could use it: finding the input line is a search of the screen.
    if (this.o.draft && draftMatters(side.detected, this.lastHook?.signal)) {
      side.draft = this.o.draft();
      if (this.busySeenAt !== null) side.busySeenMs = now - this.busySeenAt;
    }
    return side;
  }

  private judge(now: number): FusedVerdict {
    const h = this.lastHook;
    return fuseSignals(this.screenSide(now), h ? { signal: h.signal, ageMs: now - h.at } : null, this.disagreeMs, this.settledMs);
  }

  /** While the hook holds busy over an idle screen that changed after it, judge again once it is still for settledMs. */
  private armSettle(now: number): void {
    const h = this.lastHook;
    if (this.current.rule !== 'hook' || h === null) return;
    const screen = this.screenSide(now);
    if (idleAfterBusyHook(screen, { signal: h.signal, ageMs: now - h.at })) this.settleTimer.set(() => this.update(), this.settledMs - screen.stillMs! + 1);
  }

  /** Judges again; `hookAt`: a hook's report asked, that hook having started then. */
  private update(hookAt?: number): void {
    const now = this.o.clock.now();
    const before = this.current;
    const next = this.judge(now);
    this.current = next;
    // The prompt given back ends that turn for good (the draft may be erased next): kept as the last news.
    if (next.rule === 'draft-returned' && this.lastHook !== null && this.lastHook.signal !== PROMPT_GIVEN_BACK) this.lastHook = { signal: PROMPT_GIVEN_BACK, at: now };
    this.armSettle(now);
    if (next.state === before.state && next.reason === before.reason) return;
    this.changes.fire({ from: before.state, to: next.state, reason: next.reason, verdict: next, at: now, ...(hookAt !== undefined ? { signalAt: hookAt } : {}) });
  }

  dispose(): void {
    this.recheckTimer.dispose();
    this.settleTimer.dispose();
    this.changes.dispose();
  }
}
