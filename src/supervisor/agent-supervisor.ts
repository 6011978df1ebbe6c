// The agent side of the whole server: one RowAgent per row that has a profile, handed out to whoever
// follows that row (`agentOf`, `onAgent`) rather than re-firing each agent's events; the hub's news
// of unread mail and of the agents' own hooks reaches the right row's agent; every row's state can be
// explained (the `e` view and `swb explain`) and an agent's turn interrupted. Knows nothing of the UI.
import { systemClock, type Clock } from '../util/clock.js';
import { formatExplanation } from '../agents/format-explanation.js';
import { resolveProfile, type ProfileSet } from '../agents/load-profiles.js';
import type { WakePolicy } from '../agents/wake-controller.js';
import { swbError, type SwbErrorValue } from '../protocol/error-codes.js';
import type { RowExplainResult } from '../protocol/methods.js';
import { sanitize } from '../text/sanitize.js';
import { DisposableMap } from '../util/disposable-map.js';
import { Emitter, type Event } from '../util/event.js';
import { DisposableStore, type Disposable } from '../util/lifecycle.js';
import type { AgentAuditTrail } from './agent-audit-trail.js';
import type { AgentMailPort } from './agent-hub-mail.js';
import { defaultWakePolicy } from './agent-wake-policy.js';
import { RowAgent, type AgentNotice, type AgentRow, type AgentStateEvent, type WakeTimings } from './row-agent.js';

export interface AgentSupervisorOptions {
  profiles: ProfileSet;
  mail: AgentMailPort;
  audit: AgentAuditTrail;
  clock?: Clock;
  /** Screen changes closer together than this share one snapshot and one detection (default 80 ms). */
  snapshotEveryMs?: number;
  wake?: WakeTimings;
}

export interface TrackOptions {
  /** The row's profile id; a row without one gets no agent (its state is not detected). */
  profile?: string;
  /** The configured wake policy (config `rows[].wake`). */
  wake?: WakePolicy;
}

const line = (s: string, max = 200) => sanitize(s, { singleLine: true, maxChars: max });

export class AgentSupervisor implements Disposable {
  private readonly agentEmitter = new Emitter<RowAgent>();
  private readonly noticeEmitter = new Emitter<AgentNotice>();
  /**
   * A row got its agent (tracked). Its events are the agent's own, and go with it: a listener on
   * them needs no removing when the row is untracked.
   */
  readonly onAgent: Event<RowAgent> = this.agentEmitter.event;
  /** A row's profile is unknown (said once, when the row is tracked). */
  readonly onNotice: Event<AgentNotice> = this.noticeEmitter.event;
  /** A row's agent left (untracked, replaced, or the supervisor stopped): an interrupt waiting on it stops waiting. */
  private readonly agentLeft = new Emitter<RowAgent>();

  private readonly agents = new DisposableMap<string, RowAgent>();
  private readonly lifetime = new DisposableStore();
  private readonly clock: Clock;
  private readonly unreadDirty = new Set<string>();
  private unreadQueued = false;
  private disposed = false;

  constructor(private readonly o: AgentSupervisorOptions) {
    this.clock = o.clock ?? systemClock;
    this.lifetime.add(o.mail.onUnreadMaybeChanged((handles) => this.unreadChanged(handles)));
    if (o.mail.onToldByHook) this.lifetime.add(o.mail.onToldByHook((t) => this.agents.get(t.handle)?.toldByHook(t.maxSeq)));
    if (o.mail.onHookGaveUp) this.lifetime.add(o.mail.onHookGaveUp((h) => this.agents.get(h)?.hookGaveUp()));
    if (o.mail.onHookReport) this.lifetime.add(o.mail.onHookReport((r) => this.agents.get(r.handle)?.hookReported(r.report)));
  }

  /** Starts watching a row; returns its wake policy, or null when the row has no profile. */
  track(row: AgentRow, opts: TrackOptions): { policy: WakePolicy } | null {
    if (this.disposed || opts.profile === undefined) return null;
    this.untrack(row.name);
    const resolved = resolveProfile(this.o.profiles, opts.profile);
    const known = resolved.warning === undefined;
    const policy = defaultWakePolicy(resolved.profile.id, { known, ...(opts.wake ? { configured: opts.wake } : {}) });
    const agent = this.agents.set(
      row.name,
      new RowAgent({
        row,
        profile: resolved.profile,
        ...(resolved.warning !== undefined ? { warning: resolved.warning } : {}),
        policy,
        clock: this.clock,
        ...(this.o.snapshotEveryMs !== undefined ? { snapshotEveryMs: this.o.snapshotEveryMs } : {}),
        ...(this.o.wake !== undefined ? { wake: this.o.wake } : {}),
        audit: (entry) => this.o.audit.append(entry),
        recordWakeEvent: (ids, outcome) => {
          if (outcome === 'woken') this.o.mail.recordWake(row.name, ids);
        },
        unread: () => this.o.mail.unreadOf(row.name),
      }),
    );
    this.agentEmitter.fire(agent);
    if (resolved.warning) this.noticeEmitter.fire({ kind: 'error', text: line(`${row.name}: ${resolved.warning}`, 300), row: row.name });
    return { policy };
  }

