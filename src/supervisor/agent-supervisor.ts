// The agent side of the whole dashboard: one AgentRowBinding per row that has a profile, fed by the
// rows themselves and told about unread mail by the hub; operator keystrokes and attach/detach go to
// the right row; wake policies change live; every row's state can be explained (the `e` view and
// `swb explain`). Knows nothing of the UI: the controller turns its typed events into app state.
import { systemClock, type Clock } from '../util/clock.js';
import { formatExplanation } from '../agents/format-explanation.js';
import { resolveProfile, type ProfileSet } from '../agents/load-profiles.js';
import type { RowAgentOptions } from '../agents/row-agent.js';
import type { WakePolicy } from '../agents/wake-controller.js';
import { swbError, type SwbErrorValue } from '../protocol/error-codes.js';
import type { RowExplainResult } from '../protocol/methods.js';
import { sanitize } from '../text/sanitize.js';
import { Emitter, type Event } from '../util/event.js';
import { DisposableStore, type Disposable } from '../util/lifecycle.js';
import type { AgentAuditTrail } from './agent-audit-trail.js';
import type { AgentMailPort } from './agent-hub-mail.js';
import { AgentRowBinding, type AgentHeldEvent, type AgentRow, type AgentStateEvent, type AgentWakeEvent } from './agent-row-binding.js';
import { defaultWakePolicy } from './agent-wake-policy.js';

export interface AgentNotice {
  kind: 'error' | 'info';
  text: string;
  row: string;
}

export interface AgentSupervisorOptions {
  profiles: ProfileSet;
  mail: AgentMailPort;
  audit: AgentAuditTrail;
  clock?: Clock;
  snapshotEveryMs?: number;
  debounceMs?: number;
  wake?: RowAgentOptions['wake'];
}

export interface TrackOptions {
  /** The row's profile id; a row without one gets no agent (its state is not detected). */
  profile?: string;
  /** The configured wake policy (config `rows[].wake`). */
  wake?: WakePolicy;
}

const line = (s: string, max = 200) => sanitize(s, { singleLine: true, maxChars: max });

export class AgentSupervisor implements Disposable {
  private readonly stateEmitter = new Emitter<AgentStateEvent>();
  private readonly wakeEmitter = new Emitter<AgentWakeEvent>();
  private readonly noticeEmitter = new Emitter<AgentNotice>();
  readonly onStateChange: Event<AgentStateEvent> = this.stateEmitter.event;
  readonly onWakeResult: Event<AgentWakeEvent> = this.wakeEmitter.event;
  readonly onNotice: Event<AgentNotice> = this.noticeEmitter.event;

  private readonly bindings = new Map<string, { binding: AgentRowBinding; store: DisposableStore }>();
  private readonly lifetime = new DisposableStore();
  private readonly clock: Clock;
  private readonly unreadDirty = new Set<string>();
  private unreadQueued = false;
  private disposed = false;

  constructor(private readonly o: AgentSupervisorOptions) {
    this.clock = o.clock ?? systemClock;
    this.lifetime.add(o.mail.onUnreadMaybeChanged((handles) => this.unreadChanged(handles)));
    if (o.mail.onToldByHook) this.lifetime.add(o.mail.onToldByHook((t) => this.bindings.get(t.handle)?.binding.toldByHook(t.maxSeq)));
    if (o.mail.onHookGaveUp) this.lifetime.add(o.mail.onHookGaveUp((h) => this.bindings.get(h)?.binding.hookGaveUp()));
  }

  /** Starts watching a row; returns its wake policy, or null when the row has no profile. */
  track(row: AgentRow, opts: TrackOptions): { policy: WakePolicy } | null {
    if (this.disposed || opts.profile === undefined) return null;
    this.untrack(row.name);
    const resolved = resolveProfile(this.o.profiles, opts.profile);
    const known = resolved.warning === undefined;
    const policy = defaultWakePolicy(resolved.profile.id, { known, ...(opts.wake ? { configured: opts.wake } : {}) });
    const store = new DisposableStore();
    const binding = store.add(
      new AgentRowBinding({
        row,
        profile: resolved.profile,
        ...(resolved.warning !== undefined ? { warning: resolved.warning } : {}),
        policy,
        clock: this.clock,
        ...(this.o.snapshotEveryMs !== undefined ? { snapshotEveryMs: this.o.snapshotEveryMs } : {}),
        ...(this.o.debounceMs !== undefined ? { debounceMs: this.o.debounceMs } : {}),
        ...(this.o.wake !== undefined ? { wake: this.o.wake } : {}),
        audit: (entry) => this.o.audit.append(entry),
        recordWake: (ids) => this.o.mail.recordWake(row.name, ids),
        unread: () => this.o.mail.unreadOf(row.name),
      }),
    );
    store.add(binding.onStateChange((e) => this.stateEmitter.fire(e)));
    store.add(binding.onWakeResult((e) => this.wakeEmitter.fire(e)));
    store.add(binding.onWakeHeld((e) => this.held(e)));
    this.bindings.set(row.name, { binding, store });
    if (resolved.warning) this.noticeEmitter.fire({ kind: 'error', text: line(`${row.name}: ${resolved.warning}`, 300), row: row.name });
    return { policy };
  }

  untrack(name: string): void {
    const entry = this.bindings.get(name);
    if (!entry) return;
    this.bindings.delete(name);
    entry.store.dispose();
  }

