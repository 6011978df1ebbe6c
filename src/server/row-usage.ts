// Usage tracking in the server (issue #38): one RowUsageTracker per agent row whose profile writes a
// transcript swb can read, following exactly the conversation swb minted or discovered the session id
// of (row-records.ts). A tracker looks when the row's agent goes idle and after a relaunch (a relaunch
// that changed the conversation gets a tracker for the new file; the row's totals persist by name).
// Until a row's conversation file exists (an agent writes it with its first turn, in a folder named
// after its working directory that nobody can watch before it exists) one watch per such row sits on the
// deepest folder of its path that exists and moves deeper as folders appear (transcript-seeker.ts);
// it is released when the file is found, the row exits or goes away. A session id discovered after the
// launch (Codex: read from its open files) brings a look at once.
// The same reading is the agent's news of an Esc that no hook reports (Claude Code's interrupt line):
// while a row's agent is inside a turn its conversation is read as it grows (duringTurn), and each
// interrupt line read goes to that row's agent (transcriptInterrupted), the fusion's third voice.
// Each committed change is told once, here: to `swb events` (kind "usage"), to the dashboards (onUsage,
// through the desk and each client's row mirror) and to the budgets. `report` answers `swb usage`.
import type { ProfileSet } from '../agents/load-profiles.js';
import { resolveProfile } from '../agents/load-profiles.js';
import { expandTranscriptPath, transcriptFiles } from '../agents/session-transcript.js';
import type { SwbEvent } from '../hub/event-stream.js';
import type { Row } from '../rows/row.js';
import type { AgentSupervisor } from '../supervisor/agent-supervisor.js';
import type { RowFleet } from '../supervisor/row-fleet.js';
import { DisposableMap } from '../util/disposable-map.js';
import { Emitter, type Event } from '../util/event.js';
import { type Disposable, DisposableStore } from '../util/lifecycle.js';
import { loadPriceFiles, mergePrices, pricesAtFirstUse, type Prices } from '../usage/price-table.js';
import type { LaunchPlan } from '../app/launch-plan.js';
import type { ServerCore } from './server-core.js';
import type { RowRecords } from './row-records.js';
import { RowUsageTracker } from '../usage/row-usage-tracker.js';
import { TranscriptSeeker } from '../usage/transcript-seeker.js';
import type { RowUsageView } from '../usage/row-usage-view.js';
import type { BudgetMemory, Budgets } from '../usage/usage-budget.js';
import { BudgetMemoryStore } from '../usage/budget-memory-store.js';
import type { UsageLedger } from '../usage/usage-ledger.js';
import { usageFormatOf } from '../usage/usage-formats.js';
import { type UsageGrouping, type UsageReport, usageReport } from '../usage/usage-report.js';
import { UsageBudgets } from './usage-budgets.js';

export interface RowUsageBoardOptions {
  fleet: RowFleet;
  agents: AgentSupervisor;
  profiles: ProfileSet;
  ledger: UsageLedger;
  prices: Prices;
  budgets?: Budgets;
  /** Where the budgets' levels and stopped rows outlive the server. */
  budgetMemory?: BudgetMemory;
  /** The row's current conversation (row-records.ts), or null while its session id is not known. */
  conversationOf(name: string): { template: string; sessionId: string; env: Readonly<Record<string, string | undefined>> } | null;
  /** A row's session id was discovered after its launch (Codex): its conversation can be located now. */
  onSessionDiscovered?: Event<string>;
  /** To `swb events` subscribers. */
  publish(event: SwbEvent): void;
  auditLogPath: string;
  log(line: string): void;
}

export interface UsageNote {
  kind: 'info' | 'error';
  text: string;
  row: string | null;
}

export class RowUsageBoard implements Disposable {
  private readonly lifetime = new DisposableStore();
  private readonly trackers = this.lifetime.add(new DisposableMap<string, RowUsageTracker>());
  private readonly perRow = this.lifetime.add(new DisposableMap<string, DisposableStore>());
  /** The file each tracker follows as its conversation (a relaunch into another conversation replaces the tracker). */
  private readonly followed = new Map<string, string | null>();
  private readonly usageEmitter = this.lifetime.add(new Emitter<{ row: string; usage: RowUsageView }>());
  private readonly noteEmitter = this.lifetime.add(new Emitter<UsageNote>());
  /** A row's usage or budget mark changed (once per committed change). */
  readonly onUsage: Event<{ row: string; usage: RowUsageView }> = this.usageEmitter.event;
  /** Budget warnings and actions, for the dashboards' notes. */
  readonly onNote: Event<UsageNote> = this.noteEmitter.event;
  private readonly budgets: UsageBudgets | null;
  /** Running rows whose conversation file is not found yet: a watch each, looking when it sees the file. */
  private readonly seekers = this.lifetime.add(new DisposableMap<string, TranscriptSeeker>());
  private readonly lookPending = new Set<string>();
  private disposed = false;

