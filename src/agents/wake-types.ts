// The wake controller's words (wake-controller.ts): its policy, phases and outcomes, what it reads from
// the row, the audit entry of every byte it types, its events and its options. Apart from the state
// machine so that the row's agent, the prompt status and the dashboards can name them without it;
// with the options' defaults.
import type { AgentProfile, AgentState } from './profile-schema.js';
import type { PromptInput } from './prompt-input.js';
import type { Clock } from '../util/clock.js';

export type WakePolicy = 'auto' | 'notify' | 'off';
export type WakeOutcome = 'woken' | 'failed' | 'notified';
export type WakePhase = 'quiet' | 'pending' | 'typing' | 'submitting' | 'verifying' | 'done';

/** The row's current unread mail: all unread ids and the highest sequence number among them. */
export interface UnreadMail {
  messageIds: string[];
  maxSeq: number;
}

/** What the controller reads from the row whenever it considers typing. */
export interface PromptStatus {
  state: AgentState;
  input: PromptInput;
  stillForMs: number;
  quietMs: number;
  /** A full-screen program (alternate screen) is up where the profile's prompt lives on the normal screen. */
  fullScreen?: boolean;
  /** A job other than the row's program holds its terminal (where the profile says that makes it busy). */
  foregroundJob?: string | null;
}

export interface AuditEntry {
  at: number;
  row: string;
  /** Exactly the bytes written to the row. */
  bytes: string;
  purpose: 'wake-line' | 'wake-submit' | 'wake-erase' | 'interrupt';
  messageIds: string[];
  attempt: number;
}

export interface WokenEvent {
  row: string;
  messageIds: string[];
  attempts: number;
  at: number;
}
export interface WakeFailedEvent {
  row: string;
  messageIds: string[];
  reason: string;
  at: number;
}
export interface NotifyOnlyEvent {
  row: string;
  messageIds: string[];
  reason: 'policy' | 'loop-guard';
  at: number;
}

export interface WakeControllerOptions {
  row: string;
  profile: Pick<AgentProfile, 'wakeLine' | 'wakeSubmit' | 'submitDelayMs'>;
  clock: Clock;
  policy?: WakePolicy;
  promptStatus: () => PromptStatus;
  typeIntoRow: (bytes: string) => void;
  audit: (entry: AuditEntry) => void;
  recordWakeEvent: (messageIds: string[], outcome: WakeOutcome) => void;
  /** How long the typed line may take to appear in the input (default 3 s). */
  echoTimeoutMs?: number;
  /** How long after the submit key the agent must go busy or clear the input (default 10 s). */
  verifyTimeoutMs?: number;
  /** Wake again after this long while mail stays unread (default 10 min). */
  renudgeMs?: number;
  /** Automatic wakes allowed per row per rolling hour (default 6). */
  maxWakesPerHour?: number;
  /**
   * The typing quiet time: the operator's keystrokes into the row (attached, or through the composer)
   * hold wakes for this long after the last one (default 5 s). Being attached alone holds nothing: an
   * operator who reads an attached row without typing does not keep its mail from it.
   */
  operatorGraceMs?: number;
  /** After the operator interrupted the turn a wake started, the wake waits this long to try again (default 30 s). */
  interruptHoldMs?: number;
}

/** The options with every default filled in. */
export type ResolvedWakeOptions = Required<Omit<WakeControllerOptions, 'policy'>>;

export function withWakeDefaults(opts: WakeControllerOptions): ResolvedWakeOptions {
  return {
    row: opts.row,
    profile: opts.profile,
    clock: opts.clock,
    promptStatus: opts.promptStatus,
    typeIntoRow: opts.typeIntoRow,
    audit: opts.audit,
    recordWakeEvent: opts.recordWakeEvent,
    echoTimeoutMs: opts.echoTimeoutMs ?? 3000,
    verifyTimeoutMs: opts.verifyTimeoutMs ?? 10_000,
    renudgeMs: opts.renudgeMs ?? 10 * 60 * 1000,
    maxWakesPerHour: opts.maxWakesPerHour ?? 6,
    operatorGraceMs: opts.operatorGraceMs ?? 5000,
    interruptHoldMs: opts.interruptHoldMs ?? 30_000,
  };
}
