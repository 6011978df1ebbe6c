// The wake state machine for one row. When unread mail arrives and the row's policy is `auto`, it waits
// for a free prompt, types the profile's fixed wake line (never mail text), checks the line showed up,
// presses the submit key, and verifies the agent took it (went busy, or the line left the input).
// An attempt that does not take is retried once, then reported as failed. One wake per batch of new
// mail, a re-nudge after a long interval while mail stays unread, and a loop guard per hour.
// UI-free and transport-free: the row, the clock, the audit log and the store are injected.
import { Emitter, type Event } from '../util/event.js';
import type { Disposable } from '../util/lifecycle.js';
import { TimerSlot } from '../util/timer-slot.js';
import { isPromptFree, type FreePromptVerdict } from './free-prompt.js';
import type { AgentState } from './profile-schema.js';
import { eraseRestoredWakeLine } from './restored-wake-line.js';
import { showsWakeLine } from './wake-line-echo.js';
import { WakeLoopGuard } from './wake-loop-guard.js';
import { withWakeDefaults } from './wake-types.js';
import type {
  AuditEntry,
  NotifyOnlyEvent,
  ResolvedWakeOptions,
  UnreadMail,
  WakeControllerOptions,
  WakeFailedEvent,
  WakePhase,
  WakePolicy,
  WokenEvent,
} from './wake-types.js';

// Its words live in wake-types.ts; its users name them from here as before.
export type * from './wake-types.js';

export class WakeController implements Disposable {
  private readonly woken = new Emitter<WokenEvent>();
  private readonly failed = new Emitter<WakeFailedEvent>();
  private readonly notified = new Emitter<NotifyOnlyEvent>();
  readonly onWoken: Event<WokenEvent> = this.woken.event;
  readonly onWakeFailed: Event<WakeFailedEvent> = this.failed.event;
  readonly onNotifyOnly: Event<NotifyOnlyEvent> = this.notified.event;

  private readonly o: ResolvedWakeOptions;
  private policyValue: WakePolicy;
  private phaseValue: WakePhase = 'quiet';
  private unread: UnreadMail = { messageIds: [], maxSeq: 0 };
  /** The newest mail a hook gave up on and handed back to the typed wake (once per batch). */
  private hookGaveUpSeq = 0;
  /** Highest sequence number a wake (or notification) has already covered. */
  private handledSeq = 0;
  private batch: UnreadMail = { messageIds: [], maxSeq: 0 };
  private attempt = 0;
  private wakeStartedAt = 0;
  private readonly loopGuard: WakeLoopGuard;
  private operatorTypedAt: number | null = null;
  private lastReason = '';
  /**
   * The turn the last wake started, while it may still run: what was handled before that wake (to
   * give the batch back if the operator interrupts the turn) and whether the agent went busy yet.
   */
  private wakeTurn: { handledBefore: number; sawBusy: boolean } | null = null;
  /** When the operator interrupted a wake's turn (the wake holds off a while), or null. */
  private interruptedAt: number | null = null;
  /** The interrupted agent may give the wake line back as a draft: erase it (once) when it shows. */
  private erasePending = false;
  /** The step in flight's deadline (echo, submit delay, verify). */
  private readonly phaseTimer: TimerSlot;
  /** A pending wake's next look at the prompt. */
  private readonly recheckTimer: TimerSlot;
  /** The re-nudge while mail stays unread. */
  private readonly renudgeTimer: TimerSlot;
  private disposed = false;

  constructor(opts: WakeControllerOptions) {
    this.o = withWakeDefaults(opts);
    this.loopGuard = new WakeLoopGuard(this.o.maxWakesPerHour);
    this.policyValue = opts.policy ?? 'auto';
    this.phaseTimer = new TimerSlot(opts.clock);
    this.recheckTimer = new TimerSlot(opts.clock);
    this.renudgeTimer = new TimerSlot(opts.clock);
  }

  get policy(): WakePolicy {
    return this.policyValue;
  }

  get phase(): WakePhase {
    return this.phaseValue;
  }

  /** Why the last pending check did not type (for the UI), or the last failure. */
  get reason(): string {
    return this.lastReason;
  }

  /** Replace the row's unread set (call on every change: new mail, mail read). */
  setUnread(mail: UnreadMail): void {
    if (this.disposed) return;
    this.unread = { messageIds: [...mail.messageIds], maxSeq: mail.maxSeq };
    if (mail.messageIds.length === 0) {
      this.renudgeTimer.clear();
      if (this.phaseValue === 'pending') {
        this.setPhase('quiet');
        this.lastReason = '';
      }
      return;
    }
    if (mail.maxSeq > this.handledSeq) this.startBatch();
  }

