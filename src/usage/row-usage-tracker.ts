// One row's usage: follows the row's own conversation file (the file swb found or minted the session
// for, never a guess by folder) and, for Claude Code, its subagents' files beside it, commits what each
// slice of reading found to the ledger, and keeps the row's totals, context fill and plan windows for
// whoever shows them. The server (phase 2) makes one per agent row, calls `look()` when the row goes
// quiet, and listens to `onChange`, which fires once per committed change.
// Costs are computed when asked from the totals and the current price table, so a price changed in the
// config applies to the whole history; only the split of tokens at a model's long-prompt threshold is
// decided when a turn is counted (it depends on that response's prompt).
// The same reading tells the row's agent when the operator stopped a turn (`onInterrupt`, from the
// conversation's own file only, never a subagent's): during a turn (`duringTurn`) that file is read as
// it grows, a few tens of ms after each write, so the Esc is known well before the screen's quiet time.
import { existsSync, readdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { Emitter, type Event } from '../util/event.js';
import type { Disposable } from '../util/lifecycle.js';
import { costOf, isLongPrompt, type Prices } from './price-table.js';
import { addTokens, type TokenCounts, zeroTokens } from './token-counts.js';
import { type FollowBatch, TranscriptFollower } from './transcript-follower.js';
import { emptyTotal, type UsageLatest, type UsageLedger, type UsageTotalRecord } from './usage-ledger.js';
import { parserFor, type UsageFormat } from './usage-formats.js';
import type { TurnInterrupt } from './usage-turn.js';

export interface ModelUsage {
  model: string | null;
  turns: number;
  tokens: TokenCounts;
  /** List price in dollars; null when the price table does not know the model. */
  cost: number | null;
}

export interface RowUsage {
  row: string;
  turns: number;
  tokens: TokenCounts;
  /** Dollars at list price of the models with a price; see `unpriced`. */
  cost: number;
  /** Models used that have no price (their tokens are in `tokens`, not in `cost`). */
  unpriced: string[];
  byModel: ModelUsage[];
  /** The last response's prompt against its model's window (null: no turn yet, or no window known). */
  context: { tokens: number; window: number | null; fraction: number | null } | null;
  limits: UsageLatest['limits'];
  /** When the newest turn or limits were recorded (ms), or null. */
  at: number | null;
}

export interface RowUsageTrackerOptions {
  row: string;
  format: UsageFormat;
  /** The row's conversation file, or null while it does not exist yet (asked again at each look). */
  locate: () => string | null;
  ledger: UsageLedger;
  prices: Prices;
  now?: () => number;
  sliceBytes?: number;
}

/** Where a followed file's usage is attributed: the conversation, or the subagent (its file's name). */
const MAIN = 'main';

/** How long a watch event on the conversation waits for the rest of its burst during a turn (else the follower's default). */
export const TURN_SETTLE_MS = 30;
/** The follower's settle outside a turn: a response's several appends read in one look. */
const IDLE_SETTLE_MS = 500;

export class RowUsageTracker implements Disposable {
  private readonly changed = new Emitter<RowUsage>();
  /** Fires once per committed change of this row's usage. */
  readonly onChange: Event<RowUsage> = this.changed.event;
  private readonly interruptEmitter = new Emitter<TurnInterrupt>();
  /** The operator stopped a turn (the conversation's own interrupt line), once per line read. */
  readonly onInterrupt: Event<TurnInterrupt> = this.interruptEmitter.event;
  private inTurn = false;
  private readonly followers = new Map<string, { follower: TranscriptFollower; source: string; watch: Disposable }>();
  private readonly byModel = new Map<string, { model: string | null; turns: number; tokens: TokenCounts; longTokens: TokenCounts }>();
  private latest: UsageLatest | undefined;
  private mainPath: string | null = null;
  private readonly now: () => number;
  private continuing = false;
  private disposed = false;

  constructor(private readonly o: RowUsageTrackerOptions) {
    this.now = o.now ?? Date.now;
    for (const t of o.ledger.totals({ row: o.row })) this.addToModel(t.model, t.turns, t.tokens, t.longTokens);
    this.latest = o.ledger.latest(o.row);
    // Files read before a restart are followed again from where reading stopped.
    for (const f of o.ledger.files(o.row)) this.follow(f.path, this.sourceOf(f.path), f.state);
  }

  /** Looks at every file of the row now (the row went quiet): a late file, new subagents, new lines. */
  look(): void {
    if (this.disposed) return;
    this.discover();
    let more = false;
    for (const { follower } of this.followers.values()) more = follower.look() || more;
    if (more) this.continueSoon();
  }

  /** The row's agent is inside a turn (busy, or waiting on the operator) or not: how promptly its conversation is read. */
  duringTurn(active: boolean): void {
    if (this.inTurn === active) return;
    this.inTurn = active;
    const main = this.mainPath === null ? undefined : this.followers.get(this.mainPath);
    main?.follower.setSettleMs(active ? TURN_SETTLE_MS : IDLE_SETTLE_MS);
  }

  snapshot(): RowUsage {
    const byModel: ModelUsage[] = [];
    const tokens = zeroTokens();
    const unpriced: string[] = [];
    let cost = 0;
    let turns = 0;
    for (const m of this.byModel.values()) {
      const priced = this.o.prices.lookup(m.model);
      const c = priced ? costOf(priced.price, m.tokens, m.longTokens) : null;
      const all = addTokens(addTokens(zeroTokens(), m.tokens), m.longTokens);
      byModel.push({ model: m.model, turns: m.turns, tokens: all, cost: c });
      addTokens(tokens, all);
      turns += m.turns;
      if (c === null) unpriced.push(m.model ?? '(unnamed)');
      else cost += c;
    }
    return { row: this.o.row, turns, tokens, cost, unpriced, byModel, context: this.contextFill(), limits: this.latest?.limits ?? null, at: this.latest?.at ?? null };
  }

  dispose(): void {
    this.disposed = true;
    for (const f of this.followers.values()) {
      f.watch.dispose();
      f.follower.dispose();
    }
    this.followers.clear();
    this.changed.dispose();
    this.interruptEmitter.dispose();
  }

  private contextFill(): RowUsage['context'] {
    const l = this.latest;
    if (!l || l.contextTokens === null) return null;
    const window = l.contextWindow ?? this.o.prices.lookup(l.model)?.price.contextWindow ?? null;
    return { tokens: l.contextTokens, window, fraction: window ? l.contextTokens / window : null };
  }

  /** The conversation file once it exists, and (Claude Code) the subagent files beside it. */
  private discover(): void {
    if (this.mainPath === null) {
      const found = this.o.locate();
      if (found !== null) {
        this.mainPath = found;
        const known = this.followers.get(found);
        if (!known) this.follow(found, MAIN);
        else if (this.inTurn) known.follower.setSettleMs(TURN_SETTLE_MS);
      }
    }
    if (this.mainPath !== null && this.o.format === 'claude') {
      const dir = join(dirname(this.mainPath), basename(this.mainPath, '.jsonl'), 'subagents');
      if (!existsSync(dir)) return;
      let names: string[];
      try {
        names = readdirSync(dir);
      } catch {
        return;
      }
      for (const name of names) {
        const path = join(dir, name);
        if (name.endsWith('.jsonl') && !this.followers.has(path)) this.follow(path, this.sourceOf(path));
      }
    }
  }

  private sourceOf(path: string): string {
    return /\/subagents\/[^/]+\.jsonl$/.test(path) ? basename(path, '.jsonl') : MAIN;
  }

  private follow(path: string, source: string, state?: FollowBatch['state']): void {
    const follower = new TranscriptFollower({
      path,
      parser: parserFor(this.o.format),
      state,
      now: this.now,
      sliceBytes: this.o.sliceBytes,
      settleMs: path === this.mainPath && this.inTurn ? TURN_SETTLE_MS : IDLE_SETTLE_MS,
      commit: (batch) => this.commit(batch, source),
      // Only the current conversation's own file speaks for the row's turn (not a subagent's, nor an earlier conversation's).
      interrupted: (i: TurnInterrupt) => path === this.mainPath && this.interruptEmitter.fire(i),
    });
    this.followers.set(path, { follower, source, watch: follower.watch() });
  }

  /** One slice: its totals and the file's state to the ledger together; then the row's own view, and one event. */
  private commit(batch: FollowBatch, source: string): void {
    const increments = new Map<string, UsageTotalRecord>();
    let latest: UsageLatest | null = null;
    for (const t of batch.turns) {
      const day = new Date(t.at).toISOString().slice(0, 10);
      const key = `${day}\0${t.model ?? ''}`;
      let inc = increments.get(key);
      if (!inc) increments.set(key, (inc = emptyTotal(this.o.row, day, t.model, source)));
      const price = this.o.prices.lookup(t.model)?.price;
      const long = price !== undefined && t.contextTokens !== null && isLongPrompt(price, t.contextTokens);
      addTokens(long ? inc.longTokens : inc.tokens, t.tokens);
      inc.turns++;
      // A subagent's context is its own: the row's fill is its conversation's.
      if (source === MAIN) latest = { row: this.o.row, model: t.model, contextTokens: t.contextTokens, contextWindow: t.contextWindow, limits: null, at: t.at };
    }
    if (batch.limits) {
      const base = latest ?? this.latest ?? { row: this.o.row, model: null, contextTokens: null, contextWindow: null, limits: null, at: batch.limits.at };
      latest = { ...base, limits: batch.limits, at: Math.max(base.at, batch.limits.at) };
    }
    this.o.ledger.commit({ row: this.o.row, path: batch.path, state: batch.state, totals: [...increments.values()], latest }, this.now());
    for (const inc of increments.values()) this.addToModel(inc.model, inc.turns, inc.tokens, inc.longTokens);
    if (latest) this.latest = { ...latest, limits: latest.limits ?? this.latest?.limits ?? null };
    if ((increments.size > 0 || batch.limits) && this.changed.size > 0) this.changed.fire(this.snapshot());
  }

  private addToModel(model: string | null, turns: number, tokens: TokenCounts, longTokens: TokenCounts): void {
    const key = model ?? '';
    let m = this.byModel.get(key);
    if (!m) this.byModel.set(key, (m = { model, turns: 0, tokens: zeroTokens(), longTokens: zeroTokens() }));
    m.turns += turns;
    addTokens(m.tokens, tokens);
    addTokens(m.longTokens, longTokens);
  }

  /** The rest of a large backlog, a slice per turn of the event loop. */
  private continueSoon(): void {
    if (this.continuing || this.disposed) return;
    this.continuing = true;
    setImmediate(() => {
      this.continuing = false;
      this.look();
    });
  }
}
