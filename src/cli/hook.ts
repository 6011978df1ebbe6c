// `swb hook <event>`: a row agent's own hook (see the profiles' `native` recipes: Claude Code runs it
// at UserPromptSubmit, PreToolUse, Stop, Notification, ...). It reports the event to the row's hub as
// the row — the second signal of the row's state, fused with its screen (issue #37) — and for `stop`
// asks whether the row has unread mail, printing the decision that blocks the stop with a reason
// telling the agent to read it. It runs on the agent's every tool call, so it loads nothing it does not
// need and never fails the agent for swb's sake: any problem is said on stderr and the agent goes on.
import { HOOK_EVENTS } from '../agents/hook-signal.js';
import { UsageError, type CommandDescriptor } from './command.js';

interface StopDecision {
  block: boolean;
  reason: string;
}

/** The payload fields swb reads, from the hook's JSON on stdin (anything else is ignored). */
function payloadFields(text: string): { notificationType?: string; toolName?: string } {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return {};
  }
  if (!v || typeof v !== 'object') return {};
  const o = v as Record<string, unknown>;
  const out: { notificationType?: string; toolName?: string } = {};
  if (typeof o.notification_type === 'string') out.notificationType = o.notification_type.slice(0, 64);
  if (typeof o.tool_name === 'string') out.toolName = o.tool_name.slice(0, 128);
  return out;
}

export const hookCommand: CommandDescriptor = {
  name: 'hook',
  summary: "An agent's own hook: reports its turn to the row's state, and at a stop tells it of unread mail.",
  usage: `<${HOOK_EVENTS.join('|')}>`,
  minArgs: 1,
  maxArgs: 2,
  json: false,
  flags: [],
  details:
    'Rows of a profile with a native hook recipe get it without any config of yours. `stop` answers in Claude Code\'s hook protocol: {"decision":"block","reason":...} or nothing; the other events print nothing. ' +
    "A second argument (Codex's notify program passes its event's JSON there) is read like stdin.",
  async run(ctx) {
    const event = ctx.args[0]!;
    if (!(HOOK_EVENTS as readonly string[]).includes(event)) throw new UsageError(`unknown hook ${JSON.stringify(event)}; the hooks are: ${HOOK_EVENTS.join(', ')}`);
    // Codex passes its event as an argument and gives no stdin: read stdin only when no argument came.
    const payload = ctx.args[1] ?? (await ctx.readStdin(1024 * 1024).catch(() => ''));
    // The process's own start: the agent's background hooks may report out of order.
    const startedAt = performance.timeOrigin;
    try {
      const client = await ctx.connect({ autoStart: false });
      if (event !== 'stop') {
        await client.request('hook.event', { event, startedAt, ...payloadFields(payload) });
        return 0;
      }
      const decision = await client.request<StopDecision>('hook.stop', { startedAt });
      if (decision.block) process.stdout.write(`${JSON.stringify({ decision: 'block', reason: decision.reason })}\n`);
    } catch (err) {
      // The agent goes on; say why on stderr (Claude shows it in verbose mode only).
      process.stderr.write(`swb hook ${event}: ${(err as Error).message}\n`);
    }
    return 0;
  },
};
