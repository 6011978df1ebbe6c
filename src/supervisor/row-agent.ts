// One row's agent, for the row's whole life: it watches the row's screen, knows the agent's state and
// wakes it for its mail. Each incarnation of the row (a restart starts one) gets a fresh StateTracker
// and WakeController, told the current unread mail; the wake policy outlives them. Screen changes
// become snapshots at most once per `snapshotEveryMs` (a flooding row costs a bounded amount), and
// each snapshot is judged at once: that one timer is all that lies between a screen change and its
// state. The agent's own hooks (`swb hook <event>`, through the hub) are the second signal: both are
// fused by a stated rule (agents/fuse-signals.ts), and the fused state is the row's state — what its
// events carry, what the wake reads (a hook's end of turn lets a wake skip the screen's quiet time).
// Where the agent has no hook for a moment, its transcript read as it is written stands in (an Esc in
// Claude Code: `transcriptInterrupted`), weighed by the fusion as a hook.
// Its events are fired here, once, and whoever follows the row subscribes to them here.
import type { AgentProfile, AgentState } from '../agents/profile-schema.js';
import { ESC_IN_TRANSCRIPT, hookSignalOf, type HookReport, type WaitingReason } from '../agents/hook-signal.js';
import { readPromptStatus } from '../agents/prompt-status.js';
import { readPromptInput } from '../agents/prompt-input.js';
import { PROMPT_GIVEN_BACK } from '../agents/fuse-signals.js';
import { StateFusion, type FusionExplanation } from '../agents/state-fusion.js';
import { StateTracker, type StateExplanation } from '../agents/state-tracker.js';
import {
  WakeController,
  type AuditEntry,
  type UnreadMail,
  type WakeControllerOptions,
  type WakeOutcome,
  type WakePhase,
  type WakePolicy,
} from '../agents/wake-controller.js';
import type { FreePromptVerdict } from '../agents/free-prompt.js';
import type { ForegroundJob } from '../rows/foreground-job.js';
import type { ScreenSnapshot } from '../rows/screen-snapshot.js';
import { sanitize } from '../text/sanitize.js';
import type { Clock } from '../util/clock.js';
import { Emitter, type Event } from '../util/event.js';
import { DisposableStore, type Disposable } from '../util/lifecycle.js';
import { TimerSlot } from '../util/timer-slot.js';

/** The part of a Row the agent uses (a Row satisfies it; tests pass a fake). */
export interface AgentRow {
  readonly name: string;
  readonly state: 'running' | 'exited';
  readonly screen: { snapshot(): ScreenSnapshot };
  write(bytes: string): void;
  readonly onScreenChange: Event<void>;
  readonly onExit: Event<{ exitCode: number }>;
  readonly onRestart: Event<void>;
  /** The job in the foreground of the row's terminal if not the program's own; undefined when unknown. */
  foregroundJob?(): ForegroundJob | null | undefined;
}

export interface AgentStateEvent {
  row: string;
  state: AgentState;
  /** The rule behind the state (null for exits, quiet-time holds and a fresh incarnation; `hook <event>` when a hook decided). */
  rule: string | null;
  /** Why a `waiting` row waits for the operator (null when not waiting, or the screen alone cannot tell). */
  reason: WaitingReason | null;
  /** Which signal decided: the screen, the agent's hook, or both agreeing. */
  source: 'screen' | 'hook' | 'both';
  /**
   * When the agent's news that made this change began (ms since the epoch): the start of the hook
   * process (or the transcript line's time) whose report moved the state — its arrival where the
   * hook client did not date its start; never later than the change. Absent when the screen or a
   * timer moved it. How long swb took to act on a hook is the event's time less this; the agent's
   * own delay before it ran the hook is this less the true transition (bench:states reports both).
   */
  signalAt?: number;
}

/** A turn ended: the row went from busy (or waiting) to idle. */
export interface AgentTurnEndedEvent {
  row: string;
  at: number;
  /** The agent's own hook said so (its Stop), or the screen went idle. */
  by: 'hook' | 'screen';
}

export interface AgentWakeEvent {
  row: string;
  ok: boolean;
  messageIds: string[];
  reason: string;
}

/** Something the operator should read about an agent (the dashboards show it as a note). */
export interface AgentNotice {
  kind: 'error' | 'info';
  text: string;
  row: string;
}

