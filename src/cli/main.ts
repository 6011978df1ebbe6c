// The CLI side of `swb`: runs a command and returns its exit status, or null when argv does not
// name a command (then bin/swb.ts opens the dashboard). Bundled into dist/cli.bundle.mjs so that
// `swb send` in an agent's shell loads one file, not two dozen modules.
import { isCommandName } from '../config/command-names.js';
import { COMMANDS } from './commands.js';
import { runCommand } from './run-command.js';
import { packageVersion } from '../util/package-root.js';
import { printTopLevelHelp } from '../config/top-level-help.js';

export async function runCli(argv: readonly string[]): Promise<number | null> {
  const [first, ...rest] = argv;
  if (first === 'help' || first === '--help' || first === '-h') {
    printTopLevelHelp();
    return 0;
  }
  if (first === '--version') {
    process.stdout.write(`${packageVersion()}\n`);
    return 0;
  }
  if (first === 'attach') return runClient(rest, false);
  // An own name only: `swb constructor` is a ROW to check, not Object's constructor.
  const entry = first !== undefined && isCommandName(first) ? COMMANDS[first] : undefined;
  if (!entry) return null;
  const cmd = await entry.load();
  return runCommand(cmd, rest, {
    stdout: (t) => process.stdout.write(t),
    stderr: (t) => process.stderr.write(t),
    stdin: process.stdin,
    env: process.env,
    cwd: process.cwd(),
  });
}

/** The dashboard: a thin client of the workspace server (`create`: start one when none runs). */
export async function runClient(argv: readonly string[], create = true): Promise<number> {
  const dashboard = await import('./dashboard-entry.js');
  return dashboard.runClient(argv, create);
}
