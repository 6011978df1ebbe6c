// Which transcript format an agent writes, by its profile's id, and a fresh parser for it. The agent
// profiles (src/agents/profiles/) already say where each agent keeps its conversation (`resume.
// transcript`); this says how to read usage out of it. An agent not listed records no usage swb can read.
import { ClaudeTranscriptParser } from './claude-transcript-parser.js';
import { CodexRolloutParser } from './codex-rollout-parser.js';
import { GeminiSessionParser } from './gemini-session-parser.js';
import type { TranscriptParser } from './transcript-parser.js';

export type UsageFormat = 'claude' | 'codex' | 'gemini';

const FORMAT_OF_PROFILE: Readonly<Record<string, UsageFormat>> = { claude: 'claude', codex: 'codex', gemini: 'gemini' };

export function usageFormatOf(profileId: string): UsageFormat | null {
  return Object.hasOwn(FORMAT_OF_PROFILE, profileId) ? FORMAT_OF_PROFILE[profileId]! : null;
}

export function parserFor(format: UsageFormat): TranscriptParser {
  switch (format) {
    case 'claude':
      return new ClaudeTranscriptParser();
    case 'codex':
      return new CodexRolloutParser();
    case 'gemini':
      return new GeminiSessionParser();
  }
}