/** The wake controller's timings (tests shorten them). */
export type WakeTimings = Pick<WakeControllerOptions, 'verifyTimeoutMs' | 'echoTimeoutMs' | 'renudgeMs' | 'maxWakesPerHour' | 'operatorGraceMs'>;

export interface RowAgentOptions {
  row: AgentRow;
  profile: AgentProfile;
  /** e.g. resolveProfile's unknown-profile warning (shown by explain). */
  warning?: string;
  policy: WakePolicy;
  clock: Clock;
  /** Screen changes closer together than this share one snapshot and one detection (default 80 ms). */
  snapshotEveryMs?: number;
  wake?: WakeTimings;
  /** Every byte swb types into the row, before it is written. */
  audit(entry: AuditEntry): void;
  /** A batch of mail was woken for, failed, or only shown (policy notify, loop guard). */
  recordWakeEvent(messageIds: string[], outcome: WakeOutcome): void;
  /** The row's unread mail now (a new incarnation starts with it). */
  unread(): UnreadMail;
}

export const DEFAULT_SNAPSHOT_EVERY_MS = 80;

/** What `swb explain ROW` shows: pass to formatExplanation(state, { prompt, wake }). */
export interface RowAgentExplanation {
  state: StateExplanation;
  prompt: FreePromptVerdict;
  wake: { policy: WakePolicy; phase: WakePhase; reason: string };
  /** Both signals, their ages, which won and why. */
  fusion: FusionExplanation;
}

/** One incarnation's parts: thrown away whole when the row restarts. */
interface Incarnation {
  readonly tracker: StateTracker;
  readonly fusion: StateFusion;
  readonly wake: WakeController;
  readonly lifetime: DisposableStore;
  /** When it began (clock ms): news the agent recorded before it belongs to an earlier one. */
  readonly startedAt: number;
}

const line = (s: string, max: number) => sanitize(s, { singleLine: true, maxChars: max });

export class RowAgent implements Disposable {
  private readonly stateEmitter = new Emitter<AgentStateEvent>();
  private readonly wakeEmitter = new Emitter<AgentWakeEvent>();
  private readonly noticeEmitter = new Emitter<AgentNotice>();
  private readonly turnEndedEmitter = new Emitter<AgentTurnEndedEvent>();
  /** The agent's state changed (a restart reports its fresh incarnation's `unknown`). */
  readonly onStateChange: Event<AgentStateEvent> = this.stateEmitter.event;
  /** A wake was typed and taken, or failed. */
  readonly onWakeResult: Event<AgentWakeEvent> = this.wakeEmitter.event;
  /** The loop guard held a wake back. */
  readonly onNotice: Event<AgentNotice> = this.noticeEmitter.event;
  /** A turn ended (busy or waiting, then idle): the notifier's "turn ended" and a wake's cue. */
  readonly onTurnEnded: Event<AgentTurnEndedEvent> = this.turnEndedEmitter.event;

  private readonly lifetime = new DisposableStore();
  private readonly snapshotTimer: TimerSlot;
  /** Made once: a screen change (the hot path) allocates nothing to ask for a snapshot. */
  private readonly onSnapshotDue = (): void => this.snapshotDue();
  private readonly snapshotEveryMs: number;
  /** The screen changed since the tracker's last snapshot. */
  private screenDirty = false;
  private current!: Incarnation;
  private policyValue: WakePolicy;
  private disposed = false;

  constructor(private readonly o: RowAgentOptions) {
    this.policyValue = o.policy;
    this.snapshotEveryMs = o.snapshotEveryMs ?? DEFAULT_SNAPSHOT_EVERY_MS;
    this.snapshotTimer = this.lifetime.add(new TimerSlot(o.clock));
    this.lifetime.add(o.row.onScreenChange(() => this.screenChanged()));
    this.lifetime.add(o.row.onExit((exit) => this.exited(exit.exitCode)));
    this.lifetime.add(o.row.onRestart(() => this.start()));
    this.start();
    if (o.row.state === 'exited') this.exited(null);
  }

  get name(): string {
    return this.o.row.name;
  }

  get profile(): AgentProfile {
    return this.o.profile;
  }

  /** The fused state (screen and hooks). */
  get state(): AgentState {
    return this.current.fusion.verdict.state;
  }

  /** Why a waiting row waits (null when it does not, or no signal says). */
  get waitingReason(): WaitingReason | null {
    return this.current.fusion.verdict.reason;
  }

