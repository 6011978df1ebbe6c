// What the agent runtime needs of the mail core: a row's unread mail (peeked, so looking never marks
// anything delivered), recording a wake beside the receipts, and being told when a row's unread set
// may have changed (new mail, or a receipt moved: read, replied, expired). The operator port
// (src/hub/operator-port.ts) provides it.
import type { HookReport } from '../agents/hook-signal.js';
import type { UnreadMail } from '../agents/wake-controller.js';
import type { Event } from '../util/event.js';

export interface AgentMailPort {
  unreadOf(handle: string): UnreadMail;
  /** The wake controller nudged `handle` about these messages (`swb status ID` then shows woken). */
  recordWake(handle: string, messageIds: readonly string[]): void;
  /** Fires with the handles whose unread mail may have changed. */
  onUnreadMaybeChanged: Event<readonly string[]>;
  /** A row's own hook told it of its mail up to maxSeq (optional: a hub without hooks never fires). */
  onToldByHook?: Event<{ handle: string; maxSeq: number }>;
  /** The row's hook gave up (its loop guard): the typed wake takes the unread mail from here. */
  onHookGaveUp?: Event<string>;
  /** A row's agent hook reported an event of its turn (the second state signal). */
  onHookReport?: Event<{ handle: string; report: HookReport }>;
}