  constructor(private readonly o: RowUsageBoardOptions) {
    const { fleet } = o;
    const b = o.budgets ? new UsageBudgets({ budgets: o.budgets, ledger: o.ledger, prices: o.prices, fleet, auditLogPath: o.auditLogPath, ...(o.budgetMemory ? { memory: o.budgetMemory } : {}), note: (kind, text, row) => this.noteEmitter.fire({ kind, text, row }) }) : null;
    this.budgets = b?.active ? b : null;
    this.lifetime.add(fleet.onAdded((row) => this.start(row)));
    this.lifetime.add(
      fleet.onRemoved(({ row }) => {
        this.perRow.delete(row.name);
        this.trackers.delete(row.name);
        this.followed.delete(row.name);
        this.seekers.delete(row.name);
        this.budgets?.forget(row.name);
      }),
    );
    // The row went quiet: its agent has written the turn; look now rather than wait for the watch.
    // Inside a turn its conversation is read as it grows: an Esc is written there first.
    this.lifetime.add(
      o.agents.onAgent((agent) =>
        agent.onStateChange((e) => {
          this.trackers.get(e.row)?.duringTurn(e.state === 'busy' || e.state === 'waiting');
          if (e.state === 'idle') this.lookSoon(e.row);
        }),
      ),
    );
    if (o.onSessionDiscovered) this.lifetime.add(o.onSessionDiscovered((name) => this.lookSoon(name)));
    for (const row of fleet.list()) this.start(row);
  }

  /** The row's usage now, or null when it is not tracked (no agent, or one whose files swb cannot read). */
  usageOf(name: string): RowUsageView | null {
    const t = this.trackers.get(name);
    return t ? { ...t.snapshot(), budget: this.budgets?.markOf(name) ?? null } : null;
  }

  /** `swb usage`: the ledger's history (rows that no longer run included), grouped and priced. */
  report(q: { by: UsageGrouping; since?: string; row?: string; maxGroups?: number }): UsageReport {
    const agentOf = (row: string) => this.o.fleet.get(row)?.spec.profile ?? this.o.fleet.closed().find((c) => c.spec.name === row)?.spec.profile ?? null;
    const records = this.o.ledger.totals({ ...(q.since !== undefined ? { since: q.since } : {}), ...(q.row !== undefined ? { row: q.row } : {}) });
    return usageReport(records, this.o.prices, { by: q.by, since: q.since ?? null, agentOf, ...(q.maxGroups !== undefined ? { maxGroups: q.maxGroups } : {}) });
  }

  /** Looks at the row's files now (its agent went idle, or it was relaunched). */
  look(name: string): void {
    const conversation = this.locate(name);
    // A new conversation (a fresh relaunch, or the id found late by another name): a tracker for it.
    if (conversation !== null && this.followed.get(name) !== undefined && this.followed.get(name) !== null && this.followed.get(name) !== conversation) {
      const row = this.o.fleet.get(name);
      if (row) this.track(row);
    }
    this.trackers.get(name)?.look();
    this.seekIfMissing(name);
  }

  /**
   * A running row whose file is still missing gets (or re-arms) its watch; a found file or an exited row
   * releases it (a relaunch looks again, onRestart).
   */
  private seekIfMissing(name: string): void {
    const missing = this.trackers.has(name) && this.followed.get(name) === null && this.o.fleet.get(name)?.state === 'running';
    if (!missing) {
      this.seekers.delete(name);
      return;
    }
    const existing = this.seekers.get(name);
    if (existing) return existing.arm();
    const path = this.expectedPath(name);
    if (path === null) return;
    const seeker = this.seekers.set(name, new TranscriptSeeker(path, () => this.lookSoon(name)));
    this.o.log(`row ${name}: its conversation file is not there yet (${path}); ${seeker.watching ? `watching ${seeker.watchedFolder}` : 'no folder of its path to watch'}`);
  }

