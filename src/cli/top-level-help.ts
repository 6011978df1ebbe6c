import { COMMANDS } from './commands.js';

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
    ...Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(11)} ${c.summary}`),
    '',
    'Every command takes --help, --json, --as NAME, --workspace NAME|DIR and --timeout S.',
    'Exit status: 0 ok, 1 refused or failed (the error names its code), 2 usage.',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}
