import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { exitReason, programNotRun } from '../../../src/rows/exit-reason.js';

const spec = (command: { file: string } | { shell: string } | string, cwd?: string) => ({ name: 'r', command, ...(cwd ? { cwd } : {}) });

describe('exitReason', () => {
  test('127 is "command not found" naming the program (a file, or a shell line\u2019s first word); 126 is not executable', () => {
    expect(exitReason({ exitCode: 127, signal: null }, spec({ file: 'claude' }))).toBe('command not found: claude');
    expect(exitReason({ exitCode: 127, signal: null }, spec('codex --model x'))).toBe('command not found: codex');
    expect(exitReason({ exitCode: 126, signal: null }, spec({ shell: '/opt/agent run' }))).toBe('permission denied (not executable): /opt/agent');
  });

  test('any other exit ran the program: no reason, and not "not run"', () => {
    expect(exitReason({ exitCode: 1, signal: null }, spec({ file: 'claude' }))).toBeNull();
    expect(exitReason({ exitCode: 0, signal: null }, spec({ file: 'claude' }))).toBeNull();
    expect(programNotRun({ exitCode: 3, signal: null })).toBe(false);
    expect(programNotRun({ exitCode: 127, signal: 'SIGKILL' })).toBe(false);
  });

  test('a failed start in a working directory that is gone says so, whatever the status', () => {
    const gone = join(tmpdir(), 'swb-no-such-dir-for-exit-reason');
    expect(exitReason({ exitCode: 1, signal: null }, spec({ file: 'claude' }, gone))).toBe(`working directory not found: ${gone}`);
    expect(exitReason({ exitCode: 1, signal: null }, spec({ file: 'claude' }, tmpdir()))).toBeNull();
  });
});
