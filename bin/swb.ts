#!/usr/bin/env node
// Entry point. A known command name runs that CLI command; anything else opens the dashboard.
// Each side loads as one bundled file when the build made it (scripts/bundle.mjs), falling back
// to the plain compiled modules: `swb send` must start about as fast as Node itself, and the
// dashboard must draw its first frame quickly.
import { existsSync } from 'node:fs';

function bundled(name: string): string | null {
  const url = new URL(`../${name}`, import.meta.url);
  return existsSync(url) ? url.href : null;
}

async function main(argv: string[]): Promise<number> {
  const cliBundle = bundled('cli-bundle/cli.mjs');
  const cli = (cliBundle ? await import(cliBundle) : await import('../src/cli/main.js')) as typeof import('../src/cli/main.js');
  const status = await cli.runCli(argv);
  if (status !== null) return status;
  // React's production build (no dev checks) for the dashboard; rows still get the operator's own env.
  const operatorEnv = { ...process.env };
  process.env.NODE_ENV ??= 'production';
  const uiBundle = bundled('dashboard.bundle.mjs');
  const { runDashboard } = (uiBundle ? await import(uiBundle) : await import('../src/app/run-dashboard.js')) as typeof import('../src/app/run-dashboard.js');
  return runDashboard(argv, operatorEnv);
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
