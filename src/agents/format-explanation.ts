// Turns a StateExplanation into the text `swb explain ROW` prints (and the TUI's explain key shows).
// The evidence is screen text from the row: callers pass the result through src/text/sanitize.
// With the fusion's account (state-fusion.ts) the state is the fused one, and both signals are shown
// with their ages, the one that won, and why.
import type { FreePromptVerdict } from './free-prompt.js';
import type { FusionExplanation } from './state-fusion.js';
import type { StateExplanation } from './state-tracker.js';
import type { WakePhase, WakePolicy } from './wake-controller.js';

export interface ExplainExtras {
  /** WakeController.promptVerdict(): may swb type into this row now? */
  prompt?: FreePromptVerdict;
  wake?: { policy: WakePolicy; phase: WakePhase; reason: string };
  /** Both signals (screen, hook), which won and why. */
  fusion?: FusionExplanation;
  verbose?: boolean;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/** The two signals and the verdict, e.g. "screen:   busy for 2.1 s (rules read idle)". */
function fusionLines(f: FusionExplanation): string[] {
  const s = f.screen;
  const screen = `  screen:   ${s.state} for ${seconds(s.ageMs)}${s.detected !== s.state ? ` (rules read ${s.detected})` : ''}`;
  const h = f.hook;
  const hook = h
    ? `  hook:     ${h.event} → ${h.kind}${h.reason ? ` (${h.reason})` : ''}, ${seconds(h.ageMs)} ago`
    : '  hook:     none reported (an agent without hooks, or none yet)';
  const v = f.verdict;
  const won = v.won === 'both' ? 'both agree' : `${v.won} won`;
  return [screen, hook, `  decided:  ${won} by rule ${v.rule}: ${v.why}`];
}

export function formatExplanation(e: StateExplanation, opts: ExplainExtras = {}): string {
  const out: string[] = [];
  const v = opts.fusion?.verdict;
  const state = v ? `${v.state}${v.reason ? ` (${v.reason})` : ''}` : e.state;
  out.push(`${e.row}: ${state} (profile ${e.profileId})`);
  if (e.warning) out.push(`  warning: ${e.warning}`);
  if (e.state === 'exited') {
    out.push(`  ${e.evidence}`);
    return out.join('\n');
  }
  if (e.ruleId) {
    out.push(`  rule:     ${e.ruleId} → ${e.detected}`);
    out.push(`  region:   ${e.region}`);
    if (e.evidence) out.push(`  evidence: ${e.evidence}`);
  } else {
    out.push(`  rule:     none (${e.evidence})`);
  }
  const pending = e.idlePending ? ` — idle once still for ${seconds(e.quietMs)}` : '';
  out.push(`  quiet:    screen still for ${seconds(e.stillForMs)}, quiet time ${seconds(e.quietMs)}${pending}`);
  if (opts.fusion) out.push(...fusionLines(opts.fusion));
  if (opts.prompt) out.push(`  prompt:   ${opts.prompt.free ? 'free' : `not free (${opts.prompt.reason}: ${opts.prompt.detail})`}`);
  if (opts.wake) out.push(`  wake:     policy ${opts.wake.policy}, ${opts.wake.phase}${opts.wake.reason ? ` (${opts.wake.reason})` : ''}`);
  if (opts.verbose) {
    for (const t of e.tried) {
      out.push(`  ${t.matched ? '✓' : '·'} ${t.ruleId} [${t.state}, ${t.priority}] ${t.region}: ${t.evidence}`);
    }
  }
  return out.join('\n');
}
