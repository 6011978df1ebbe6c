// The agent side of one row: its StateTracker and WakeController wired together, so the row manager
// has one object to feed (screen changes, exit, operator keystrokes, attach, unread mail) and one to
// ask (state, explain, whether the prompt is free). Transport-free like its parts.
import { type Disposable, DisposableStore } from '../util/lifecycle.js';
import type { ForegroundJob } from '../rows/foreground-job.js';
import type { ScreenSnapshot } from '../rows/screen-snapshot.js';
import type { Clock } from '../util/clock.js';
import { detectState } from './detect-state.js';
import type { FreePromptVerdict } from './free-prompt.js';
import type { AgentProfile, AgentState } from './profile-schema.js';
import { readPromptInput, type PromptInput } from './prompt-input.js';
import { StateTracker, type StateExplanation } from './state-tracker.js';
import {
  WakeController,
  type AuditEntry,
  type PromptStatus,
  type UnreadMail,
  type WakeOutcome,
  type WakePhase,
  type WakePolicy,
} from './wake-controller.js';

export interface RowAgentOptions {
  row: string;
  profile: AgentProfile;
  clock: Clock;
  policy?: WakePolicy;
  /** Writes bytes to the row's pty. */
  typeIntoRow: (bytes: string) => void;
  /** The job in the foreground of the row's terminal if not the program's own (null: none; undefined: unknown). */
  foregroundJob?: () => ForegroundJob | null | undefined;
  audit: (entry: AuditEntry) => void;
  recordWakeEvent: (messageIds: string[], outcome: WakeOutcome) => void;
  /** Shown by explain (e.g. the unknown-profile warning from resolveProfile). */
  warning?: string;
  debounceMs?: number;
  wake?: {
    verifyTimeoutMs?: number;
    echoTimeoutMs?: number;
    renudgeMs?: number;
    maxWakesPerHour?: number;
    operatorGraceMs?: number;
  };
}

const NO_INPUT: PromptInput = {
  found: false,
  lineIndex: -1,
  cursorOnInput: false,
  text: '',
  isEmpty: false,
  dialogOpen: false,
  dialogId: null,
};

export class RowAgent implements Disposable {
  readonly tracker: StateTracker;
  readonly wake: WakeController;
  private readonly store = new DisposableStore();
  private readonly profile: AgentProfile;
  private readonly clock: Clock;
  private readonly foregroundJob: (() => ForegroundJob | null | undefined) | undefined;

  constructor(opts: RowAgentOptions) {
    this.profile = opts.profile;
    this.clock = opts.clock;
    this.foregroundJob = opts.foregroundJob;
    this.tracker = this.store.add(
      new StateTracker({ row: opts.row, profile: opts.profile, clock: opts.clock, debounceMs: opts.debounceMs, warning: opts.warning }),
    );
    this.wake = this.store.add(
      new WakeController({
        row: opts.row,
        profile: opts.profile,
        clock: opts.clock,
        policy: opts.policy,
        promptStatus: () => this.promptStatus(),
        typeIntoRow: opts.typeIntoRow,
        audit: opts.audit,
        recordWakeEvent: opts.recordWakeEvent,
        ...opts.wake,
      }),
    );
    this.store.add(this.tracker.onStateChange((c) => this.wake.onStateChange(c.to)));
  }

  get state(): AgentState {
    return this.tracker.state;
  }

  onScreenChange(snapshot: ScreenSnapshot): void {
    this.tracker.onScreenChange(snapshot, this.clock.now());
    this.wake.onScreenChange();
  }

  onExit(code: number | null = null): void {
    this.tracker.onExit(code);
  }

  operatorTyped(): void {
    this.wake.operatorTyped(this.clock.now());
  }

  /** The operator sent the profile's interrupt key: a wake whose turn that cancels is given back. */
  interrupted(): void {
    this.wake.turnInterrupted();
  }

  /** The agent's own hook gave up telling it (the loop guard): wake it the typed way. */
  hookGaveUp(): void {
    this.wake.hookGaveUp();
  }

  /** The agent's own hook told it of its mail up to maxSeq. */
  toldByHook(maxSeq: number): void {
    this.wake.toldByHook(maxSeq);
  }

  setUnread(mail: UnreadMail): void {
    this.wake.setUnread(mail);
  }

  setPolicy(policy: WakePolicy): void {
    this.wake.setPolicy(policy);
  }

  promptStatus(): PromptStatus {
    const snap = this.tracker.snapshot;
    let input = snap ? readPromptInput(snap, this.profile) : NO_INPUT;
    if (snap && !input.dialogOpen) {
      // The tracker's state lags by its debounce; a question on the newest screen must still block.
      const live = detectState(snap, this.profile);
      if (live.state === 'waiting') input = { ...input, dialogOpen: true, dialogId: live.ruleId };
    }
    const prompt = this.profile.prompt;
    // Only what the profile asks for: reading /proc for every verdict would be wasted on an agent.
    const job = prompt?.noForegroundJob ? this.foregroundJob?.() : undefined;
    return {
      state: this.tracker.state,
      input,
      stillForMs: this.tracker.stillForMs(),
      quietMs: this.profile.quietMs,
      fullScreen: prompt?.normalScreenOnly === true && snap?.alternateScreen === true,
      foregroundJob: job ? `${job.name || 'a job'} (process group ${job.pgid})` : null,
    };
  }

  /** Is the prompt free right now, and if not, why (for the UI and `swb explain`). */
  /** The same verdict the wake controller acts on (its operator graces included). */
  freePrompt(): FreePromptVerdict {
    return this.wake.promptVerdict();
  }

  explain(): StateExplanation {
    return this.tracker.explain();
  }

  /** Everything `swb explain ROW` shows: pass to formatExplanation(state, { prompt, wake }). */
  explainRow(): { state: StateExplanation; prompt: FreePromptVerdict; wake: { policy: WakePolicy; phase: WakePhase; reason: string } } {
    return {
      state: this.tracker.explain(),
      prompt: this.freePrompt(),
      wake: { policy: this.wake.policy, phase: this.wake.phase, reason: this.wake.reason },
    };
  }

  dispose(): void {
    this.store.dispose();
  }
}
