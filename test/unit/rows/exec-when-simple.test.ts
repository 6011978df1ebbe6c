import { describe, expect, it } from 'vitest';
import { execWhenSimple } from '../../../src/rows/row-process.js';

describe('execWhenSimple', () => {
  it('execs a simple command line, so dash does not stay behind as the program’s parent', () => {
    expect(execWhenSimple('sh')).toBe('exec sh');
    expect(execWhenSimple(' claude --model opus ')).toBe('exec claude --model opus');
    expect(execWhenSimple(`vim 'my file.txt'`)).toBe(`exec vim 'my file.txt'`);
  });

  it('leaves lines with operators, expansions, assignments or an exec of their own as they are', () => {
    for (const line of ['a && b', 'echo $HOME', 'FOO=1 prog', 'exec top', 'sleep 1; echo x', 'cat <file', 'x | y', `trap '' HUP; sleep 60`, 'cd /tmp', 'ulimit -n 100']) {
      expect(execWhenSimple(line)).toBe(line);
    }
  });
});
