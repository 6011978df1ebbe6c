import { SwbError } from '../protocol/error-codes.js';
import { askYesNo } from '../util/ask-yes-no.js';
import type { HubClient } from '../client/hub-client.js';
import type { CommandContext, CommandDescriptor } from './command.js';
import { sleep, systemClock } from '../util/clock.js';

/** A server ends its rows (SIGHUP, SIGKILL after a grace) and then its hub: give it that long. */
const STOP_WAIT_MS = 15_000;

async function processEnds(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = systemClock.now() + timeoutMs;
  for (;;) {
    try {
      process.kill(pid, 0);
    } catch {
      return true;
    }
    if (systemClock.now() > deadline) return false;
    await sleep(25);
  }
}

export const killServerCommand: CommandDescriptor = {
  name: 'kill-server',
  summary: 'End the workspace server and every row it runs (asks first when rows run; operator only).',
  usage: '[--force]',
  maxArgs: 0,
  flags: [{ name: 'force', type: 'boolean', description: 'do not ask, even when rows run' }],
  details:
    'The rows are recorded: the next swb starts them again (agents resume their conversations where their profile can); swb --fresh starts without them. ' +
    'Works on a server of an older swb too. With no server but a headless hub (one a mail command started), stops that hub.',
  async run(ctx) {
    const client = await ctx.connect({ autoStart: false, server: true });
    let force = ctx.flags.force === true;
    for (;;) {
      try {
        const r = await client.request<{ stopping: boolean; rows: number; pid?: number }>('server.stop', { force });
        client.destroy();
        // Done means gone: the next swb must find the workspace free, not a server still ending its rows.
        const gone = r.pid === undefined || (await processEnds(r.pid, STOP_WAIT_MS));
        ctx.result({ ...r, stopped: gone });
        const rows = r.rows > 0 ? `; ${r.rows} row${r.rows === 1 ? '' : 's'} ended` : '';
        ctx.print(gone ? `the server stopped${rows}` : `the server is still stopping after ${STOP_WAIT_MS / 1000} s (pid ${r.pid})`);
        return gone ? 0 : 1;
      } catch (err) {
        // A hub answered, but no server runs: a headless hub (started by a mail command). It has no
        // rows to lose, so it is stopped as it is.
        if (err instanceof SwbError && err.code === 'NO_SERVER') return stopHeadlessHub(ctx, client);
        if (!(err instanceof SwbError) || err.code !== 'ROWS_RUNNING' || force || !process.stdin.isTTY || ctx.json) throw err;
        const yes = await askYesNo(`${err.message.replace(/ \(--force.*$/, '')}. End them? [y/N] `);
        if (yes !== true) {
          ctx.print(yes === null ? 'interrupted: nothing stopped' : 'nothing stopped');
          return 1;
        }
        force = true;
      }
    }
  },
};

async function stopHeadlessHub(ctx: CommandContext, client: HubClient): Promise<number> {
  const r = await client.request<{ stopping: boolean; pid?: number }>('hub.shutdown', {});
  client.destroy();
  const gone = r.pid === undefined || (await processEnds(r.pid, STOP_WAIT_MS));
  ctx.result({ stopping: r.stopping, rows: 0, hub: true, ...(r.pid !== undefined ? { pid: r.pid } : {}), stopped: gone });
  const which = `the headless hub of workspace ${ctx.paths.workspaceId}${r.pid !== undefined ? ` (pid ${r.pid})` : ''}`;
  ctx.print(gone ? `no server ran; ${which} stopped` : `${which} is still stopping after ${STOP_WAIT_MS / 1000} s`);
  return gone ? 0 : 1;
}
