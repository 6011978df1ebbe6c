// The CLI's flag grammar, now on node:util parseArgs: what it accepts and the words of every usage error
// (the runner prints them and exits 2). These pin the behaviour the hand-written parser had.
import { describe, expect, it } from 'vitest';
import type { FlagSpec } from '../../../src/cli/command.js';
import { parseFlags } from '../../../src/util/parse-flags.js';

const SPECS: FlagSpec[] = [
  { name: 'json', type: 'boolean', description: 'json' },
  { name: 'as', type: 'string', value: 'NAME', description: 'as' },
  { name: 'timeout', type: 'number', value: 'SECONDS', description: 'timeout' },
  { name: 'to', type: 'string', repeatable: true, description: 'to' },
  { name: 'ready-fd', type: 'string', description: 'fd' },
  { name: 'help', type: 'boolean', description: 'help' },
];

const parse = (...argv: string[]) => parseFlags(argv, SPECS);
const usage = (...argv: string[]) => {
  try {
    parse(...argv);
  } catch (err) {
    return { name: (err as Error).name, message: (err as Error).message };
  }
  throw new Error(`no usage error for ${JSON.stringify(argv)}`);
};

describe('parseFlags', () => {
  it('reads --flag value and --flag=value, keeps arguments in order around flags', () => {
    expect(parse('@bob', '--as', 'alice', 'hi there', '--timeout=2.5', '--ready-fd', '3')).toEqual({
      args: ['@bob', 'hi there'],
      flags: { as: 'alice', timeout: 2.5, 'ready-fd': '3' },
    });
    expect(parse('--as=', 'x')).toEqual({ args: ['x'], flags: { as: '' } });
  });

  it('a value flag takes the next word even when it starts with a dash', () => {
    expect(parse('--as', '--json')).toEqual({ args: [], flags: { as: '--json' } });
    expect(parse('--as', '--')).toEqual({ args: [], flags: { as: '--' } });
    expect(parse('--as', '-')).toEqual({ args: [], flags: { as: '-' } });
  });

  it('booleans: bare, =true or =false', () => {
    expect(parse('--json').flags).toEqual({ json: true });
    expect(parse('--json=true').flags).toEqual({ json: true });
    expect(parse('--json=false').flags).toEqual({ json: false });
  });

  it('repeatable flags collect every value, as strings', () => {
    expect(parse('--to', 'a', '--to=b', 'x').flags).toEqual({ to: ['a', 'b'] });
  });

  it('-- ends the flags; a lone - and negative numbers are arguments; -h is --help', () => {
    expect(parse('x', '--', '--json', '-h', '--bogus')).toEqual({ args: ['x', '--json', '-h', '--bogus'], flags: {} });
    expect(parse('-', '-5', '-1.5')).toEqual({ args: ['-', '-5', '-1.5'], flags: {} });
    expect(parse('-h')).toEqual({ args: [], flags: { help: true } });
    // -h means help whether or not the command lists --help (swb server does not).
    expect(parseFlags(['-h'], [])).toEqual({ args: [], flags: { help: true } });
    expect(() => parseFlags(['--help'], [])).toThrow('unknown option --help');
  });

  it('words every usage error as before', () => {
    const u = (message: string) => ({ name: 'UsageError', message });
    expect(usage('--bogus')).toEqual(u('unknown option --bogus'));
    expect(usage('--bogus=1')).toEqual(u('unknown option --bogus'));
    expect(usage('-x')).toEqual(u('unknown option -x (options are long: --name)'));
    expect(usage('-abc')).toEqual(u('unknown option -abc (options are long: --name)'));
    expect(usage('-hx')).toEqual(u('unknown option -hx (options are long: --name)'));
    expect(usage('--json=1')).toEqual(u('--json takes no value'));
    expect(usage('--as')).toEqual(u('--as needs a value (NAME)'));
    expect(usage('x', '--ready-fd')).toEqual(u('--ready-fd needs a value (string)'));
    expect(usage('--timeout', '-1')).toEqual(u('--timeout needs a non-negative number, not "-1"'));
    expect(usage('--timeout=')).toEqual(u('--timeout needs a non-negative number, not ""'));
    expect(usage('--timeout', 'soon')).toEqual(u('--timeout needs a non-negative number, not "soon"'));
    // The first mistake in argv order is the one reported.
    expect(usage('--bogus', '--as')).toEqual(u('unknown option --bogus'));
    expect(usage('--json=x', '--bogus')).toEqual(u('--json takes no value'));
  });

  it('never treats inherited object keys as flags', () => {
    expect(usage('--constructor')).toMatchObject({ message: 'unknown option --constructor' });
    expect(usage('--__proto__')).toMatchObject({ message: 'unknown option --__proto__' });
  });
});
