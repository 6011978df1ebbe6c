// What the agent wiring needs from the embedded hub, as a small port: a row's unread mail (peeked, so
// looking never marks anything delivered), recording a wake beside the receipts, and being told when a
// row's unread set may have changed (new mail, or a receipt moved: read, replied, expired).
import type { UnreadMail } from '../agents/wake-controller.js';
import type { Hub } from '../hub/hub.js';
import type { Event } from '../util/event.js';
import { toDisposable } from '../util/lifecycle.js';

export interface AgentMailPort {
  unreadOf(handle: string): UnreadMail;
  /** The wake controller nudged `handle` about these messages (`swb status ID` then shows woken). */
  recordWake(handle: string, messageIds: readonly string[]): void;
  /** Fires with the handles whose unread mail may have changed. */
  onUnreadMaybeChanged: Event<readonly string[]>;
}

/** Enough to hold every unread message of a recipient at the default limits (maxUnread 256). */
const UNREAD_PAGE = 1000;

export function hubAgentMail(hub: Hub): AgentMailPort {
  return {
    unreadOf(handle) {
      if (hub.store.unreadCount(handle) === 0) return { messageIds: [], maxSeq: 0 };
      let items;
      try {
        ({ items } = hub.store.list(handle, { unreadOnly: true, peek: true, limit: UNREAD_PAGE }));
      } catch (err) {
        // No wake this time (the store is locked or failing); the next mail or receipt asks again.
        hub.log(`unread of ${handle}: ${hub.failureOf(err, 'wake check').message}`);
        return { messageIds: [], maxSeq: 0 };
      }
      let maxSeq = 0;
      for (const m of items) maxSeq = Math.max(maxSeq, m.seq ?? 0);
      return { messageIds: items.map((m) => String(m.id)), maxSeq };
    },
    recordWake(handle, messageIds) {
      const ids = messageIds.map(Number).filter((n) => Number.isSafeInteger(n) && n > 0);
      if (ids.length === 0) return;
      hub.gate.run(() => hub.store.recordWake(handle, ids)).then(
        (changes) => hub.publishChanges(changes),
        (err: unknown) => hub.log(`wake of ${handle} not recorded: ${hub.failureOf(err, 'recordWake').message}`),
      );
    },
    onUnreadMaybeChanged(listener) {
      const a = hub.onMail((m) => listener(m.to));
      const b = hub.onReceipt((r) => listener([r.to]));
      return toDisposable(() => {
        a.dispose();
        b.dispose();
      });
    },
  };
}