  setPolicy(policy: WakePolicy): void {
    if (this.disposed || policy === this.policyValue) return;
    const previous = this.policyValue;
    this.policyValue = policy;
    if (policy !== 'auto' && this.phaseValue === 'pending') this.setPhase('quiet');
    if (policy === 'off') return;
    // Mail that arrived under notify/off was only shown, never typed about: an operator who now
    // turns on auto expects the agent to be told about what is still unread.
    const unwoken = policy === 'auto' && previous !== 'auto';
    if (this.unread.messageIds.length > 0 && (unwoken || this.unread.maxSeq > this.handledSeq)) this.startBatch();
  }

  /**
   * The agent's own end-of-turn hook told it of its mail up to `maxSeq` (Claude Code's Stop hook): that
   * batch is handled — a wake still pending for it is dropped, never typed as well.
   */
  toldByHook(maxSeq: number): void {
    if (this.disposed) return;
    this.handledSeq = Math.max(this.handledSeq, maxSeq);
    if (this.phaseValue === 'pending' && this.batch.maxSeq <= maxSeq) {
      this.lastReason = 'told by its own hook at the end of its turn: nothing typed';
      this.setPhase('done');
    }
  }

  /**
   * The hook told the agent twice and its mail is still unread (the loop guard let it stop): what is
   * unread is a batch for the typed wake again, typed once the prompt is free.
   */
  hookGaveUp(): void {
    // Once per batch: a typed wake the agent ignores too must not bring the hook and the wake round again.
    if (this.disposed || this.unread.messageIds.length === 0 || this.unread.maxSeq <= this.hookGaveUpSeq) return;
    this.hookGaveUpSeq = this.unread.maxSeq;
    this.startBatch();
  }

  /** The operator typed into this row (directly or through the composer). */
  operatorTyped(now: number = this.o.clock.now()): void {
    this.operatorTypedAt = now;
    if (this.phaseValue === 'pending') this.recheck();
  }

  /** The tracker's state changed. */
  onStateChange(state: AgentState): void {
    if (this.wakeTurn) {
      // The wake's turn ran and ended on its own (or never began while the wake verified it): an
      // interrupt from now on is about another turn.
      const late = this.now() - this.wakeStartedAt > this.o.echoTimeoutMs + this.o.verifyTimeoutMs;
      if (state === 'busy' && !this.wakeTurn.sawBusy && late) this.wakeTurn = null;
      else if (state === 'busy') this.wakeTurn.sawBusy = true;
      else if (this.wakeTurn.sawBusy) this.wakeTurn = null;
    }
    this.recheck();
  }

  /**
   * The operator interrupted the agent's turn. When a wake started that turn (or is typing it), the
   * agent never got to read its mail: the batch goes back to pending, held a while so the operator
   * can act, and the wake line the agent may give back as a draft is erased (swb's own text only).
   */
  turnInterrupted(): void {
    if (this.disposed) return;
    const inFlight = this.phaseValue === 'typing' || this.phaseValue === 'submitting' || this.phaseValue === 'verifying';
    if (!inFlight && !this.wakeTurn) return;
    if (inFlight) {
      this.phaseTimer.clear();
    } else {
      this.handledSeq = this.wakeTurn!.handledBefore;
    }
    this.wakeTurn = null;
    this.interruptedAt = this.now();
    this.erasePending = true;
    this.renudgeTimer.clear();
    this.lastReason = 'the operator interrupted the turn the wake started: it waits, then wakes again';
    if (this.policyValue !== 'auto' || this.unread.messageIds.length === 0) {
      this.setPhase('done');
      return;
    }
    this.batch = { messageIds: [...this.unread.messageIds], maxSeq: this.unread.maxSeq };
    this.setPhase('pending');
    this.recheck();
  }

  /** The row's screen changed (cheap: only acts while a wake is pending or in flight). */
  onScreenChange(): void {
    this.recheck();
  }

  private now(): number {
    return this.o.clock.now();
  }

  private setPhase(p: WakePhase): void {
    this.phaseValue = p;
    if (p !== 'pending') this.recheckTimer.clear();
  }

