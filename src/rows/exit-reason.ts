// Why a row's program ended without ever running, told from its exit status as shells tell it:
// 127 is "command not found" and 126 "found but not executable" (the exec wrapper and `sh -c` both
// exit so when exec fails). Such an exit says nothing about the program itself — it never started —
// so nothing the program would have decided (refusing a session, say) may be read into it. A row
// whose working directory is gone never starts its program either (the pty's child cannot chdir
// there and exits 1), so that counts too.
import { statSync } from 'node:fs';
import type { RowExit } from './row-process.js';
import type { RowSpec } from './row.js';

export const EXIT_NOT_FOUND = 127;
export const EXIT_NOT_EXECUTABLE = 126;

/** Whether the exit is the shell's "could not run the program" (126 or 127, not a signal). */
export function programNotRun(exit: RowExit): boolean {
  return exit.signal === null && (exit.exitCode === EXIT_NOT_FOUND || exit.exitCode === EXIT_NOT_EXECUTABLE);
}

/** "command not found: claude" for an exit that never ran the program, else null. */
export function exitReason(exit: RowExit, spec: RowSpec): string | null {
  if (exit.signal === null && exit.exitCode !== 0 && spec.cwd !== undefined && !isDirectory(spec.cwd)) return `working directory not found: ${spec.cwd}`;
  if (!programNotRun(exit)) return null;
  const program = programOf(spec);
  return exit.exitCode === EXIT_NOT_FOUND ? `command not found: ${program}` : `permission denied (not executable): ${program}`;
}

/** The program a spec starts: its file, or a shell line's first word. */
export function programOf(spec: RowSpec): string {
  const c = spec.command;
  if (typeof c !== 'string' && 'file' in c) return c.file;
  const line = typeof c === 'string' ? c : c.shell;
  return line.trim().split(/\s+/)[0] ?? line;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
