// Decides whether a row's prompt is free for the multiplexer to type into. Pure: every fact that
// depends on time (quiet time, operator typing) is passed in with `now`.
import type { AgentState } from './profile-schema.js';
import type { PromptInput } from './prompt-input.js';

export type NotFreeReason =
  | 'not-idle'
  | 'dialog-open'
  | 'no-input-line'
  | 'cursor-elsewhere'
  | 'draft'
  | 'screen-not-quiet'
  | 'operator-typing'
  | 'full-screen'
  | 'foreground-job';

export interface FreePromptFacts {
  /** The tracker's reported state (already quiet-time filtered). */
  state: AgentState;
  input: PromptInput;
  /** When the operator last typed into this row, attached or through the composer (ms, same clock as `now`), or null. */
  operatorTypedAt: number | null;
  now: number;
  /** How long the screen has been unchanged. */
  stillForMs: number;
  quietMs: number;
  /** The typing quiet time: the operator's last key blocks wakes for this long (default 5 s), attached or not. */
  operatorGraceMs?: number;
  /** A full-screen program is up (alternate screen) and the profile's prompt is only on the normal screen. */
  fullScreen?: boolean;
  /** The job that holds the row's terminal when it is not the row's program (a shell running vim), or null. */
  foregroundJob?: string | null;
}

export type FreePromptVerdict =
  | { free: true; reason: 'free' }
  | { free: false; reason: NotFreeReason; detail: string; /** when a time-based block ends */ retryInMs?: number };

export const DEFAULT_OPERATOR_GRACE_MS = 5000;

export function isPromptFree(f: FreePromptFacts): FreePromptVerdict {
  const grace = f.operatorGraceMs ?? DEFAULT_OPERATOR_GRACE_MS;
  if (f.operatorTypedAt !== null && f.now - f.operatorTypedAt < grace) {
    const retryInMs = grace - (f.now - f.operatorTypedAt);
    const ago = f.now - f.operatorTypedAt;
    return { free: false, reason: 'operator-typing', detail: `the operator typed here ${ago} ms ago (wakes wait until ${grace} ms pass without a key)`, retryInMs };
  }
  // Whatever the screen looks like: a line of a file in vim can look exactly like a prompt.
  if (f.fullScreen) return { free: false, reason: 'full-screen', detail: 'a full-screen program is up (alternate screen)' };
  if (f.foregroundJob) return { free: false, reason: 'foreground-job', detail: `${f.foregroundJob} is running in the foreground` };
  if (f.input.dialogOpen || f.state === 'waiting')
    return { free: false, reason: 'dialog-open', detail: f.input.dialogId ? `dialog "${f.input.dialogId}" is open` : 'the agent is asking something' };
  if (f.state !== 'idle') return { free: false, reason: 'not-idle', detail: `state is ${f.state}` };
  if (!f.input.found) return { free: false, reason: 'no-input-line', detail: 'the input line is not on screen' };
  if (!f.input.cursorOnInput) return { free: false, reason: 'cursor-elsewhere', detail: 'the cursor is not on the input line' };
  if (!f.input.isEmpty) return { free: false, reason: 'draft', detail: 'the input holds a draft' };
  if (f.stillForMs < f.quietMs) {
    const retryInMs = f.quietMs - f.stillForMs;
    return { free: false, reason: 'screen-not-quiet', detail: `screen still for ${f.stillForMs} of ${f.quietMs} ms`, retryInMs };
  }
  return { free: true, reason: 'free' };
}