  has(name: string): boolean {
    return this.bindings.has(name);
  }

  /**
   * Cancels a busy agent's turn with its profile's interrupt key (audited), then waits up to
   * `waitMs` for it to leave busy. Undefined when the row has no agent.
   */
  async interrupt(name: string, waitMs = 5000): Promise<{ key: string; sent: boolean; before: string; after: string; leftBusy: boolean } | undefined> {
    const b = this.bindings.get(name)?.binding;
    if (!b) return undefined;
    const before = b.agent.state;
    // Only a busy agent has a turn to cancel: in a free prompt the key would edit or clear a draft.
    if (before !== 'busy') return { key: b.profileInterruptKey, sent: false, before, after: before, leftBusy: false };
    const key = b.interrupt();
    const deadline = this.clock.now() + waitMs;
    while (this.bindings.get(name)?.binding === b && b.agent.state === 'busy' && this.clock.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
    }
    const after = b.agent.state;
    return { key, sent: true, before, after, leftBusy: after !== 'busy' };
  }

  /** The operator typed into this row (attached): wakes hold off for the typing quiet time since their last key. */
  operatorTyped(name: string): void {
    this.bindings.get(name)?.binding.operatorTyped();
  }

  /** The row's current state and the rule behind it, or undefined when it has no agent. */
  stateOf(name: string): { state: AgentStateEvent['state']; rule: string | null } | undefined {
    const b = this.bindings.get(name)?.binding;
    if (!b) return undefined;
    return { state: b.agent.state, rule: b.agent.tracker.detection?.ruleId ?? null };
  }

  policyOf(name: string): WakePolicy | undefined {
    return this.bindings.get(name)?.binding.policy;
  }

  /** Sets the row's wake policy (the operator picked it); undefined when the row has no agent. */
  setPolicy(name: string, policy: WakePolicy): WakePolicy | undefined {
    const b = this.bindings.get(name)?.binding;
    if (!b) return undefined;
    b.setPolicy(policy);
    return policy;
  }

  /** What `swb explain ROW` and the `e` view show; an error value when there is nothing to explain. */
  explain(name: string, verbose = false): { ok: RowExplainResult } | { error: SwbErrorValue } {
    const b = this.bindings.get(name)?.binding;
    if (!b) {
      const rows = [...this.bindings.keys()].sort();
      return {
        error: swbError(
          'NOT_FOUND',
          `No row ${name} with an agent profile runs in this dashboard${rows.length > 0 ? ` (rows with one: ${rows.join(', ')})` : ''}.`,
        ),
      };
    }
    b.flushScreen();
    const { state, prompt, wake } = b.agent.explainRow();
    const text = sanitize(formatExplanation(state, { prompt, wake, verbose }), { maxChars: 16_000, maxLines: 200 });
    const result: RowExplainResult = {
      row: state.row,
      profile: state.profileId,
      state: state.state,
      detected: state.detected,
      rule: state.ruleId,
      region: line(state.region),
      evidence: line(state.evidence, 400),
      quietMs: state.quietMs,
      stillForMs: state.stillForMs,
      idlePending: state.idlePending,
      exitCode: state.exitCode,
      warning: state.warning === null ? null : line(state.warning, 400),
      prompt: prompt.free ? { free: true, reason: 'free', detail: '' } : { free: false, reason: prompt.reason, detail: line(prompt.detail) },
      wake: { policy: wake.policy, phase: wake.phase, reason: line(wake.reason) },
      ...(verbose
        ? {
            tried: state.tried.map((t) => ({
              rule: t.ruleId,
              state: t.state,
              priority: t.priority,
              matched: t.matched,
              region: line(t.region),
              evidence: line(t.evidence, 400),
            })),
          }
        : {}),
      text,
    };
    return { ok: result };
  }

  /** The explain view's text for a row (sanitized lines). */
  explainText(name: string): string {
    const r = this.explain(name, true);
    return 'ok' in r ? r.ok.text : r.error.message;
  }

  /** The newest `n` audit entries, oldest first, sanitized. */
  auditLines(n: number): string[] {
    return this.o.audit.lines(n);
  }

  private held(e: AgentHeldEvent): void {
    if (e.reason !== 'loop-guard') return; // policy notify/off: the mail notification already says it all
    this.noticeEmitter.fire({ kind: 'error', text: line(`wake for @${e.row} held back (${e.detail}); the mail stays unread`, 300), row: e.row });
  }

  /** New mail or a moved receipt: re-read those rows' unread sets once, after the current burst. */
  private unreadChanged(handles: readonly string[]): void {
    for (const h of handles) if (this.bindings.has(h)) this.unreadDirty.add(h);
    if (this.unreadDirty.size === 0 || this.unreadQueued) return;
    this.unreadQueued = true;
    queueMicrotask(() => {
      this.unreadQueued = false;
      const names = [...this.unreadDirty];
      this.unreadDirty.clear();
      for (const name of names) {
        if (this.disposed) return;
        this.bindings.get(name)?.binding.setUnread(this.o.mail.unreadOf(name));
      }
    });
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const { store } of this.bindings.values()) store.dispose();
    this.bindings.clear();
    this.lifetime.dispose();
    this.stateEmitter.dispose();
    this.wakeEmitter.dispose();
    this.noticeEmitter.dispose();
  }
}
