// How reservations look in a terminal (swb run's waiting lines, swb resource status). Holders,
// reasons, commands and the hub's "why" come from peers: every one passes sanitize() first.
import type { ResourceStatus, TicketView } from '../protocol/resource-name.js';
import { sanitize } from '../text/sanitize.js';
import { formatTime } from './format-mail.js';

const clean = (text: string, max = 120): string => sanitize(text, { singleLine: true, maxChars: max });

/** "held by alice since 2026-12-05 07:01:02 (ticket 4, running: make test)" for each blocker of a queued ticket. */
export function describeWait(view: TicketView): string {
  const by = (view.blockers ?? []).map((b) => `${clean(b.resource, 64)} held by ${clean(b.holder, 64)} since ${formatTime(b.since)} (ticket ${b.ticket}, ${b.state})`);
  const ahead = view.ahead ? `; ${view.ahead} ahead in line` : '';
  return `${by.length > 0 ? by.join('; ') : 'not free yet'}${ahead}`;
}

/** One ticket as a status line. */
export function formatTicket(t: TicketView): string {
  const since = t.state === 'queued' ? `waiting since ${formatTime(t.requestedAt)}` : `since ${formatTime(t.grantedAt)}`;
  const parts = [`#${t.ticket}`, clean(t.holder, 64), t.state, since];
  if (t.resources.length > 1) parts.push(`(with ${t.resources.map((r) => clean(r, 64)).join('+')})`);
  if (t.launch) parts.push(`pid ${t.launch.pid} group ${t.launch.pgid}: ${clean(t.launch.command)}`);
  if (t.state === 'queued' && t.ahead) parts.push(`${t.ahead} ahead`);
  if (t.reason) parts.push(`— ${clean(t.reason, 200)}`);
  if (t.state === 'uncertain' && t.why) parts.push(`[uncertain: ${clean(t.why, 200)}; free it with swb resource release ${t.ticket} --force]`);
  return parts.join('  ');
}

export function formatStatus(s: ResourceStatus): string[] {
  const who = s.controller === null ? 'granted in order by the hub' : `granted by hand by ${clean(s.controller, 64)}`;
  const wait = s.waitMs === null ? '' : `, default wait ${s.waitMs / 1000} s`;
  const lines = [`${clean(s.name, 64)}  capacity ${s.capacity}, ${who}${wait}, epoch ${s.epoch}`];
  for (const t of s.holders) lines.push(`  ${formatTicket(t)}`);
  for (const t of s.queue) lines.push(`  ${formatTicket(t)}`);
  if (s.holders.length === 0 && s.queue.length === 0) lines.push('  free');
  return lines;
}
