// What an agent's own hook says about its turn, in swb's words. An agent runs `swb hook <event>` at
// the moments its hook surface names (Claude Code: UserPromptSubmit, PreToolUse, Stop, Notification,
// ...); the hub hears the event's name and the few payload fields that matter, and this table turns
// them into one of a handful of signals the fusion rule (fuse-signals.ts) weighs against the screen.
// One table, so every agent's event names meet swb's meaning in one place.
import type { HookPayloadFields } from './hook-payload-fields.js';

/** Why a row waits for the operator: a tool's permission, a question put to them, or an idle prompt. */
export type WaitingReason = 'permission' | 'question' | 'idle-prompt';
export const WAITING_REASONS: readonly WaitingReason[] = ['permission', 'question', 'idle-prompt'];

/**
 * turn-start: the agent took a prompt; work: it is inside a turn (a tool, a subagent, a compaction);
 * turn-end: the turn is over and the agent is at its prompt; waiting: it stopped for the operator;
 * none: the event says nothing about the turn (a session ending, a notification swb does not know).
 */
export type HookSignalKind = 'turn-start' | 'work' | 'turn-end' | 'waiting' | 'none';

export interface HookSignal {
  kind: HookSignalKind;
  /** Only for `waiting`. */
  reason: WaitingReason | null;
  /** The agent's event as it named it (shown by explain), e.g. `Notification(permission_prompt)`. */
  event: string;
  /**
   * Only for a `turn-start` whose agent said what it took: the prompt's first line (trimmed, bounded).
   * Claude Code gives a turn interrupted before its answer back as a draft, with no hook and nothing
   * in its transcript: that draft in the input of an idle screen is how the fusion knows (rule
   * 'draft-returned', fuse-signals.ts).
   */
  prompt?: string;
  /** Who said it when not a hook: the agent's transcript (ESC_IN_TRANSCRIPT). */
  from?: 'transcript';
}

/**
 * A turn the operator stopped with Esc, read from the agent's transcript as it is written (Claude Code
 * has no hook for it: its `[Request interrupted by user]` line, src/usage/claude-transcript-parser.ts).
 * The fusion weighs it as a hook's end of turn, dated from the line's own time.
 */
export const ESC_IN_TRANSCRIPT: HookSignal = { kind: 'turn-end', reason: null, event: 'Esc (transcript)', from: 'transcript' };

/**
 * One hook's report: its event, the payload fields swb reads (all optional: an agent sends what it
 * has; hook-payload-fields.ts picks and bounds them), and when its process started.
 */
export interface HookReport extends HookPayloadFields {
  event: string;
  /** When the hook process started (ms epoch), to order hooks the agent ran in the background. */
  startedAt?: number;
}

/** The hook events swb's CLI accepts (`swb hook <event>`), lower-case as they are typed. */
export const HOOK_EVENTS = [
  'stop',
  'user-prompt-submit',
  'pre-tool-use',
  'post-tool-use',
  'subagent-stop',
  'notification',
  'permission-request',
  'pre-compact',
  'post-compact',
  'session-start',
  'session-end',
  'stop-failure',
  'turn-end',
  'interrupt',
] as const;

const NOTIFICATION_REASON: Record<string, WaitingReason> = {
  permission_prompt: 'permission',
  worker_permission_prompt: 'permission',
  elicitation_dialog: 'question',
  agent_needs_input: 'question',
  idle_prompt: 'idle-prompt',
  // Gemini CLI's Notification hook: a tool waits for the operator's confirmation.
  ToolPermission: 'permission',
};

/** Claude Code's tool that puts a question to the operator: its PreToolUse means the row waits for them. */
const QUESTION_TOOLS = new Set(['AskUserQuestion']);

const signal = (kind: HookSignalKind, event: string, reason: WaitingReason | null = null): HookSignal => ({ kind, reason, event });

/** The signal one hook report carries. */
export function hookSignalOf(r: HookReport): HookSignal {
  switch (r.event) {
    case 'user-prompt-submit': {
      const s = signal('turn-start', 'UserPromptSubmit');
      const prompt = r.prompt?.trim();
      if (prompt) s.prompt = prompt;
      return s;
    }
    case 'pre-tool-use':
      if (r.toolName !== undefined && QUESTION_TOOLS.has(r.toolName)) return signal('waiting', `PreToolUse(${r.toolName})`, 'question');
      return signal('work', r.toolName ? `PreToolUse(${r.toolName})` : 'PreToolUse');
    case 'post-tool-use':
      // A permission answered yes, or a question answered: the turn goes on.
      return signal('work', r.toolName ? `PostToolUse(${r.toolName})` : 'PostToolUse');
    case 'subagent-stop':
      return signal('work', 'SubagentStop');
    case 'pre-compact':
      return signal('work', r.trigger ? `PreCompact(${r.trigger})` : 'PreCompact');
    case 'post-compact':
      // Claude Code after a compaction: one the operator asked for (`/compact`) is over and Claude is
      // back at its prompt; an automatic one happened inside a turn that goes on.
      return r.trigger === 'manual' ? signal('turn-end', 'PostCompact(manual)') : signal('work', r.trigger ? `PostCompact(${r.trigger})` : 'PostCompact');
    case 'permission-request':
      return signal('waiting', 'PermissionRequest', 'permission');
    case 'notification': {
      const type = r.notificationType ?? '';
      const reason = NOTIFICATION_REASON[type];
      return reason ? signal('waiting', `Notification(${type})`, reason) : signal('none', `Notification(${type || '?'})`);
    }
    case 'stop':
      return signal('turn-end', 'Stop');
    case 'stop-blocked':
      // swb's own Stop hook told the agent of its mail: the turn goes on.
      return signal('work', 'Stop (held for mail)');
    case 'stop-failure':
      return signal('turn-end', 'StopFailure');
    case 'turn-end':
      // Codex's notify program (agent-turn-complete), or any agent's plain end of turn.
      return signal('turn-end', 'turn-end');
    case 'interrupt':
      // Codex's Interrupt hook: the operator stopped the turn (Esc); the agent is back at its prompt.
      return signal('turn-end', 'Interrupt');
    case 'session-start':
      // After `/clear` Claude Code starts a fresh session and is at its prompt (it fires this once the
      // conversation is cleared, its spinner going down with it): the end of what the operator asked.
      if (r.source === 'clear') return signal('turn-end', 'SessionStart(clear)');
      // At a launch or resume it fires before the agent is ready for a prompt (its MCP servers may still
      // be starting): readiness is the screen's to tell (the prompt drawn, then quiet). After a
      // compaction it cannot tell `/compact` from an automatic one mid-turn: PostCompact's trigger does.
      return signal('none', r.source ? `SessionStart(${r.source})` : 'SessionStart');
    case 'session-end':
      return signal('none', 'SessionEnd');
    default:
      return signal('none', r.event);
  }
}