  private startBatch(): void {
    if (this.policyValue === 'off') return;
    const inFlight = this.phaseValue === 'typing' || this.phaseValue === 'submitting' || this.phaseValue === 'verifying';
    if (inFlight) return; // finishing the current wake re-checks for mail that came meanwhile
    this.batch = { messageIds: [...this.unread.messageIds], maxSeq: this.unread.maxSeq };
    if (this.policyValue === 'notify') {
      this.handledSeq = this.batch.maxSeq;
      // "done" alone read as if a wake had been typed: say that nothing was.
      this.lastReason = 'policy notify: shown to the operator, nothing typed';
      this.setPhase('done');
      this.o.recordWakeEvent(this.batch.messageIds, 'notified');
      this.notified.fire({ row: this.o.row, messageIds: this.batch.messageIds, reason: 'policy', at: this.now() });
      return;
    }
    this.setPhase('pending');
    this.recheck();
  }

  private recheck(): void {
    if (this.disposed) return;
    switch (this.phaseValue) {
      case 'pending':
        this.tryWake();
        break;
      case 'typing':
        if (showsWakeLine(this.o.promptStatus().input, this.o.profile.wakeLine)) this.afterEcho();
        break;
      case 'verifying':
        if (this.tookIt()) this.succeed();
        break;
      default:
        break;
    }
  }

  /** Whether the prompt is free for typing now, with this controller's operator graces (explain shows it). */
  promptVerdict(): FreePromptVerdict {
    return this.verdict();
  }

  private verdict(): FreePromptVerdict {
    const s = this.o.promptStatus();
    const now = this.now();
    return isPromptFree({
      state: s.state,
      input: s.input,
      operatorTypedAt: this.operatorTypedAt,
      now,
      stillForMs: s.stillForMs,
      quietMs: s.quietMs,
      operatorGraceMs: this.o.operatorGraceMs,
      fullScreen: s.fullScreen === true,
      foregroundJob: s.foregroundJob ?? null,
    });
  }

  private tryWake(): void {
    const now = this.now();
    const held = this.loopGuard.held(now);
    if (held !== null) {
      this.handledSeq = this.batch.maxSeq;
      this.lastReason = `loop guard: ${held} automatic wakes in the last hour`;
      this.setPhase('done');
      this.o.recordWakeEvent(this.batch.messageIds, 'notified');
      this.notified.fire({ row: this.o.row, messageIds: this.batch.messageIds, reason: 'loop-guard', at: now });
      this.armRenudge();
      return;
    }
    if (this.eraseRestoredLine()) return;
    if (this.interruptedAt !== null && now - this.interruptedAt < this.o.interruptHoldMs) {
      const left = this.interruptedAt + this.o.interruptHoldMs - now;
      this.lastReason = `the operator interrupted the turn the wake started: it waits ${Math.ceil(left / 1000)} s, then wakes again`;
      this.recheckIn(left);
      return;
    }
    const v = this.verdict();
    if (!v.free) {
      this.lastReason = v.detail;
      if (v.retryInMs !== undefined) this.recheckIn(v.retryInMs);
      return;
    }
    this.loopGuard.record(now);
    this.wakeStartedAt = now;
    this.interruptedAt = null;
    this.attempt = 1;
    this.lastReason = ''; // whatever held the wake back no longer does
    this.typeLine();
  }

  private recheckIn(ms: number): void {
    this.recheckTimer.set(() => this.recheck(), ms + 1);
  }

  /**
   * After an interrupt: erases the wake line the agent gave back as a draft, once the turn is over.
   * True when it typed (the screen change brings the next check). Never over the operator's keys.
   */
  private eraseRestoredLine(): boolean {
    if (!this.erasePending) return false;
    const s = this.o.promptStatus();
    if (s.state === 'busy') return false; // the draft comes back when the turn has stopped
    this.erasePending = false;
    if (this.operatorTypedAt !== null && this.interruptedAt !== null && this.operatorTypedAt > this.interruptedAt) return false;
    const keys = eraseRestoredWakeLine(s.input, this.o.profile.wakeLine);
    if (keys === null) return false;
    this.write(keys, 'wake-erase');
    return true;
  }

  private write(bytes: string, purpose: AuditEntry['purpose']): void {
    // Audit first: a crash between the two must not leave an unrecorded write.
    this.o.audit({ at: this.now(), row: this.o.row, bytes, purpose, messageIds: this.batch.messageIds, attempt: this.attempt });
    this.o.typeIntoRow(bytes);
  }

  private typeLine(): void {
    this.setPhase('typing');
    this.write(this.o.profile.wakeLine, 'wake-line');
    this.armPhaseTimer(this.o.echoTimeoutMs, () => this.echoTimedOut());
    this.recheck();
  }

