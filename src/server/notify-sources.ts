// Where the server's notifications come from: each of the five kinds is taken once, at the place it
// happens, and handed to the one Notifier as a NotifyEvent (src/notify/notify-event.ts).
//   waiting      a row's agent goes into `waiting` (its reason: waitingReasonOf below), or waits
//                for another reason (a permission answered, then a question put: the operator is
//                needed again, for something else)
//   turn-ended   busy → idle with no unread mail for the row (a turn ended and nothing is queued)
//   mail         accepted mail addressed to the operator, from anyone but the operator
//   row-exited   a row's program exits with a non-zero status
//   wake-held    a wake held back by the loop guard (the row's agent notice) or two rows held by the
//                reply budget (the hub's held event)
// This file is only that mapping: what the notifier then does (routes, bursts, mute, quiet hours)
// is src/notify's. The sources are narrow interfaces so a test drives them with fakes.
import type { AgentNotice, AgentStateEvent } from '../supervisor/row-agent.js';
import type { OperatorPort } from '../hub/operator-port.js';
import { OPERATOR } from '../protocol/handle.js';
import type { NotifyEvent, WaitingReason } from '../notify/notify-event.js';
import { WAITING_REASONS } from '../notify/notify-event.js';
import type { Clock } from '../util/clock.js';
import { DisposableMap } from '../util/disposable-map.js';
import type { Event } from '../util/event.js';
import { DisposableStore, toDisposable, type Disposable } from '../util/lifecycle.js';

/** What the sources need of a row's agent (a RowAgent). */
export interface NotifyingAgent {
  readonly onStateChange: Event<AgentStateEvent>;
  readonly onNotice: Event<AgentNotice>;
}

/** What the sources need of a row (a Row). */
export interface NotifyingRow {
  readonly name: string;
  readonly onExit: Event<{ exitCode: number }>;
}

export interface NotifySources {
  agents: { readonly onAgent: Event<NotifyingAgent> };
  fleet: { readonly onAdded: Event<NotifyingRow>; readonly onRemoved: Event<{ row: { name: string } }>; list(): readonly NotifyingRow[] };
  port: Pick<OperatorPort, 'onMail' | 'onHeld' | 'unreadCount'>;
  clock: Clock;
}

/**
 * Why a row waits, from its state event. The event's own `reason` (from the agent's hook, or the
 * fusion of both signals) wins. Otherwise the screen rule's id says it: an approval, a permission, a
 * confirmation or a trust dialog asks for permission; a question or a selection menu is a question;
 * an idle prompt is one; anything else asks for permission.
 */
export function waitingReasonOf(e: Pick<AgentStateEvent, 'rule'> & { reason?: string | null }): WaitingReason {
  if (typeof e.reason === 'string' && (WAITING_REASONS as readonly string[]).includes(e.reason)) return e.reason as WaitingReason;
  const rule = e.rule ?? '';
  if (/approv|permission|confirm|trust|action_required/.test(rule)) return 'permission';
  if (/question|menu|select/.test(rule)) return 'question';
  return /idle/.test(rule) ? 'idle-prompt' : 'permission';
}

/**
 * Whether an agent's notice is a wake held back by the loop guard. Read from a `reason` field when
 * the notice carries one, else from the words RowAgent writes today ("held back").
 */
export function isLoopGuardHold(n: AgentNotice & { reason?: unknown }): boolean {
  if (typeof n.reason === 'string') return n.reason === 'loop-guard';
  return n.kind === 'error' && n.text.includes('held back');
}

/** Follows every source and hands each event to `notify` (the Notifier's). */
export function followNotifySources(notify: (event: NotifyEvent) => void, s: NotifySources): Disposable {
  const lifetime = new DisposableStore();
  const now = () => s.clock.now();
  // Agents outlive this (their emitters end with them): once disposed, their events go nowhere.
  let live = true;
  lifetime.add(toDisposable(() => (live = false)));
  // Each row's last state (and, waiting, why), to tell a transition (busy → idle) from a repeat.
  const lastState = new Map<string, AgentStateEvent['state']>();
  const lastWaitingReason = new Map<string, WaitingReason>();
  lifetime.add(
    s.agents.onAgent((agent) => {
      agent.onStateChange((e) => {
        if (!live) return;
        const before = lastState.get(e.row);
        lastState.set(e.row, e.state);
        if (e.state === 'waiting') {
          const reason = waitingReasonOf(e);
          const reasonBefore = lastWaitingReason.get(e.row);
          lastWaitingReason.set(e.row, reason);
          if (before !== 'waiting' || reason !== reasonBefore) notify({ kind: 'waiting', reason, row: e.row, at: now() });
          return;
        }
        lastWaitingReason.delete(e.row);
        if (e.state === before) return;
        if (before === 'busy' && e.state === 'idle' && s.port.unreadCount(e.row) === 0) notify({ kind: 'turn-ended', reason: 'idle', row: e.row, at: now() });
      });
      agent.onNotice((n) => {
        if (live && isLoopGuardHold(n)) notify({ kind: 'wake-held', reason: 'loop-guard', row: n.row, at: now() });
      });
    }),
  );
  lifetime.add(
    s.port.onMail((m) => {
      if (m.from !== OPERATOR && m.to.includes(OPERATOR)) notify({ kind: 'mail', reason: 'to-operator', row: m.from, at: now(), body: m.text });
    }),
  );
  lifetime.add(s.port.onHeld((h) => notify({ kind: 'wake-held', reason: 'reply-budget', row: h.sender, at: now() })));
  const exits = lifetime.add(new DisposableMap<string, Disposable>());
  const follow = (row: NotifyingRow) =>
    exits.set(
      row.name,
      row.onExit((e) => {
        if (e.exitCode !== 0) notify({ kind: 'row-exited', reason: 'non-zero', exitCode: e.exitCode, row: row.name, at: now() });
      }),
    );
  for (const row of s.fleet.list()) follow(row);
  lifetime.add(s.fleet.onAdded(follow));
  lifetime.add(
    s.fleet.onRemoved(({ row }) => {
      exits.delete(row.name);
      lastState.delete(row.name);
      lastWaitingReason.delete(row.name);
    }),
  );
  return lifetime;
}
