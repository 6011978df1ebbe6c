// `swb sned @claude hello` used to open a dashboard of three rows that each exited 127: every
// argument that is not a profile is taken as a command line. A command-line ROW whose program is
// not on PATH, not a path that exists, and not shell syntax is far more likely a mistyped
// subcommand or profile, so it is a usage error that names the nearest of those.
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import { shellWords } from './row-spec.js';

/** Words a POSIX shell runs itself (builtins and keywords): a command line may start with them. */
const SHELL_WORDS = new Set([
  '.', ':', '[', 'alias', 'bg', 'break', 'case', 'cd', 'command', 'continue', 'echo', 'eval', 'exec', 'exit', 'export',
  'false', 'fg', 'for', 'function', 'getopts', 'hash', 'if', 'jobs', 'kill', 'local', 'printf', 'pwd', 'read', 'readonly',
  'return', 'select', 'set', 'shift', 'source', 'test', 'time', 'times', 'trap', 'true', 'type', 'ulimit', 'umask',
  'unalias', 'unset', 'until', 'wait', 'while', '{', '(', '!',
]);

/** The program word of `command` when it cannot run (not found anywhere), else null. */
export function missingProgram(command: string, env: NodeJS.ProcessEnv, cwd: string): string | null {
  const words = shellWords(command);
  const first = words.find((w) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(w));
  if (first === undefined || SHELL_WORDS.has(first) || /^[({!]/.test(first) || /[;|&<>`$()]/.test(first)) return null;
  if (first.includes('/')) return isFile(isAbsolute(first) ? first : resolve(cwd, first)) ? null : first;
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir !== '' && isExecutable(join(dir, first))) return null;
  }
  return first;
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** The candidate nearest to `word` (at most two edits away, and closer than half its length), or null. */
export function nearest(word: string, candidates: readonly string[]): string | null {
  let best: string | null = null;
  let bestDistance = Infinity;
  for (const c of candidates) {
    const d = editDistance(word.toLowerCase(), c.toLowerCase());
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  return best !== null && bestDistance <= Math.min(2, Math.ceil(word.length / 2)) ? best : null;
}

/** Damerau-Levenshtein (optimal string alignment): a swapped pair of letters counts as one edit. */
function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}