  /** The rule behind the current state: the screen rule, or `hook <event>` when the hook decided. */
  get rule(): string | null {
    const { fusion, tracker } = this.current;
    return ruleOf(fusion, tracker);
  }

  /** This incarnation's wake controller (its phase, its own events); a restart replaces it. */
  get wake(): WakeController {
    return this.current.wake;
  }

  get policy(): WakePolicy {
    return this.policyValue;
  }

  setPolicy(policy: WakePolicy): void {
    this.policyValue = policy;
    this.current.wake.setPolicy(policy);
  }

  /** The operator typed into this row (attached, or a paste): wakes hold off for the typing quiet time. */
  operatorTyped(): void {
    this.current.wake.operatorTyped(this.o.clock.now());
  }

  /** The operator asked to cancel the agent's turn: its profile's interrupt key, audited before it is written. */
  interrupt(): string {
    const key = this.o.profile.interruptKey;
    this.o.audit({ at: this.o.clock.now(), row: this.o.row.name, bytes: key, purpose: 'interrupt', messageIds: [], attempt: 1 });
    this.o.row.write(key);
    // A wake whose turn that cancels is given back.
    this.current.wake.turnInterrupted();
    return key;
  }

  /** The agent's own hook told it of its mail up to maxSeq. */
  toldByHook(maxSeq: number): void {
    this.current.wake.toldByHook(maxSeq);
  }

  /** The agent's own hook gave up telling it (the loop guard): wake it the typed way. */
  hookGaveUp(): void {
    this.current.wake.hookGaveUp();
  }

  /** The agent's own hook reported (`swb hook <event>` as this row): the second signal. */
  hookReported(report: HookReport): void {
    if (this.disposed || this.o.row.state === 'exited') return;
    this.current.fusion.hookSaid(hookSignalOf(report), report.startedAt);
  }

  /**
   * The agent's transcript says the operator stopped its turn (Esc), recorded at `at` (ms epoch, the
   * line's own time). A line from before this incarnation (a backlog read again after a restart) is
   * not news; a time after now (a skewed or hostile line) counts as now.
   */
  transcriptInterrupted(at: number): void {
    if (this.disposed || this.o.row.state === 'exited') return;
    const now = this.o.clock.now();
    if (!Number.isFinite(at) || at < this.current.startedAt) return;
    this.current.fusion.hookSaid(ESC_IN_TRANSCRIPT, Math.min(at, now));
  }

  setUnread(mail: UnreadMail): void {
    this.current.wake.setUnread(mail);
  }

  /** Judges the newest screen now if a snapshot is due (explain uses it so a pending one is not missed). */
  flushScreen(): void {
    if (!this.snapshotTimer.pending) return;
    this.snapshotTimer.clear();
    this.snapshotDue();
  }

  /** Everything `swb explain ROW` shows, on the newest screen. */
  explainRow(): RowAgentExplanation {
    this.flushScreen();
    const { tracker, wake, fusion } = this.current;
    return {
      fusion: fusion.explain(),
      state: tracker.explain(),
      // The same verdict the wake controller acts on (its operator graces included).
      prompt: wake.promptVerdict(),
      wake: { policy: wake.policy, phase: wake.phase, reason: wake.reason },
    };
  }

