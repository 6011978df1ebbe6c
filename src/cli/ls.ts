import type { RowListing } from '../protocol/methods.js';
import type { CommandDescriptor } from './command.js';
import { sanitize } from '../text/sanitize.js';

export const lsCommand: CommandDescriptor = {
  name: 'ls',
  summary: "List the server's rows: name, profile, state, unread mail, pid, age (operator only).",
  usage: '',
  maxArgs: 0,
  flags: [],
  details: 'Asks the workspace server (started by swb); a workspace with only a headless hub answers NO_SERVER.',
  async run(ctx) {
    const client = await ctx.connect({ autoStart: false, server: true });
    const r = await client.request<{ rows: RowListing[]; clients: number; pid: number; version: string }>('server.rows', {});
    ctx.result(r);
    const now = Date.now();
    const table = [['NAME', 'PROFILE', 'STATE', 'UNREAD', 'PID', 'AGE', 'COMMAND']];
    for (const row of r.rows) {
      const exited = `exited ${row.exitCode ?? ''}`.trim();
      const state = row.running ? (row.state ?? 'running') + (row.reason ? ` (${row.reason})` : '') : row.exitReason ? `${exited} (${sanitize(row.exitReason, { singleLine: true, maxChars: 120 })})` : exited;
      const marks = [row.attached ? 'attached' : '', row.restored ? `restored (${row.restored})` : ''].filter(Boolean).join(', ');
      table.push([
        row.name,
        row.profile ?? '-',
        marks ? `${state} [${marks}]` : state,
        String(row.unread),
        row.pid !== null ? String(row.pid) : '-',
        age(now - row.startedAt),
        sanitize(row.command, { singleLine: true, maxChars: 60 }),
      ]);
    }
    const widths = table[0]!.map((_, i) => Math.max(...table.map((t) => t[i]!.length)));
    for (const t of table) ctx.print(t.map((c, i) => (i === t.length - 1 ? c : c.padEnd(widths[i]!))).join('  ').trimEnd());
    ctx.print(`server ${r.pid} (swb ${r.version}): ${r.rows.length} row${r.rows.length === 1 ? '' : 's'}, ${r.clients} client${r.clients === 1 ? '' : 's'} attached`);
    return 0;
  },
};

function age(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86400) return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
  return `${Math.floor(s / 86400)}d${Math.floor((s % 86400) / 3600)}h`;
}
