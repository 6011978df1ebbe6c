// Turns a StateExplanation into the text `swb explain ROW` prints (and the TUI's explain key shows).
// The evidence is screen text from the row: callers pass the result through src/text/sanitize.
import type { FreePromptVerdict } from './free-prompt.js';
import type { StateExplanation } from './state-tracker.js';
import type { WakePhase, WakePolicy } from './wake-controller.js';

export interface ExplainExtras {
  /** WakeController.promptVerdict(): may swb type into this row now? */
  prompt?: FreePromptVerdict;
  wake?: { policy: WakePolicy; phase: WakePhase; reason: string };
  verbose?: boolean;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

export function formatExplanation(e: StateExplanation, opts: ExplainExtras = {}): string {
  const out: string[] = [];
  out.push(`${e.row}: ${e.state} (profile ${e.profileId})`);
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
  if (opts.prompt) out.push(`  prompt:   ${opts.prompt.free ? 'free' : `not free (${opts.prompt.reason}: ${opts.prompt.detail})`}`);
  if (opts.wake) out.push(`  wake:     policy ${opts.wake.policy}, ${opts.wake.phase}${opts.wake.reason ? ` (${opts.wake.reason})` : ''}`);
  if (opts.verbose) {
    for (const t of e.tried) {
      out.push(`  ${t.matched ? '✓' : '·'} ${t.ruleId} [${t.state}, ${t.priority}] ${t.region}: ${t.evidence}`);
    }
  }
  return out.join('\n');
}
