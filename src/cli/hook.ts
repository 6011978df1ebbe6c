// `swb hook <event>` in the command table: its help, and the answer to callers that are not a row's
// agent (the operator, `--as NAME`: the hub refuses them, and they hear why). A row's own hook is
// reported by hook-report.ts, which bin/swb.js runs from its own small bundle before the CLI loads:
// an agent starts it at every hook, and its start-up is the floor of a hook's latency (issue #37).
import { hookPayloadFields } from '../agents/hook-payload-fields.js';
import { HOOK_EVENTS } from '../agents/hook-signal.js';
import { UsageError, type CommandDescriptor } from './command.js';
import { runHookReport } from './hook-report.js';

interface StopDecision {
  block: boolean;
  reason: string;
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
    "A second argument (Codex's notify program passes its event's JSON there) is read like stdin. Any problem is said on stderr and the agent goes on (exit 0).",
  async run(ctx) {
    const io = { env: ctx.env, stdinFd: 0, stdout: (t: string) => process.stdout.write(t), stderr: (t: string) => process.stderr.write(t) };
    const asRow = ctx.flags.as === undefined ? await runHookReport({ ...io, argv: ctx.args }) : null;
    if (asRow !== null) return asRow;
    const event = ctx.args[0]!;
    if (!(HOOK_EVENTS as readonly string[]).includes(event)) throw new UsageError(`unknown hook ${JSON.stringify(event)}; the hooks are: ${HOOK_EVENTS.join(', ')}`);
    const payload = ctx.args[1] ?? (await ctx.readStdin(1024 * 1024).catch(() => ''));
    const startedAt = performance.timeOrigin;
    try {
      const client = await ctx.connect({ autoStart: false });
      if (event !== 'stop') {
        await client.request('hook.event', { event, startedAt, ...hookPayloadFields(payload) });
        return 0;
      }
      const decision = await client.request<StopDecision>('hook.stop', { startedAt });
      if (decision.block) process.stdout.write(`${JSON.stringify({ decision: 'block', reason: decision.reason })}\n`);
    } catch (err) {
      // The agent goes on; say why on stderr.
      process.stderr.write(`swb hook ${event}: ${(err as Error).message}\n`);
    }
    return 0;
  },
};
