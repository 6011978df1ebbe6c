// Per-row state over time. Fed screen snapshots (never polled), it runs the detector on each one,
// applies the profile's quiet time (a row is idle only after its screen was still for `quietMs`; right
// after a dialog closed, after DIALOG_CLOSED_QUIET_MS),
// emits typed state changes and explains the current state. Bursts of output are coalesced before
// they get here, by the row's agent (src/supervisor/row-agent.ts: one snapshot per interval), so the
// tracker keeps no debounce of its own: one timer between a screen change and its state, not two.
import type { ScreenSnapshot } from '../rows/screen-snapshot.js';
import { Emitter, type Event } from '../util/event.js';
import type { Disposable } from '../util/lifecycle.js';
import type { Clock } from '../util/clock.js';
import { TimerSlot } from '../util/timer-slot.js';
import { detectState, type Detection } from './detect-state.js';
import type { AgentProfile, AgentState } from './profile-schema.js';

/**
 * How long an idle-looking screen right after a dialog closed must last before the row counts as idle
 * (a permission refused, a question dismissed), counted from the dialog's going, not from the screen's
 * last change (the operator may already be typing). An answer that lets the agent go on shows its busy
 * marker in the same frame the dialog goes (Claude, Codex, Gemini in bench:states), so this is a
 * redraw's margin, not a turn's. What it must cover, measured in bench:states' screens (10 ms looks,
 * docs/AGENTS-REAL.md "states-gc"): a busy marker 0-21 ms after the dialog went (an answer yes), a
 * dialog drawn again 10-12 ms after it went (a redraw after the key; Claude and Gemini). 150 ms is seven
 * times the widest of those and more than a snapshot interval (80 ms), so a dialog drawn again is read
 * before the hold ends. It was 300 ms, which kept a refusal no hook reports (Gemini's; every refusal in
 * a screen-only row) reading waiting 150 ms longer than any redraw needs.
 */
export const DIALOG_CLOSED_QUIET_MS = 150;

export interface StateChange {
  row: string;
  from: AgentState;
  to: AgentState;
  at: number;
  /** The detection behind the new state (ruleId null for exits and quiet-time holds). */
  ruleId: string | null;
}

export interface StateExplanation {
  row: string;
  profileId: string;
  /** Reported state (after quiet time). */
  state: AgentState;
  /** What the rules say about the latest screen, before quiet time. */
  detected: AgentState;
  ruleId: string | null;
  region: string;
  evidence: string;
  tried: Detection['tried'];
  quietMs: number;
  stillForMs: number;
  /** The rules say idle but the screen has not been still for the quiet time yet. */
  idlePending: boolean;
  exitCode: number | null;
  /** e.g. an unknown profile id. */
  warning: string | null;
}

export interface StateTrackerOptions {
  row: string;
  profile: AgentProfile;
  clock: Clock;
  /** Shown in explain output (e.g. from resolveProfile). */
  warning?: string;
}

function sameScreen(a: ScreenSnapshot, b: ScreenSnapshot): boolean {
  if (a.title !== b.title || a.alternateScreen !== b.alternateScreen) return false;
  if (a.cursor.x !== b.cursor.x || a.cursor.y !== b.cursor.y) return false;
  if (a.lines.length !== b.lines.length) return false;
  for (let i = 0; i < a.lines.length; i++) if (a.lines[i] !== b.lines[i]) return false;
  return true;
}

export class StateTracker implements Disposable {
  private readonly changes = new Emitter<StateChange>();
  readonly onStateChange: Event<StateChange> = this.changes.event;

  private readonly row: string;
  private readonly profile: AgentProfile;
  private readonly clock: Clock;
  private readonly warning: string | null;

  private reported: AgentState = 'unknown';
  private latest: ScreenSnapshot | null = null;
  private lastDetection: Detection | null = null;
  private lastChangeAt: number;
  private exitCode: number | null = null;
  /** The process ended (a rule may also say `exited`, but only a real exit is final). */
  private processExited = false;
  /** When the screen last turned idle-looking straight from a dialog (null: not since). */
  private dialogClosedAt: number | null = null;
  /** Re-runs the detector once the quiet time has passed. */
  private readonly quietTimer: TimerSlot;
  private disposed = false;

