// A reply budget between agents (issue #16): two rows that wake each other could trade mail all night,
// each exchange a paid model turn, with nobody watching. So the messages rows send each other count
// against a budget per PAIR of rows, in either direction and whatever the thread (a loop cannot
// escape by starting new threads). The operator's message to either row of a pair is a deliberate
// human turn: it starts a new continuation and resets that row's pairs. A replyTo chain among rows
// deeper than maxDepth is refused the same way. A pair that ran out is held (and shown) until the
// operator writes to one of them or grants another budget. Kept in mail.db, so it survives restarts.
//
// Runs inside MailStore's accept transaction: a refused message changes nothing but the pair's
// "held" mark, and a retry of a stored message is never counted twice (dedup comes first).
import { preparedOnFirstUse, sql } from './prepared-on-first-use.js';
import { swbError, type SwbErrorValue } from '../protocol/error-codes.js';
import { OPERATOR } from '../protocol/handle.js';
import type { SessionRole } from '../protocol/methods.js';
import type { SqliteDatabase } from './open-database.js';

export interface ReplyBudgetSettings {
  /** Messages a pair of rows may send each other between two operator turns; 0 = unlimited. */
  perPair: number;
  /** Deepest replyTo chain among rows; 0 = unlimited. */
  maxDepth: number;
  /** Count tokenless participants (scripts, --as handles) like rows. */
  countParticipants: boolean;
}

export const DEFAULT_REPLY_BUDGET: ReplyBudgetSettings = { perPair: 8, maxDepth: 16, countParticipants: false };

export interface HeldPair {
  a: string;
  b: string;
  used: number;
  heldAt: number;
}

/** What one new message may do: its depth, a refusal, or recipients it skips (broadcast) — and whom it counts against. */
export interface BudgetDecision {
  depth: number;
  refusal: SwbErrorValue | null;
  skipped: Array<{ to: string; error: SwbErrorValue }>;
  /** Recipients whose pair with the sender the message uses up, once accepted. */
  counted: string[];
  /** The operator wrote: these recipients' pairs start over. */
  resets: string[];
}

/** Nothing refused, skipped, counted or reset, at depth 0: shared by every such decision, never written. */
const NOTHING_TO_DECIDE: BudgetDecision = { depth: 0, refusal: null, skipped: [], counted: [], resets: [] };

function pairOf(x: string, y: string): [string, string] {
  return x < y ? [x, y] : [y, x];
}

export class ReplyBudget {
  private readonly q;

  constructor(
    db: SqliteDatabase,
    private settings: ReplyBudgetSettings,
    private readonly roleOf: (handle: string) => SessionRole | undefined,
  ) {
    this.q = preparedOnFirstUse(db, {
      used: sql<{ used: number }>(`SELECT used FROM pair_budgets WHERE a = ? AND b = ?`),
      use: sql(`INSERT INTO pair_budgets (a, b, used) VALUES (?, ?, 1) ON CONFLICT (a, b) DO UPDATE SET used = used + 1`),
      hold: sql(`UPDATE pair_budgets SET held_at = ? WHERE a = ? AND b = ? AND held_at IS NULL`),
      resetFor: sql(`DELETE FROM pair_budgets WHERE a = ? OR b = ?`),
      grant: sql(`DELETE FROM pair_budgets WHERE a = ? AND b = ?`),
      held: sql<{ a: string; b: string; used: number; held_at: number }>(`SELECT a, b, used, held_at FROM pair_budgets WHERE held_at IS NOT NULL ORDER BY held_at`),
      parent: sql<{ depth: number }>(`SELECT depth FROM messages WHERE id = ?`),
    });
  }

  get limits(): ReplyBudgetSettings {
    return this.settings;
  }

  setSettings(settings: ReplyBudgetSettings): void {
    this.settings = settings;
  }

  private counts(handle: string): boolean {
    const role = this.roleOf(handle);
    return role === 'row' || role === 'remote' || (this.settings.countParticipants && role === 'participant');
  }

  /** How deep among rows a new message sits: 0 for a new thread or anything the operator (or an outsider) writes. */
  depthOf(sender: string, replyTo: number | null): number {
    if (replyTo === null || sender === OPERATOR || !this.counts(sender)) return 0;
    return (this.q.parent.get(replyTo)?.depth ?? 0) + 1;
  }

  /**
   * Decides for a new message of `depth` (from depthOf); `optional` recipients (reached through
   * @all) are skipped instead of refusing it. A pair found out of budget is marked held.
   */
  decide(sender: string, to: readonly string[], optional: ReadonlySet<string> | undefined, depth: number, at: number): BudgetDecision {
    // A sender the budget does not count (depth 0 then, see depthOf) is most mail: no object made for it.
    if (depth === 0 && sender !== OPERATOR && !this.counts(sender)) return NOTHING_TO_DECIDE;
    const none: BudgetDecision = { depth, refusal: null, skipped: [], counted: [], resets: [] };
    if (sender === OPERATOR) return { ...none, resets: to.filter((h) => this.counts(h)) };
    if (!this.counts(sender)) return none;
    const peers = to.filter((h) => h !== sender && this.counts(h));
    if (peers.length === 0) return none;
    const { perPair, maxDepth } = this.settings;
    if (maxDepth > 0 && depth > maxDepth) {
      return {
        ...none,
        refusal: swbError(
          'REPLY_BUDGET',
          `This reply would be ${depth} replies deep among rows (the limit is ${maxDepth}) without the operator; ask the operator to continue (swb send @operator ...).`,
          { reason: 'depth', depth, limit: maxDepth },
        ),
      };
    }
    const counted: string[] = [];
    const skipped: BudgetDecision['skipped'] = [];
    for (const peer of peers) {
      const [a, b] = pairOf(sender, peer);
      const used = this.q.used.get(a, b)?.used ?? 0;
      if (perPair === 0 || used < perPair) {
        counted.push(peer);
        continue;
      }
      // Only the refusal that holds the pair says so: the operator is told once, not per retry.
      const newlyHeld = this.q.hold.run(at, a, b).changes > 0;
      const error = swbError(
        'REPLY_BUDGET',
        `@${sender} and @${peer} have sent each other ${used} messages since the operator last wrote to either (the budget is ${perPair}); ask the operator to continue (swb send @operator ...).`,
        { reason: 'budget', pair: [a, b], used, limit: perPair, newlyHeld },
      );
      if (optional?.has(peer)) skipped.push({ to: peer, error });
      else return { ...none, refusal: error };
    }
    return { ...none, counted, skipped };
  }

  /** The message was accepted: it uses up one of each counted pair's budget; the operator's resets theirs. */
  apply(sender: string, decision: BudgetDecision): void {
    for (const peer of decision.counted) this.q.use.run(...pairOf(sender, peer));
    for (const handle of decision.resets) this.q.resetFor.run(handle, handle);
  }

  /** The operator grants a held (or any) pair a new budget. Returns whether the pair had used any. */
  grant(x: string, y: string): boolean {
    return this.q.grant.run(...pairOf(x, y)).changes > 0;
  }

  held(): HeldPair[] {
    return this.q.held.all().map((r) => ({ a: r.a, b: r.b, used: r.used, heldAt: r.held_at }));
  }
}
