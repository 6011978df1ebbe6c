// The dashboard's own way in (`swb`, `swb --layout grid ...`, `swb attach`): the thin client and
// nothing of the CLI's command table. bin/swb.ts loads this alone when the command line cannot name
// a command (empty, `attach`, or a flag first: its opensDashboardOnly): the CLI bundle's table,
// runner and help are some 45 ms of CPU before the client can launch a server or attach (issue
// #33). Everything else goes through cli/main.ts, which opens the dashboard through here too when
// argv names no command. The client is imported statically: one module graph, loaded at once.
import { runAttach } from '../client/attach-client.js';
import { dashboardOptions, type HeadStart } from '../client/dashboard-head-start.js';

/** The dashboard: a thin client of the workspace server (`create`: start one when none runs). */
export function runClient(argv: readonly string[], create = true): Promise<number> {
  return runAttach({ argv, env: process.env, cwd: process.cwd(), create });
}

/**
 * Runs the dashboard, or `swb attach` (argv[0]), for an argv that names no command; `start`: what
 * the dashboard's CommonJS entry's head start of this argv found (dashboard-main.ts).
 */
export function runDashboard(argv: readonly string[], start?: HeadStart): Promise<number> {
  return runAttach(dashboardOptions(argv), start);
}