  constructor(opts: StateTrackerOptions) {
    this.row = opts.row;
    this.profile = opts.profile;
    this.clock = opts.clock;
    this.quietTimer = new TimerSlot(opts.clock);
    this.warning = opts.warning ?? null;
    this.lastChangeAt = this.clock.now();
  }

  get state(): AgentState {
    return this.reported;
  }

  get snapshot(): ScreenSnapshot | null {
    return this.latest;
  }

  get detection(): Detection | null {
    return this.lastDetection;
  }

  /** How long the screen content (text, title, cursor position) has been unchanged. */
  stillForMs(now: number = this.clock.now()): number {
    return Math.max(0, now - this.lastChangeAt);
  }

  /** A new screen: detects its state now. Identical snapshots do not reset the quiet time. */
  onScreenChange(snapshot: ScreenSnapshot, now: number = this.clock.now()): void {
    this.observe(snapshot, now);
    this.evaluate();
  }

  /**
   * Keeps the screen (its time starts the quiet time) without detecting yet: a fresh incarnation's
   * first screen, judged when the row's snapshot interval has passed, as every later one is.
   */
  observe(snapshot: ScreenSnapshot, now: number = this.clock.now()): void {
    if (this.disposed || this.processExited) return;
    if (this.latest === null || !sameScreen(this.latest, snapshot)) this.lastChangeAt = now;
    this.latest = snapshot;
  }

  /** The row's process ended: the state is `exited` from now on. */
  onExit(code: number | null = null): void {
    if (this.disposed) return;
    this.exitCode = code;
    this.processExited = true;
    this.quietTimer.clear();
    this.report('exited', null);
  }

  /** Runs the detector on the latest snapshot (again when its quiet time has passed). */
  evaluate(): void {
    if (this.disposed || this.processExited || this.latest === null) return;
    const now = this.clock.now();
    const detection = detectState(this.latest, this.profile);
    this.lastDetection = detection;
    if (detection.state !== 'idle') {
      this.dialogClosedAt = null;
      this.quietTimer.clear();
      this.report(detection.state, detection.ruleId);
      return;
    }
    if (this.reported === 'waiting' || this.dialogClosedAt !== null) {
      // Straight from a dialog: idle once it has stayed so for DIALOG_CLOSED_QUIET_MS; till then the
      // row still reads waiting (one change, waiting → idle, not a busy flash between).
      this.dialogClosedAt ??= now;
      const since = now - this.dialogClosedAt;
      if (since >= DIALOG_CLOSED_QUIET_MS) {
        this.dialogClosedAt = null;
        this.report('idle', detection.ruleId);
      } else this.quietTimer.set(() => this.evaluate(), DIALOG_CLOSED_QUIET_MS - since);
      return;
    }
    const still = now - this.lastChangeAt;
    if (still >= this.profile.quietMs || this.reported === 'idle') {
      this.report('idle', detection.ruleId);
      return;
    }
    // Idle on screen but not yet quiet: a finishing turn stays busy, anything else is unknown.
    this.report(this.reported === 'busy' ? 'busy' : 'unknown', null);
    this.quietTimer.set(() => this.evaluate(), this.profile.quietMs - still);
  }

  explain(now: number = this.clock.now()): StateExplanation {
    const d = this.lastDetection;
    const still = this.stillForMs(now);
    return {
      row: this.row,
      profileId: this.profile.id,
      state: this.reported,
      detected: d?.state ?? 'unknown',
      ruleId: d?.ruleId ?? null,
      region: d?.region ?? '',
      evidence: this.processExited ? `process exited${this.exitCode !== null ? ` with code ${this.exitCode}` : ''}` : (d?.evidence ?? 'no screen yet'),
      tried: d?.tried ?? [],
      quietMs: this.profile.quietMs,
      stillForMs: still,
      idlePending: this.reported !== 'idle' && this.reported !== 'exited' && d?.state === 'idle' && still < this.profile.quietMs,
      exitCode: this.exitCode,
      warning: this.warning,
    };
  }

  private report(to: AgentState, ruleId: string | null): void {
    const from = this.reported;
    if (from === to) return;
    this.reported = to;
    this.changes.fire({ row: this.row, from, to, at: this.clock.now(), ruleId });
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.quietTimer.dispose();
    this.changes.dispose();
  }
}
