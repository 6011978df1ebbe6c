// The resources overlay's text (issue #35), as plain sanitized lines: each resource's policy, its
// holders with the process recorded for them (pid, command) or why they are uncertain, its queue in
// order; and the evidence shown before a forced release. Kept apart from the Ink component so the
// wording is tested without a terminal. Every peer-given string (names, reasons, commands, whys)
// passes sanitize.
import type { ResourceStatus, TicketView } from '../protocol/resource-name.js';
import { sanitize } from '../text/sanitize.js';
import type { ResourceEntry } from './resources-view-state.js';

const clean = (text: string, maxChars = 120) => sanitize(text, { singleLine: true, maxChars });

/**
 * Local wall-clock time (as `swb resource status` prints it, without the date), not an age: the
 * dashboard's coarse clock would let an age go stale while the overlay is open.
 */
function since(at: number | null): string {
  if (at === null) return '?';
  const d = new Date(at);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

function waitLabel(ms: number | null): string {
  return ms === null ? 'none' : `${Math.round(ms / 1000)} s`;
}

export function policyLine(s: ResourceStatus): string {
  const controller = s.controller === null ? 'none (the hub grants in order)' : `@${clean(s.controller, 64)} grants`;
  return `${clean(s.name, 64)}  capacity ${s.capacity} · controller ${controller} · epoch ${s.epoch} · default wait ${waitLabel(s.waitMs)} · ${s.holders.length} held, ${s.queue.length} queued`;
}

function processOf(t: TicketView): string {
  if (t.launch) return `pid ${t.launch.pid} \`${clean(t.launch.command, 80)}\``;
  if (t.state === 'uncertain') return `uncertain: ${clean(t.why ?? 'no process recorded', 160)}`;
  return 'no process recorded (taken by request)';
}

export function holderLine(t: TicketView): string {
  const mark = t.state === 'uncertain' ? '⚿?' : '⚿';
  const reason = t.reason ? ` · “${clean(t.reason, 80)}”` : '';
  return `  ${mark} #${t.ticket} @${clean(t.holder, 64)} ${t.state} since ${since(t.grantedAt)}${reason} · ${processOf(t)}`;
}

export function queuedLine(t: TicketView, place: number): string {
  const reason = t.reason ? ` · “${clean(t.reason, 80)}”` : '';
  const wide = t.resources.length > 1 ? ` · with ${t.resources.map((r) => clean(r, 64)).join(', ')}` : '';
  return `  ⧗ ${place}. #${t.ticket} @${clean(t.holder, 64)} waiting since ${since(t.requestedAt)}${reason}${wide}`;
}

export function entryLine(statuses: readonly ResourceStatus[], e: ResourceEntry): string {
  if (e.kind === 'resource') {
    const s = statuses.find((x) => x.name === e.resource);
    return s ? policyLine(s) : clean(e.resource, 64);
  }
  return e.kind === 'holder' ? holderLine(e.ticket) : queuedLine(e.ticket, e.place);
}

/** What is known of a holder, shown before the operator forces its release. */
export function releaseEvidence(t: TicketView): string[] {
  const lines = [
    `@${clean(t.holder, 64)} holds ${t.resources.map((r) => clean(r, 64)).join(', ')} (ticket #${t.ticket}, ${t.state})`,
    `granted ${since(t.grantedAt)}${t.grantedBy ? ` by ${clean(t.grantedBy, 64)}` : ''}; requested ${since(t.requestedAt)}`,
  ];
  if (t.reason) lines.push(`reason: ${clean(t.reason, 200)}`);
  if (t.launch) {
    lines.push(`process: pid ${t.launch.pid}, process group ${t.launch.pgid}, kernel start time ${clean(t.launch.startTime, 40)}`);
    lines.push(`command: ${clean(t.launch.command, 200)} (launched ${since(t.launch.launchedAt)})`);
  } else {
    lines.push('process: none recorded (the ticket was taken by request, not by swb run)');
  }
  if (t.why) lines.push(`known: ${clean(t.why, 200)}`);
  lines.push('Releasing frees it for the next in line; it kills nothing. A process still running keeps running.');
  return lines;
}