  private start(): void {
    if (this.disposed) return;
    // (unset before the first start)
    this.current?.lifetime.dispose();
    this.snapshotTimer.clear();
    this.screenDirty = false;
    const { row, profile, clock } = this.o;
    const lifetime = new DisposableStore();
    const tracker = lifetime.add(new StateTracker({ row: row.name, profile, clock, ...(this.o.warning !== undefined ? { warning: this.o.warning } : {}) }));
    const foregroundJob = row.foregroundJob ? () => row.foregroundJob!() : undefined;
    const fusion = lifetime.add(
      new StateFusion({
        clock,
        screenState: () => tracker.state,
        detected: () => tracker.detection?.state ?? 'unknown',
        stillMs: () => tracker.stillForMs(),
        draft: () => draftOn(tracker, profile),
        settledMs: profile.quietMs,
      }),
    );
    const wake = lifetime.add(
      new WakeController({
        row: row.name,
        profile,
        clock,
        policy: this.policyValue,
        promptStatus: () => readPromptStatus(tracker, profile, foregroundJob, fusion.verdict),
        typeIntoRow: (bytes) => row.write(bytes),
        audit: (entry) => this.o.audit(entry),
        recordWakeEvent: (ids, outcome) => this.o.recordWakeEvent(ids, outcome),
        ...this.o.wake,
      }),
    );
    this.current = { tracker, fusion, wake, lifetime, startedAt: clock.now() };
    // The rule behind the screen's last change (null for quiet-time holds), for the state events.
    let screenRule: string | null = null;
    lifetime.add(
      tracker.onStateChange((c) => {
        screenRule = c.ruleId;
        fusion.screenChanged();
      }),
    );
    lifetime.add(
      fusion.onChange((c) => {
        wake.onStateChange(c.to);
        const source = c.verdict.won;
        const rule = source === 'hook' || c.verdict.rule === 'draft-returned' ? hookRule(fusion) : screenRule;
        this.stateEmitter.fire({ row: row.name, state: c.to, rule, reason: c.reason, source, ...(c.signalAt !== undefined ? { signalAt: c.signalAt } : {}) });
        if (c.to === 'idle' && (c.from === 'busy' || c.from === 'waiting')) {
          this.turnEndedEmitter.fire({ row: row.name, at: c.at, by: source === 'hook' ? 'hook' : 'screen' });
        }
      }),
    );
    lifetime.add(wake.onWoken((e) => this.wakeEmitter.fire({ row: row.name, ok: true, messageIds: e.messageIds, reason: '' })));
    lifetime.add(wake.onWakeFailed((e) => this.wakeEmitter.fire({ row: row.name, ok: false, messageIds: e.messageIds, reason: e.reason })));
    lifetime.add(
      wake.onNotifyOnly((e) => {
        // Policy notify/off: the mail notification already says it all.
        if (e.reason !== 'loop-guard') return;
        this.noticeEmitter.fire({ kind: 'error', text: line(`wake for @${row.name} held back (${wake.reason}); the mail stays unread`, 300), row: row.name });
      }),
    );
    this.stateEmitter.fire({ row: row.name, state: fusion.verdict.state, rule: null, reason: null, source: 'screen' });
    if (row.state !== 'exited') {
      // The first screen is kept now (the quiet time counts from it) and judged with the next one.
      tracker.observe(row.screen.snapshot());
      wake.onScreenChange();
      this.snapshotTimer.set(this.onSnapshotDue, this.snapshotEveryMs);
    }
    wake.setUnread(this.o.unread());
  }

  private screenChanged(): void {
    if (this.disposed) return;
    this.screenDirty = true;
    this.snapshotTimer.setIfIdle(this.onSnapshotDue, this.snapshotEveryMs);
  }

  /**
   * The snapshot interval passed: the newest screen (if it changed) to the tracker and the wake, then
   * the tracker's verdict on it (a state change re-checks the wake too).
   */
  private snapshotDue(): void {
    if (this.disposed || this.o.row.state === 'exited') return;
    const { tracker, wake } = this.current;
    if (this.screenDirty) {
      this.screenDirty = false;
      tracker.observe(this.o.row.screen.snapshot());
      wake.onScreenChange();
    }
    tracker.evaluate();
    this.current.fusion.screenJudged();
  }

  private exited(code: number | null): void {
    this.snapshotTimer.clear();
    this.screenDirty = false;
    this.current.tracker.onExit(code);
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.current.lifetime.dispose();
    this.lifetime.dispose();
    this.stateEmitter.dispose();
    this.wakeEmitter.dispose();
    this.noticeEmitter.dispose();
    this.turnEndedEmitter.dispose();
  }
}

/** The rule behind a fused state, as the row's events and explain name it. */
function ruleOf(fusion: StateFusion, tracker: StateTracker): string | null {
  return fusion.verdict.won === 'hook' ? hookRule(fusion) : (tracker.detection?.ruleId ?? null);
}

function hookRule(fusion: StateFusion): string {
  const signal = fusion.hook?.signal;
  // A turn the fusion ended itself (the prompt given back): no hook said it.
  if (signal === PROMPT_GIVEN_BACK) return `draft-returned (${signal.event})`;
  if (signal?.from === 'transcript') return signal.event;
  return `hook ${signal?.event ?? ''}`.trimEnd();
}

/** The draft in the agent's input on the tracker's newest screen ('' when none, or no input line). */
function draftOn(tracker: StateTracker, profile: AgentProfile): string {
  const snap = tracker.snapshot;
  if (!snap) return '';
  const input = readPromptInput(snap, profile);
  return input.found && !input.isEmpty ? input.text : '';
}
