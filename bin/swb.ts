#!/usr/bin/env node
// Entry point. A known command name runs that CLI command; anything else opens the dashboard.
// Modules load lazily so agent-side commands (`swb send`) start about as fast as Node itself.
import { existsSync } from 'node:fs';
import { COMMANDS } from '../src/cli/commands.js';

async function main(argv: string[]): Promise<number> {
  const [first, ...rest] = argv;
  if (first === 'help' || first === '--help' || first === '-h') {
    const { printTopLevelHelp } = await import('../src/cli/top-level-help.js');
    printTopLevelHelp();
    return 0;
  }
  if (first === '--version') {
    const { packageVersion } = await import('../src/cli/top-level-help.js');
    process.stdout.write(`${packageVersion()}\n`);
    return 0;
  }
  const entry = first !== undefined ? COMMANDS[first] : undefined;
  if (entry) {
    const { runCommand } = await import('../src/cli/run-command.js');
    const cmd = await entry.load();
    return runCommand(cmd, rest, {
      stdout: (t) => process.stdout.write(t),
      stderr: (t) => process.stderr.write(t),
      stdin: process.stdin,
      env: process.env,
      cwd: process.cwd(),
    });
  }
  // React's production build (no dev checks) for the dashboard; rows still get the operator's own env.
  const operatorEnv = { ...process.env };
  process.env.NODE_ENV ??= 'production';
  // The bundled dashboard (scripts/bundle-dashboard.mjs) starts much faster; the plain modules
  // are the fallback when it was not built.
  const bundle = new URL('../dashboard.bundle.mjs', import.meta.url);
  const { runDashboard } = (existsSync(bundle)
    ? await import(bundle.href)
    : await import('../src/app/run-dashboard.js')) as typeof import('../src/app/run-dashboard.js');
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
