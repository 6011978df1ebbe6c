// The one place a hook's JSON payload is read for the fields swb uses (issue #37). Both hook clients
// meet here: the node hook (src/cli/hook-report.ts) picks them from the whole payload itself and sends
// them as they are; the native one (native/hook-client.c) sends the payload's top-level string fields,
// bounded, as `payload`, and the hub picks them here (src/hub/rpc-handlers.ts). So a new field is added
// once, for both, and the C program never has to know which fields matter.
import { HOOK_PROMPT_MAX_CHARS, HOOK_SESSION_ID, HOOK_WORD } from '../protocol/limits.js';

/** The fields swb reads from a hook's payload (anything else is ignored). */
export interface HookPayloadFields {
  /** Claude Code's and Gemini CLI's Notification hook: which notification. */
  notificationType?: string;
  /** Claude Code's PreToolUse/PostToolUse: which tool. */
  toolName?: string;
  /** Claude Code's SessionStart: why the session (re)started (`clear` ends a turn). */
  source?: string;
  /** Claude Code's PreCompact/PostCompact: `manual` (/compact, which ends a turn) or `auto`. */
  trigger?: string;
  /**
   * The first line of a submitted prompt (UserPromptSubmit): Claude gives a turn interrupted before
   * its answer back as that draft, and the fusion knows it so (fuse-signals.ts, draft-returned).
   */
  prompt?: string;
  /**
   * The agent's conversation (Claude Code's `session_id`): after `/clear` or `/resume` its SessionStart
   * names the conversation it is in now, which a relaunch resumes and usage follows (row-records.ts).
   * Only a plain token: it becomes an argument and a file name's part.
   */
  sessionId?: string;
}

/** The payload fields swb reads, from a hook's JSON text (junk is no fields): bounded as the hub bounds them. */
export function hookPayloadFields(text: string): HookPayloadFields {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return {};
  }
  if (!v || typeof v !== 'object') return {};
  const o = v as Record<string, unknown>;
  const out: HookPayloadFields = {};
  if (typeof o.notification_type === 'string') out.notificationType = o.notification_type.slice(0, 64);
  if (typeof o.tool_name === 'string') out.toolName = o.tool_name.slice(0, 128);
  const source = typeof o.source === 'string' ? o.source.slice(0, 32) : '';
  if (HOOK_WORD.test(source)) out.source = source;
  const trigger = typeof o.trigger === 'string' ? o.trigger.slice(0, 32) : '';
  if (HOOK_WORD.test(trigger)) out.trigger = trigger;
  if (typeof o.prompt === 'string') {
    const first = o.prompt.trimStart().split('\n', 1)[0]!.trim();
    if (first) out.prompt = first.slice(0, HOOK_PROMPT_MAX_CHARS);
  }
  if (typeof o.session_id === 'string' && HOOK_SESSION_ID.test(o.session_id)) out.sessionId = o.session_id;
  return out;
}
