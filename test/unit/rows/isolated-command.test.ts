import { describe, expect, test } from 'vitest';
import { fdIsolationAvailable, isolatedCommand } from '../../../src/rows/isolated-command.js';

describe('isolatedCommand', () => {
  test.runIf(process.platform === 'linux' && fdIsolationAvailable())('wraps the program in bash, passing its argv through unchanged', () => {
    const cmd = isolatedCommand('/usr/bin/env', ['a b', '$HOME', "it's"]);
    expect(cmd.file).toMatch(/\/bash$/);
    expect(cmd.args.slice(0, 2)).toEqual(['--posix', '-c']);
    expect(cmd.args.slice(3)).toEqual(['swb-exec', '/usr/bin/env', 'a b', '$HOME', "it's"]);
  });

  test.runIf(process.platform === 'darwin')('leaves the command alone where node-pty does not leak', () => {
    expect(isolatedCommand('/bin/ls', ['-l'])).toEqual({ file: '/bin/ls', args: ['-l'] });
  });
});