  untrack(name: string): void {
    const agent = this.agents.get(name);
    if (!agent) return;
    this.agents.delete(name);
    this.agentLeft.fire(agent);
  }

  /** The row's agent (undefined: the row has no profile, or is not tracked). */
  agentOf(name: string): RowAgent | undefined {
    return this.agents.get(name);
  }

  has(name: string): boolean {
    return this.agents.has(name);
  }

  /**
   * Cancels a busy agent's turn with its profile's interrupt key (audited), then waits up to
   * `waitMs` for it to leave busy. Undefined when the row has no agent.
   */
  async interrupt(name: string, waitMs = 5000): Promise<{ key: string; sent: boolean; before: string; after: string; leftBusy: boolean } | undefined> {
    const agent = this.agents.get(name);
    if (!agent) return undefined;
    const before = agent.state;
    // Only a busy agent has a turn to cancel: in a free prompt the key would edit or clear a draft.
    if (before !== 'busy') return { key: agent.profile.interruptKey, sent: false, before, after: before, leftBusy: false };
    const key = agent.interrupt();
    await this.leftBusy(name, agent, waitMs);
    const after = agent.state;
    return { key, sent: true, before, after, leftBusy: after !== 'busy' };
  }

  /** Resolves once row `name`'s `agent` is no longer busy, has left, or `waitMs` passed, whichever comes first. */
  private leftBusy(name: string, agent: RowAgent, waitMs: number): Promise<void> {
    return new Promise((resolve) => {
      const waiting = new DisposableStore();
      const done = (): void => {
        waiting.dispose();
        resolve();
      };
      waiting.add(agent.onStateChange((e) => e.state !== 'busy' && done()));
      waiting.add(this.agentLeft.event((left) => left === agent && done()));
      waiting.add(this.clock.setTimer(done, waitMs));
      // (The key may already have ended the turn, synchronously.)
      if (agent.state !== 'busy' || this.agents.get(name) !== agent) done();
    });
  }

  /** The row's current state, the rule behind it and why it waits, or undefined when it has no agent. */
  stateOf(name: string): { state: AgentStateEvent['state']; rule: string | null; reason: AgentStateEvent['reason'] } | undefined {
    const agent = this.agents.get(name);
    return agent && { state: agent.state, rule: agent.rule, reason: agent.waitingReason };
  }

  policyOf(name: string): WakePolicy | undefined {
    return this.agents.get(name)?.policy;
  }

  /** Sets the row's wake policy (the operator picked it); undefined when the row has no agent. */
  setPolicy(name: string, policy: WakePolicy): WakePolicy | undefined {
    const agent = this.agents.get(name);
    if (!agent) return undefined;
    agent.setPolicy(policy);
    return policy;
  }

  /** What `swb explain ROW` and the `e` view show; an error value when there is nothing to explain. */
  explain(name: string, verbose = false): { ok: RowExplainResult } | { error: SwbErrorValue } {
    const agent = this.agents.get(name);
    if (!agent) {
      const rows = [...this.agents.keys()].sort();
      return {
        error: swbError(
          'NOT_FOUND',
          `No row ${name} with an agent profile runs in this dashboard${rows.length > 0 ? ` (rows with one: ${rows.join(', ')})` : ''}.`,
        ),
      };
    }
    const { state, prompt, wake, fusion } = agent.explainRow();
    const text = sanitize(formatExplanation(state, { prompt, wake, fusion, verbose }), { maxChars: 16_000, maxLines: 200 });
    const v = fusion.verdict;
    const result: RowExplainResult = {
      row: state.row,
      profile: state.profileId,
      state: v.state,
      reason: v.reason,
      signals: {
        won: v.won,
        rule: v.rule,
        why: line(v.why, 400),
        screen: fusion.screen,
        hook: fusion.hook && { ...fusion.hook, event: line(fusion.hook.event) },
      },
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

  /** New mail or a moved receipt: re-read those rows' unread sets once, after the current burst. */
  private unreadChanged(handles: readonly string[]): void {
    for (const h of handles) if (this.agents.has(h)) this.unreadDirty.add(h);
    if (this.unreadDirty.size === 0 || this.unreadQueued) return;
    this.unreadQueued = true;
    queueMicrotask(() => {
      this.unreadQueued = false;
      const names = [...this.unreadDirty];
      this.unreadDirty.clear();
      for (const name of names) {
        if (this.disposed) return;
        this.agents.get(name)?.setUnread(this.o.mail.unreadOf(name));
      }
    });
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const agent of [...this.agents.values()]) this.agentLeft.fire(agent);
    this.agents.dispose();
    this.agentLeft.dispose();
    this.lifetime.dispose();
    this.agentEmitter.dispose();
    this.noticeEmitter.dispose();
  }
}
