// What the wake controller reads from a row whenever it considers typing: the tracker's state and
// newest screen, the profile's input line on it, how long the screen has been still, and (only where
// the profile asks) the job holding the row's terminal. A function of the tracker and the profile, so
// the wake rules read one row's facts in one place. With the fused verdict (screen and hooks), the
// state is the fused one, a row waiting at its idle prompt counts as idle, and a turn the agent's own
// hook ended skips the quiet time once the screen's rules read idle too (the prompt must still be free).
import type { ForegroundJob } from '../rows/foreground-job.js';
import { detectState } from './detect-state.js';
import type { FusedVerdict } from './fuse-signals.js';
import type { AgentProfile } from './profile-schema.js';
import { readPromptInput, type PromptInput } from './prompt-input.js';
import type { StateTracker } from './state-tracker.js';
import type { PromptStatus } from './wake-controller.js';

const NO_INPUT: PromptInput = {
  found: false,
  lineIndex: -1,
  cursorOnInput: false,
  text: '',
  isEmpty: false,
  dialogOpen: false,
  dialogId: null,
};

export function readPromptStatus(
  tracker: StateTracker,
  profile: AgentProfile,
  /** The job in the foreground of the row's terminal if not the program's own (null: none; undefined: unknown). */
  foregroundJob: (() => ForegroundJob | null | undefined) | undefined,
  fused?: FusedVerdict,
): PromptStatus {
  const snap = tracker.snapshot;
  let input = snap ? readPromptInput(snap, profile) : NO_INPUT;
  if (snap && !input.dialogOpen) {
    // A question on the newest screen blocks as an open dialog. The tracker's verdict is on that
    // screen, except a fresh incarnation's first one, judged only after the snapshot interval.
    const detection = tracker.detection ?? detectState(snap, profile);
    if (detection.state === 'waiting') input = { ...input, dialogOpen: true, dialogId: detection.ruleId };
  }
  const prompt = profile.prompt;
  // Only what the profile asks for: reading /proc for every verdict would be wasted on an agent.
  const job = prompt?.noForegroundJob ? foregroundJob?.() : undefined;
  let state = tracker.state;
  let quietMs = profile.quietMs;
  if (fused) {
    state = fused.state === 'waiting' && fused.reason === 'idle-prompt' ? 'idle' : fused.state;
    // The hook said the turn ended and the screen's rules agree: no quiet time to wait out.
    if (state === 'idle' && fused.won === 'hook' && tracker.detection?.state === 'idle') quietMs = 0;
  }
  return {
    state,
    input,
    stillForMs: tracker.stillForMs(),
    quietMs,
    fullScreen: prompt?.normalScreenOnly === true && snap?.alternateScreen === true,
    foregroundJob: job ? `${job.name || 'a job'} (process group ${job.pgid})` : null,
  };
}
