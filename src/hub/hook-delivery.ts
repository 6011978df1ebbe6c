// Delivery without typing (issue #13): an agent's own end-of-turn hook (Claude Code's Stop hook) asks
// the hub whether its row has unread mail; if so the hook blocks the stop, telling the agent to read
// its inbox, so mail that came during a turn is read at the end of that turn with nothing typed. The
// delivery is recorded beside the receipts as "told by its hook", and the wake controller counts the
// batch as handled (never a hook and a typed wake for the same mail). A loop guard lets an agent that
// cannot read mail stop anyway: at most MAX_BLOCKS blocks in a row for the same newest message.
// Every hook of a row's agent (`swb hook <event>`) is also a report of its turn (issue #37), passed on
// to the row's agent as the second state signal; a Stop that blocks is no end of turn (the turn goes on).
import type { HookReport } from '../agents/hook-signal.js';
import { Emitter, type Event } from '../util/event.js';

export const MAX_BLOCKS = 2;

export interface StopDecision {
  block: boolean;
  /** For the agent: what to do (when blocking), or why not. */
  reason: string;
  unread: number;
  messageIds: number[];
}

export interface HookDeliveryDeps {
  /** The row's unread mail, peeked (nothing marked delivered). */
  unread(handle: string): { ids: number[]; maxSeq: number };
  /** Records the delivery by hook and publishes the receipts' news, calling `told` in between. */
  record(handle: string, ids: readonly number[], told: () => void): Promise<void>;
}

export class HookDelivery {
  private readonly guard = new Map<string, { maxSeq: number; blocks: number }>();
  private readonly deliveredEmitter = new Emitter<{ handle: string; maxSeq: number }>();
  /** A hook told a row of its mail up to maxSeq: a typed wake for that batch is not needed. */
  readonly onDelivered: Event<{ handle: string; maxSeq: number }> = this.deliveredEmitter.event;
  private readonly gaveUpEmitter = new Emitter<string>();
  /** The loop guard let a row's agent stop with its mail unread: the typed wake takes it from here. */
  readonly onGaveUp: Event<string> = this.gaveUpEmitter.event;
  private readonly reportEmitter = new Emitter<{ handle: string; report: HookReport }>();
  /** A row's agent hook reported an event of its turn. */
  readonly onReport: Event<{ handle: string; report: HookReport }> = this.reportEmitter.event;

  constructor(private readonly deps: HookDeliveryDeps) {}

  /** A row's agent hook reported (the row is the connection's identity). */
  report(handle: string, report: HookReport): void {
    this.reportEmitter.fire({ handle, report });
  }

  async stop(handle: string, startedAt?: number): Promise<StopDecision> {
    const decision = await this.decide(handle);
    // A blocked stop sends the agent back to work: its turn goes on.
    this.report(handle, { event: decision.block ? 'stop-blocked' : 'stop', ...(startedAt !== undefined ? { startedAt } : {}) });
    return decision;
  }

  private async decide(handle: string): Promise<StopDecision> {
    const { ids, maxSeq } = this.deps.unread(handle);
    if (ids.length === 0) {
      this.guard.delete(handle);
      return { block: false, reason: 'no unread mail', unread: 0, messageIds: [] };
    }
    const last = this.guard.get(handle);
    const blocks = last && last.maxSeq === maxSeq ? last.blocks : 0;
    if (blocks >= MAX_BLOCKS) {
      // The agent was told twice and the same mail is still unread: let it stop; once it is idle the
      // typed wake tells it again (or the operator sees the mail waiting).
      this.gaveUpEmitter.fire(handle);
      return { block: false, reason: `told ${blocks} times about the same mail; letting the agent stop`, unread: ids.length, messageIds: ids };
    }
    this.guard.set(handle, { maxSeq, blocks: blocks + 1 });
    // The wake controller hears first, so the receipts' news cannot start a typed wake for this batch.
    await this.deps.record(handle, ids, () => this.deliveredEmitter.fire({ handle, maxSeq }));
    const n = ids.length;
    return {
      block: true,
      reason:
        `You have ${n} unread message${n === 1 ? '' : 's'} in Switchboard (${ids.map((id) => `#${id}`).join(' ')}). ` +
        'Read them now with the swb inbox tool (mcp__swb__inbox) or `swb inbox`, act on them, and reply where asked.',
      unread: n,
      messageIds: ids,
    };
  }

  forget(handle: string): void {
    this.guard.delete(handle);
  }
}
