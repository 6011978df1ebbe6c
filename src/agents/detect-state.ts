// The detector: a pure function of one screen snapshot and one profile. Rules are tried from the
// highest priority down; the first that matches decides the state. No clock, no emulator, no memory:
// quiet time and debouncing live in StateTracker.
import type { ScreenSnapshot } from '../rows/screen-snapshot.js';
import { evaluateMatcher } from './evaluate-matcher.js';
import type { AgentProfile, AgentState } from './profile-schema.js';
import { findPromptLine, regionText } from './screen-region.js';

export interface RuleTrial {
  ruleId: string;
  state: AgentState;
  priority: number;
  matched: boolean;
  /** Matched text on a match, the reason it failed otherwise. */
  evidence: string;
  region: string;
}

export interface Detection {
  state: AgentState;
  /** The rule that decided, or null when none matched (state `unknown`). */
  ruleId: string | null;
  /** Description of the region the deciding rule read. */
  region: string;
  evidence: string;
  /** Every rule evaluated, in order, up to and including the one that decided. */
  tried: RuleTrial[];
  profileId: string;
}

export function detectState(snapshot: ScreenSnapshot, profile: AgentProfile): Detection {
  const tried: RuleTrial[] = [];
  let promptLine: number | undefined;
  for (const rule of profile.rules) {
    if (rule.region.kind === 'abovePrompt' && promptLine === undefined) promptLine = findPromptLine(snapshot, profile);
    const region = regionText(snapshot, rule.region, profile, promptLine);
    const outcome =
      region.lines.length === 0 ? { matched: false, evidence: 'region is empty' } : evaluateMatcher(rule.match, region.lines);
    tried.push({
      ruleId: rule.id,
      state: rule.state,
      priority: rule.priority,
      matched: outcome.matched,
      evidence: outcome.evidence,
      region: region.description,
    });
    if (outcome.matched) {
      return { state: rule.state, ruleId: rule.id, region: region.description, evidence: outcome.evidence, tried, profileId: profile.id };
    }
  }
  return {
    state: 'unknown',
    ruleId: null,
    region: '',
    evidence: profile.rules.length === 0 ? `profile "${profile.id}" has no rules` : 'no rule matched',
    tried,
    profileId: profile.id,
  };
}
