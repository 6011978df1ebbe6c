#!/usr/bin/env node
// Entry point. A known command name runs that CLI command; `server` runs the workspace server;
// anything else opens the dashboard (a thin client of the server).
// Each side loads as one bundled file when the build made it (scripts/bundle.mjs), falling back
// to the plain compiled modules: `swb send` must start about as fast as Node itself, and the
// dashboard must draw its first frame quickly. `swb hook` (an agent runs it at every hook) loads
// its own bundle and nothing else: its start-up is the floor of a hook's latency (issue #37), so this
// file imports nothing statically but node:fs.
import { existsSync } from 'node:fs';

function bundled(name: string): string | null {
  const url = new URL(`../${name}`, import.meta.url);
  return existsSync(url) ? url.href : null;
}

/** `swb hook <event>` of a row: the small report program alone (null: not a row's hook, the CLI answers). */
async function runHook(argv: string[]): Promise<number | null> {
  const hookBundle = bundled('hook.mjs');
  const { runHookReport } = (hookBundle ? await import(hookBundle) : await import('../src/cli/hook-report.js')) as typeof import('../src/cli/hook-report.js');
  return runHookReport({ argv, env: process.env, stdinFd: 0, stdout: (t) => process.stdout.write(t), stderr: (t) => process.stderr.write(t) });
}

/**
 * Whether argv opens the dashboard whatever the commands are: nothing, `attach`, or a flag first
 * other than the top-level help and version (cli/main.ts answers those; a flag first names no
 * command there either).
 */
function opensDashboardOnly(argv: readonly string[]): boolean {
  const first = argv[0];
  if (first === undefined || first === 'attach') return true;
  return first.startsWith('-') && first !== '--help' && first !== '-h' && first !== '--version';
}

async function main(argv: string[]): Promise<number> {
  if (argv[0] === 'hook') {
    const status = await runHook(argv.slice(1));
    if (status !== null) return status;
  }
  const [{ startSwbProcess }, { startMark }] = await Promise.all([import('../src/util/swb-process-start.js'), import('../src/util/start-trace.js')]);
  // Before anything copies the environment for a child (src/util/ca-certs-aside.ts says why).
  startSwbProcess();
  // The server needs none of the CLI's commands: it loads its own bundle only (about 50 ms less of
  // every cold start, measured here). The client launches it through its own entry
  // (src/server/server-main.ts); this is `swb server` typed by hand.
  if (argv[0] === 'server' && !argv.includes('--help')) {
    const { runServerEntry } = await import('../src/server/server-entry.js');
    return runServerEntry(argv.slice(1));
  }
  // The dashboard and `swb attach` when argv cannot name a command: the client's own entry, not the
  // CLI's command table (src/cli/dashboard-entry.ts says why). Decided here, before either loads,
  // so that a command (`swb send`) loads nothing more than it did.
  if (opensDashboardOnly(argv)) {
    const dashboardBundle = bundled('cli-bundle/dashboard.mjs');
    const dashboard = (dashboardBundle ? await import(dashboardBundle) : await import('../src/cli/dashboard-entry.js')) as typeof import('../src/cli/dashboard-entry.js');
    startMark('dashboard entry loaded');
    return dashboard.runDashboard(argv);
  }
  const cliBundle = bundled('cli-bundle/cli.mjs');
  const cli = (cliBundle ? await import(cliBundle) : await import('../src/cli/main.js')) as typeof import('../src/cli/main.js');
  startMark('cli loaded');
  const status = await cli.runCli(argv);
  if (status !== null) return status;
  // The dashboard: a thin client of the workspace server, which draws it.
  return cli.runClient(argv);
}

main(process.argv.slice(2)).then(
  (status) => {
    process.exitCode = status;
  },
  (err: unknown) => {
    process.stderr.write(`swb: INTERNAL: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
