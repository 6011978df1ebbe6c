import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../util/package-root.js';
import { COMMANDS } from './commands.js';

export function packageVersion(): string {
  return (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version;
}

export function printTopLevelHelp(): void {
  const lines = [
    'Usage: swb [--config FILE] [--workspace NAME] [--layout stack|grid] [--theme NAME] [ROW ...]',
    '                                          open the dashboard; each ROW is a profile, a command line,',
    '                                          or NAME=COMMAND',
    '       swb COMMAND [options]              talk to the hub',
    '',
    'Commands:',
    ...Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(8)} ${c.summary}`),
    '',
    'Every command takes --help, --json, --as NAME, --workspace NAME and --timeout S.',
    'Exit status: 0 ok, 1 refused or failed (the error names its code), 2 usage.',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}
