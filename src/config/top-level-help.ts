// `swb --help`: the usage of the dashboard, `attach`, `server` and every command with its summary.
// Printed by the CLI (`swb help`) and by the thin client (`swb --help ROW...`), so it sits below both,
// beside the command names it lists.
import { COMMAND_NAMES, COMMAND_SUMMARIES } from './command-names.js';

export function printTopLevelHelp(): void {
  const lines = [
    'Usage: swb [--config FILE] [--workspace NAME|DIR] [--layout stack|grid] [--theme NAME] [--fresh] [ROW ...]',
    '                                          open the dashboard of the workspace server (starting it,',
    '                                          --fresh: without the rows it recorded); each ROW is a',
    '                                          profile, a command line, or NAME=COMMAND, added to it',
    '       swb attach [ROW ...]               open the dashboard of the server that runs (d detaches)',
    '       swb server [--fresh]               run the workspace server here (swb starts it detached)',
    '       swb COMMAND [options]              talk to the hub',
    '',
    'Commands:',
    ...COMMAND_NAMES.map((name) => `  ${name.padEnd(11)} ${COMMAND_SUMMARIES[name]}`),
    '',
    'Every command takes --help, --json, --as NAME, --workspace NAME|DIR and --timeout S.',
    'Exit status: 0 ok, 1 refused or failed (the error names its code), 2 usage.',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}
