// The dashboard's own entry, the file bin/swb runs for every command line whose first word names no
// command (`swb`, `swb attach`, `swb ROW ...`, a flag first: bin/swb's case knows the commands). The
// build bundles it into one CommonJS file, dist/src/cli/dashboard-main.cjs (scripts/bundle.mjs), with
// only the head start in it (src/client/dashboard-head-start.ts): node reaches a CommonJS entry's
// first statement sooner than an ES module's (no module loader to set up first:
// src/server/server-main.ts measured 10-20 ms), and the head start starts a server this dashboard
// needs before the rest of the client loads (the ES module bundle, imported after it).
// `node dist/bin/swb.js` still opens the dashboard its own way, with the head start inside the client.
import { existsSync } from 'node:fs';
import { exitWhenSettled, startSwbProcess } from '../util/swb-process-start.js';
import { startMark } from '../util/start-trace.js';
import { dashboardHeadStart } from '../client/dashboard-head-start.js';

startSwbProcess();
exitWhenSettled(runDashboardMain(process.argv.slice(2)));

async function runDashboardMain(argv: readonly string[]): Promise<number> {
  const start = await dashboardHeadStart(argv);
  startMark('head start');
  const bundle = new URL('../../cli-bundle/dashboard.mjs', import.meta.url);
  // The bundle when the build made it (it does, with this file), else the plain modules.
  const dashboard = (existsSync(bundle) ? await import(bundle.href) : await import('./dashboard-entry.js')) as typeof import('./dashboard-entry.js');
  startMark('dashboard entry loaded');
  return dashboard.runDashboard(argv, start);
}
