// Binds one row to its RowAgent across incarnations: screen changes become snapshots for the state
// tracker (at most one per `snapshotEveryMs`, so a flooding row costs a bounded amount), an exit is
// final for that incarnation, and a restart starts a fresh RowAgent that is told the current unread
// mail. The wake policy survives restarts. The agent's own events come out typed.
import type { Clock } from '../util/clock.js';
import type { AgentProfile, AgentState } from '../agents/profile-schema.js';
import { RowAgent, type RowAgentOptions } from '../agents/row-agent.js';
import type { AuditEntry, UnreadMail, WakePolicy } from '../agents/wake-controller.js';
import type { ForegroundJob } from '../rows/foreground-job.js';
import type { ScreenSnapshot } from '../rows/screen-snapshot.js';
import { Emitter, type Event } from '../util/event.js';
import { DisposableStore, type Disposable } from '../util/lifecycle.js';

/** The part of a Row the binding uses (a Row satisfies it; tests pass a fake). */
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
  /** The rule behind the state (null for exits, quiet-time holds and a fresh incarnation). */
  rule: string | null;
}

export interface AgentWakeEvent {
  row: string;
  ok: boolean;
  messageIds: string[];
  reason: string;
}

export interface AgentHeldEvent {
  row: string;
  messageIds: string[];
  reason: 'policy' | 'loop-guard';
  detail: string;
}

export interface AgentRowBindingOptions {
  row: AgentRow;
  profile: AgentProfile;
  /** e.g. resolveProfile's unknown-profile warning (shown by explain). */
  warning?: string;
  policy: WakePolicy;
  clock: Clock;
  /** Screen changes closer together than this share one snapshot (default 80 ms). */
  snapshotEveryMs?: number;
  debounceMs?: number;
  wake?: RowAgentOptions['wake'];
  audit(entry: AuditEntry): void;
  recordWake(messageIds: readonly string[]): void;
  /** The row's unread mail now (a new incarnation starts with it). */
  unread(): UnreadMail;
}

export const DEFAULT_SNAPSHOT_EVERY_MS = 80;

export class AgentRowBinding implements Disposable {
  private readonly stateEmitter = new Emitter<AgentStateEvent>();
  private readonly wakeEmitter = new Emitter<AgentWakeEvent>();
  private readonly heldEmitter = new Emitter<AgentHeldEvent>();
  readonly onStateChange: Event<AgentStateEvent> = this.stateEmitter.event;
  readonly onWakeResult: Event<AgentWakeEvent> = this.wakeEmitter.event;
  readonly onWakeHeld: Event<AgentHeldEvent> = this.heldEmitter.event;

  private readonly lifetime = new DisposableStore();
  private incarnation: DisposableStore | null = null;
  private agentValue!: RowAgent;
  private snapshotTimer: Disposable | null = null;
  private policyValue: WakePolicy;
  private disposed = false;

  constructor(private readonly o: AgentRowBindingOptions) {
    this.policyValue = o.policy;
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

  get warning(): string | undefined {
    return this.o.warning;
  }

  /** The current incarnation's agent. */
  get agent(): RowAgent {
    return this.agentValue;
  }

  get policy(): WakePolicy {
    return this.policyValue;
  }

  setPolicy(policy: WakePolicy): void {
    this.policyValue = policy;
    this.agentValue.setPolicy(policy);
  }

  operatorTyped(): void {
    this.agentValue.operatorTyped();
  }

  get profileInterruptKey(): string {
    return this.o.profile.interruptKey;
  }

  /** The operator asked to cancel the agent's turn: its profile's interrupt key, audited before it is written. */
  interrupt(): string {
    const key = this.o.profile.interruptKey;
    this.o.audit({ at: this.o.clock.now(), row: this.o.row.name, bytes: key, purpose: 'interrupt', messageIds: [], attempt: 1 });
    this.o.row.write(key);
    this.agentValue.interrupted();
    return key;
  }

  toldByHook(maxSeq: number): void {
    this.agentValue.toldByHook(maxSeq);
  }

  hookGaveUp(): void {
    this.agentValue.hookGaveUp();
  }

  setUnread(mail: UnreadMail): void {
    this.agentValue.setUnread(mail);
  }

  /** Feeds the newest screen now (explain uses it so a pending snapshot is not missed). */
  flushScreen(): void {
    if (this.snapshotTimer === null) return;
    this.snapshotTimer.dispose();
    this.snapshotTimer = null;
    this.feed();
  }

  private start(): void {
    if (this.disposed) return;
    this.incarnation?.dispose();
    this.snapshotTimer?.dispose();
    this.snapshotTimer = null;
    const store = new DisposableStore();
    this.incarnation = store;
    const { row, profile, clock } = this.o;
    const agent = store.add(
      new RowAgent({
        row: row.name,
        profile,
        clock,
        policy: this.policyValue,
        typeIntoRow: (bytes) => row.write(bytes),
        ...(row.foregroundJob ? { foregroundJob: () => row.foregroundJob!() } : {}),
        audit: (entry) => this.o.audit(entry),
        recordWakeEvent: (ids, outcome) => {
          if (outcome === 'woken') this.o.recordWake(ids);
        },
        ...(this.o.warning !== undefined ? { warning: this.o.warning } : {}),
        ...(this.o.debounceMs !== undefined ? { debounceMs: this.o.debounceMs } : {}),
        ...(this.o.wake !== undefined ? { wake: this.o.wake } : {}),
      }),
    );
    this.agentValue = agent;
    store.add(agent.tracker.onStateChange((c) => this.stateEmitter.fire({ row: row.name, state: c.to, rule: c.ruleId })));
    store.add(agent.wake.onWoken((e) => this.wakeEmitter.fire({ row: row.name, ok: true, messageIds: e.messageIds, reason: '' })));
    store.add(agent.wake.onWakeFailed((e) => this.wakeEmitter.fire({ row: row.name, ok: false, messageIds: e.messageIds, reason: e.reason })));
    store.add(
      agent.wake.onNotifyOnly((e) =>
        this.heldEmitter.fire({ row: row.name, messageIds: e.messageIds, reason: e.reason, detail: e.reason === 'loop-guard' ? agent.wake.reason : `wake policy ${this.policyValue}` }),
      ),
    );
    this.stateEmitter.fire({ row: row.name, state: agent.state, rule: null });
    this.feed();
    agent.setUnread(this.o.unread());
  }

  private screenChanged(): void {
    if (this.disposed || this.snapshotTimer !== null) return;
    this.snapshotTimer = this.o.clock.setTimer(() => {
      this.snapshotTimer = null;
      this.feed();
    }, this.o.snapshotEveryMs ?? DEFAULT_SNAPSHOT_EVERY_MS);
  }

  private feed(): void {
    if (this.disposed || this.o.row.state === 'exited') return;
    this.agentValue.onScreenChange(this.o.row.screen.snapshot());
  }

  private exited(code: number | null): void {
    this.snapshotTimer?.dispose();
    this.snapshotTimer = null;
    this.agentValue.onExit(code);
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.snapshotTimer?.dispose();
    this.snapshotTimer = null;
    this.incarnation?.dispose();
    this.lifetime.dispose();
    this.stateEmitter.dispose();
    this.wakeEmitter.dispose();
    this.heldEmitter.dispose();
  }
}
