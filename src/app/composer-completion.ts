// Who an '@' can complete to: the dashboard's rows (running ones first), then other handles the hub
// knows (online first), then @all. Each candidate carries what a completion binds to, so a mention
// means the row incarnation it was completed to, not whatever holds that name later.
import { BROADCAST, OPERATOR } from '../protocol/handle.js';
import type { RowView } from './app-state.js';
import type { MentionBinding, MentionTarget, PeerView } from './composer-state.js';
import { compareCodeUnits } from '../text/code-unit-order.js';

export interface Candidate {
  handle: string;
  target: MentionTarget;
  incarnation: number | null;
  /** "running", "exited", "online", "known", "every running row". */
  note: string;
}

export const MAX_CANDIDATES = 30;

export function completionCandidates(
  prefix: string,
  rows: readonly RowView[],
  peers: readonly PeerView[],
  limit = MAX_CANDIDATES,
): Candidate[] {
  const all: Candidate[] = [];
  const rowNames = new Set(rows.map((r) => r.name));
  const byState = [...rows].sort((a, b) => Number(b.running) - Number(a.running));
  for (const r of byState) all.push({ handle: r.name, target: 'row', incarnation: r.incarnation, note: r.running ? 'running' : 'exited' });
  const others = peers.filter((p) => !rowNames.has(p.handle) && p.handle !== OPERATOR && p.handle !== BROADCAST);
  others.sort((a, b) => Number(b.online) - Number(a.online) || compareCodeUnits(a.handle, b.handle));
  for (const p of others) all.push({ handle: p.handle, target: 'peer', incarnation: null, note: p.online ? 'online' : p.role === 'row' ? 'closed row' : 'known' });
  all.push({ handle: BROADCAST, target: 'broadcast', incarnation: null, note: 'every running row' });

  const p = prefix.toLowerCase();
  const starts = all.filter((c) => c.handle.toLowerCase().startsWith(p));
  const contains = p === '' ? [] : all.filter((c) => !c.handle.toLowerCase().startsWith(p) && c.handle.toLowerCase().includes(p));
  return [...starts, ...contains].slice(0, limit);
}

export function bindingFor(c: Candidate): MentionBinding {
  return { handle: c.handle, target: c.target, incarnation: c.incarnation };
}

export interface StaleMention {
  handle: string;
  reason: 'restarted' | 'closed';
}

/**
 * Recipients whose mention was completed to a row that has since been restarted (a new incarnation)
 * or closed: sending by name would reach something the operator did not pick.
 */
export function staleMentions(recipients: readonly string[], bindings: readonly MentionBinding[], rows: readonly RowView[]): StaleMention[] {
  const out: StaleMention[] = [];
  for (const handle of recipients) {
    const b = bindings.find((x) => x.handle === handle);
    if (!b || b.target !== 'row') continue;
    const row = rows.find((r) => r.name === handle);
    if (!row) out.push({ handle, reason: 'closed' });
    else if (row.incarnation !== b.incarnation) out.push({ handle, reason: 'restarted' });
  }
  return out;
}

/** The refusal line for stale mentions. */
export function describeStale(stale: readonly StaleMention[]): string {
  const parts = stale.map((s) => `@${s.handle} was ${s.reason === 'restarted' ? 'restarted' : 'closed'}`);
  return `${parts.join(', ')} since you picked it — not sent. Enter again sends to the name as it is now.`;
}