  private start(row: Row): void {
    if (!this.formatOf(row)) return;
    const d = this.perRow.set(row.name, new DisposableStore());
    d.add(row.onRestart(() => this.lookSoon(row.name)));
    this.track(row);
    this.lookSoon(row.name);
  }

  /**
   * A look on the next turn of the loop, not inside the event that asked: rows start inside a launch
   * batch (one store transaction for their records), and a look's commit may not run in it.
   */
  private lookSoon(name: string): void {
    const scheduled = this.lookPending.size > 0;
    this.lookPending.add(name);
    if (scheduled) return;
    setImmediate(() => {
      const names = [...this.lookPending];
      this.lookPending.clear();
      if (!this.disposed) for (const n of names) this.look(n);
    });
  }

  private formatOf(row: Row) {
    const id = row.spec.profile;
    return id === undefined ? null : usageFormatOf(resolveProfile(this.o.profiles, id).profile.id);
  }

  private track(row: Row): void {
    const format = this.formatOf(row);
    if (!format) return;
    const name = row.name;
    this.followed.set(name, null);
    const tracker = this.trackers.set(
      name,
      new RowUsageTracker({
        row: name,
        format,
        ledger: this.o.ledger,
        prices: this.o.prices,
        locate: () => {
          const found = this.locate(name);
          if (found !== null) {
            this.followed.set(name, found);
            this.o.log(`row ${name}: usage from ${found}`);
          }
          return found;
        },
      }),
    );
    tracker.onChange(() => this.changed(name));
    tracker.onInterrupt((i) => this.o.agents.agentOf(name)?.transcriptInterrupted(i.at));
    const agent = this.o.agents.agentOf(name);
    if (agent) tracker.duringTurn(agent.state === 'busy' || agent.state === 'waiting');
  }

  /** The conversation file of the row's current session (a `.jsonl` preferred), or null. */
  private locate(name: string): string | null {
    const path = this.expectedPath(name);
    if (path === null) return null;
    const files = transcriptFiles(path);
    return files.find((f) => f.endsWith('.jsonl')) ?? files[0] ?? null;
  }

  /** The row's conversation file as a path with `*` segments, or null while its session id is not known. */
  private expectedPath(name: string): string | null {
    const c = this.o.conversationOf(name);
    return c ? expandTranscriptPath(c.template, c.sessionId, c.env, c.env.HOME) : null;
  }

  /** One committed change: the budgets first (their mark is part of the view), then one event per row. */
  private changed(name: string): void {
    const rows = this.budgets ? this.budgets.check(name) : [];
    if (!rows.includes(name)) rows.unshift(name);
    for (const row of rows) {
      const usage = this.usageOf(row);
      if (!usage) continue;
      this.usageEmitter.fire({ row, usage });
      this.o.publish({ kind: 'usage', at: Date.now(), row, usage: usageEvent(usage) });
    }
  }

  dispose(): void {
    this.disposed = true;
    this.lifetime.dispose();
  }
}

/** The event's fields: the view without its row (the event names it). */
function usageEvent(u: RowUsageView): Omit<RowUsageView, 'row'> {
  const { row: _row, ...rest } = u;
  return rest;
}


/**
 * The server's board: prices from the shipped files with the config's overrides (a bad override is
 * logged and the shipped prices used), made at the first lookup (pricesAtFirstUse), the config's
 * budgets, the core's ledger and events, and the records' conversations.
 */
export function startRowUsage(core: ServerCore, plan: LaunchPlan, records: RowRecords, log: (line: string) => void): RowUsageBoard {
  const prices = pricesAtFirstUse(() => {
    try {
      return mergePrices(loadPriceFiles(), plan.usage?.prices);
    } catch (err) {
      log(`usage: the config's prices are not used: ${(err as Error).message}`);
      return mergePrices(loadPriceFiles());
    }
  });
  return new RowUsageBoard({
    fleet: core.fleet,
    agents: core.agents,
    profiles: plan.profiles,
    ledger: core.usageLedger,
    prices,
    ...(plan.usage?.budgets ? { budgets: plan.usage.budgets, budgetMemory: new BudgetMemoryStore(core.usageLedger.db) } : {}),
    conversationOf: (name) => records.conversationOf(name),
    onSessionDiscovered: records.onSessionDiscovered,
    publish: (event) => core.publish(event),
    auditLogPath: core.auditLogPath,
    log,
  });
}