  private echoTimedOut(): void {
    if (this.attempt === 1 && this.verdict().free) {
      this.attempt = 2;
      this.typeLine();
      return;
    }
    this.fail('the typed wake line never showed in the input');
  }

  private afterEcho(): void {
    this.setPhase('submitting');
    this.armPhaseTimer(this.o.profile.submitDelayMs, () => this.submit());
  }

  /** Nothing may have changed under us: no dialog (Enter would answer it), no operator keystroke. */
  private safeToSubmit(): string | null {
    const s = this.o.promptStatus();
    if (s.input.dialogOpen || s.state === 'waiting') return 'a dialog opened before the wake line was submitted';
    if (this.operatorTypedAt !== null && this.operatorTypedAt >= this.wakeStartedAt)
      return 'the operator typed while the wake line was being entered';
    if (!showsWakeLine(s.input, this.o.profile.wakeLine)) return 'the wake line left the input before it was submitted';
    return null;
  }

  private submit(): void {
    const unsafe = this.safeToSubmit();
    if (unsafe) {
      this.fail(unsafe);
      return;
    }
    this.setPhase('verifying');
    this.wakeTurn = { handledBefore: this.handledSeq, sawBusy: false };
    this.write(this.o.profile.wakeSubmit, 'wake-submit');
    this.armPhaseTimer(this.o.verifyTimeoutMs, () => this.verifyTimedOut());
    this.recheck();
  }

  private tookIt(): boolean {
    const s = this.o.promptStatus();
    if (s.state === 'busy' || s.state === 'waiting') return true;
    return s.input.found && !showsWakeLine(s.input, this.o.profile.wakeLine);
  }

  private verifyTimedOut(): void {
    const s = this.o.promptStatus();
    if (!showsWakeLine(s.input, this.o.profile.wakeLine) || s.state === 'busy' || s.state === 'waiting') {
      this.succeed();
      return;
    }
    if (this.attempt === 1) {
      // The line is still in the input: press the submit key once more.
      this.attempt = 2;
      const unsafe = this.safeToSubmit();
      if (unsafe) {
        this.fail(unsafe);
        return;
      }
      this.write(this.o.profile.wakeSubmit, 'wake-submit');
      this.armPhaseTimer(this.o.verifyTimeoutMs, () => this.verifyTimedOut());
      return;
    }
    this.fail('the wake line stayed in the input after two submits');
  }

  private succeed(): void {
    this.finish();
    this.lastReason = `woken: the wake line was typed and taken (attempt ${this.attempt})`;
    this.o.recordWakeEvent(this.batch.messageIds, 'woken');
    this.woken.fire({ row: this.o.row, messageIds: this.batch.messageIds, attempts: this.attempt, at: this.now() });
    this.afterBatch();
  }

  private fail(reason: string): void {
    this.wakeTurn = null;
    this.finish();
    this.lastReason = reason;
    this.o.recordWakeEvent(this.batch.messageIds, 'failed');
    this.failed.fire({ row: this.o.row, messageIds: this.batch.messageIds, reason, at: this.now() });
    this.afterBatch();
  }

  private finish(): void {
    this.phaseTimer.clear();
    this.handledSeq = Math.max(this.handledSeq, this.batch.maxSeq);
    this.setPhase('done');
  }

  private afterBatch(): void {
    if (this.disposed) return;
    this.armRenudge();
    if (this.unread.messageIds.length > 0 && this.unread.maxSeq > this.handledSeq) this.startBatch();
  }

  private armRenudge(): void {
    this.renudgeTimer.set(() => {
      if (this.unread.messageIds.length === 0 || this.policyValue !== 'auto') return;
      if (this.phaseValue === 'pending' || this.phaseValue === 'typing' || this.phaseValue === 'submitting' || this.phaseValue === 'verifying') return;
      this.batch = { messageIds: [...this.unread.messageIds], maxSeq: this.unread.maxSeq };
      this.setPhase('pending');
      this.recheck();
    }, this.o.renudgeMs);
  }

  private armPhaseTimer(ms: number, fn: () => void): void {
    this.phaseTimer.set(() => {
      if (!this.disposed) fn();
    }, ms);
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.phaseTimer.dispose();
    this.recheckTimer.dispose();
    this.renudgeTimer.dispose();
    this.woken.dispose();
    this.failed.dispose();
    this.notified.dispose();
  }
}
