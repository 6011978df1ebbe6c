// The `$` overlay's text: per agent row (the focused one first), its tokens in, cached and out, its
// cost at list price ("no price" for a model the table does not know, never a guess), its context fill,
// the plan's rate-limit windows with when they reset, its budget, and the split by model. Plain lines,
// built from the rows' usage in the app store, so the overlay redraws as usage events arrive.
import { sanitize } from '../text/sanitize.js';
import { dollars, type RowUsageView } from '../usage/row-usage-view.js';
import type { RateLimitWindow } from '../usage/usage-turn.js';
import type { RowView } from './app-state.js';

const n = (v: number) => v.toLocaleString('en-US');

export function usageLines(rows: readonly RowView[], focused: string | null, now: number): string[] {
  const tracked = rows.filter((r) => r.usage);
  if (tracked.length === 0) return ['No row here runs an agent whose usage swb reads (Claude Code, Codex, Gemini CLI).'];
  const ordered = [...tracked.filter((r) => r.name === focused), ...tracked.filter((r) => r.name !== focused)];
  const lines: string[] = [];
  for (const r of ordered) {
    if (lines.length > 0) lines.push('');
    lines.push(...rowLines(r.name, r.profile, r.usage!, now));
  }
  return lines;
}

function rowLines(name: string, profile: string | null, u: RowUsageView, now: number): string[] {
  const t = u.tokens;
  const lines = [`@${name}${profile && profile !== name ? ` · ${profile}` : ''} · ${u.turns} turn${u.turns === 1 ? '' : 's'}`];
  lines.push(`  tokens   in ${n(t.input)} · cache read ${n(t.cacheRead)} · cache write ${n(t.cacheWrite)} · out ${n(t.output)}${t.reasoning ? ` (reasoning ${n(t.reasoning)})` : ''}`);
  const unpriced = u.unpriced.length > 0 ? `no price for ${sanitize(u.unpriced.join(', '), { singleLine: true, maxChars: 120 })}` : '';
  lines.push(`  cost     ${u.cost > 0 || !unpriced ? `${dollars(u.cost)} at list price` : ''}${u.cost > 0 && unpriced ? ' · ' : ''}${unpriced}`);
  const c = u.context;
  if (c) lines.push(`  context  ${n(c.tokens)} tokens${c.window ? ` of ${n(c.window)} (${Math.round((c.fraction ?? 0) * 100)}%)` : ' (window not known)'}`);
  const l = u.limits;
  if (l && (l.primary || l.secondary)) {
    const parts = [l.primary && windowText('short', l.primary, now), l.secondary && windowText('long', l.secondary, now)].filter(Boolean);
    lines.push(`  plan     ${parts.join(' · ')}`);
  }
  if (u.budget) {
    const b = u.budget;
    const level = b.level === 'over' ? 'OVER' : b.level === 'warn' ? 'near the limit' : 'ok';
    lines.push(`  budget   ${level}: ${b.text} (${b.scope})${b.wakesStopped ? ' · automatic wakes stopped' : ''}`);
  }
  if (u.byModel.length > 1 || (u.byModel.length === 1 && u.byModel[0]!.model)) {
    for (const m of u.byModel) {
      const mt = m.tokens;
      const total = mt.input + mt.cacheRead + mt.cacheWrite + mt.output;
      lines.push(`  model    ${sanitize(m.model ?? '(unnamed)', { singleLine: true, maxChars: 80 })}: ${m.turns} turn${m.turns === 1 ? '' : 's'}, ${n(total)} tokens, ${m.cost === null ? 'no price' : dollars(m.cost)}`);
    }
  }
  return lines;
}

/** "5h window 42% used, resets in 1h20m (14:30 UTC)". */
function windowText(which: string, w: RateLimitWindow, now: number): string {
  const span = w.windowMinutes ? `${w.windowMinutes % 1440 === 0 ? `${w.windowMinutes / 1440}d` : w.windowMinutes % 60 === 0 ? `${w.windowMinutes / 60}h` : `${w.windowMinutes}m`} window` : `${which} window`;
  const reset = w.resetsAt ? `, resets in ${inTime(w.resetsAt - now)} (${new Date(w.resetsAt).toISOString().slice(5, 16).replace('T', ' ')} UTC)` : '';
  return `${span} ${Math.round(w.usedPercent)}% used${reset}`;
}

function inTime(ms: number): string {
  const m = Math.max(0, Math.round(ms / 60_000));
  if (m < 60) return `${m}m`;
  if (m < 1440) return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
  return `${Math.floor(m / 1440)}d${Math.floor((m % 1440) / 60)}h`;
}
