// `swb hook stop`: an agent's end-of-turn hook (Claude Code's Stop hook; see the claude profile's
// `native`). Reads the hook's JSON on stdin (ignored but for being well-formed), asks the hub whether
// this row has unread mail, and when it does prints the decision that blocks the stop with a reason
// telling the agent to read it. Never fails the agent's stop for swb's sake: any problem lets it stop.
import { UsageError, type CommandDescriptor } from './command.js';

interface StopDecision {
  block: boolean;
  reason: string;
}

export const hookCommand: CommandDescriptor = {
  name: 'hook',
  summary: "An agent's end-of-turn hook: tells it of unread mail without typing (Claude Code's Stop hook).",
  usage: 'stop',
  minArgs: 1,
  maxArgs: 1,
  json: false,
  flags: [],
  details: 'Rows of a profile with a native hook recipe get it without any config of yours. Output follows Claude Code\'s hook protocol: {"decision":"block","reason":...} or nothing.',
  async run(ctx) {
    if (ctx.args[0] !== 'stop') throw new UsageError(`unknown hook ${JSON.stringify(ctx.args[0])}; the hook is: stop`);
    await ctx.readStdin(1024 * 1024).catch(() => '');
    let decision: StopDecision;
    try {
      const client = await ctx.connect({ autoStart: false });
      decision = await client.request<StopDecision>('hook.stop', {});
    } catch (err) {
      // The stop goes ahead; say why on stderr (Claude shows it in verbose mode only).
      process.stderr.write(`swb hook stop: ${(err as Error).message}\n`);
      return 0;
    }
    if (decision.block) process.stdout.write(`${JSON.stringify({ decision: 'block', reason: decision.reason })}\n`);
    return 0;
  },
};
