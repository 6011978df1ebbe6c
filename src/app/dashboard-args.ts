// The dashboard's command line (`swb [flags] [ROW ...]`, `swb attach [ROW ...]`) checked as a usage
// matter, before anything starts: the thin client runs this before it launches a server, so a typo
// (`swb sned @claude hi`) answers USAGE with the nearest command and exit 2 instead of starting the
// workspace's server, which would restore every recorded row. The server's launch plan runs the
// same check again (its PATH may differ), so there is one definition of a bad ROW.
// The agent profiles are read only when some ROW names a program found nowhere (the one case they
// decide), so a dashboard with no rows given, or rows that are plainly programs, reads no profile —
// and loads no profile code: load-profiles brings the profile schema and zod, about 100 ms of CPU
// on the thin client's path to launching the server (issue #33), so it is imported only then.
import { parseFlags, UsageError } from '../util/parse-flags.js';
import { COMMAND_NAMES } from '../config/command-names.js';
import { missingProgram, nearest } from '../config/row-command-check.js';
import { parseRowArg } from '../config/row-spec.js';

export const DASHBOARD_FLAGS = [
  { name: 'config', type: 'string' as const, value: 'FILE', description: 'config file' },
  { name: 'workspace', type: 'string' as const, value: 'NAME', description: 'workspace name' },
  { name: 'layout', type: 'string' as const, value: 'stack|grid', description: 'initial layout' },
  { name: 'theme', type: 'string' as const, value: 'NAME', description: 'theme' },
  { name: 'help', type: 'boolean' as const, description: 'help' },
];

export type DashboardArgsCheck = { help: true } | { usage: string } | { ok: true };

/**
 * `--help` asked, the first usage problem (a sentence starting `row "ARG": ...`, or a flag's), or ok.
 * `profileIds`, when given, are used as they are; otherwise they are read only when needed.
 */
export async function checkDashboardArgs(argv: readonly string[], env: NodeJS.ProcessEnv, cwd: string, profileIds?: readonly string[]): Promise<DashboardArgsCheck> {
  let parsed: ReturnType<typeof parseFlags>;
  try {
    parsed = parseFlags([...argv], DASHBOARD_FLAGS);
  } catch (err) {
    if (err instanceof UsageError) return { usage: err.message };
    throw err;
  }
  if (parsed.flags.help) return { help: true };
  const layout = parsed.flags.layout as string | undefined;
  if (layout !== undefined && layout !== 'stack' && layout !== 'grid') return { usage: '--layout must be stack or grid' };
  // First as if no word were a profile: only a program found nowhere needs the profiles to tell.
  const problem = rowsProblem(parsed.args, profileIds ?? [], env, cwd);
  if (problem === null || profileIds !== undefined) return problem === null ? { ok: true } : { usage: problem };
  const { loadProfiles } = await import('../agents/load-profiles.js');
  const known = [...loadProfiles({ env }).profiles.keys()];
  const exact = rowsProblem(parsed.args, known, env, cwd);
  return exact === null ? { ok: true } : { usage: exact };
}

function rowsProblem(args: readonly string[], profileIds: readonly string[], env: NodeJS.ProcessEnv, cwd: string): string | null {
  for (const arg of args) {
    const problem = rowArgProblem(arg, profileIds, env, cwd);
    if (problem !== null) return problem;
  }
  return null;
}

/** What is wrong with one ROW argument (a usage problem), or null. */
export function rowArgProblem(arg: string, profileIds: readonly string[], env: NodeJS.ProcessEnv, cwd: string): string | null {
  const r = parseRowArg(arg, profileIds);
  if (!r.ok) return `row ${JSON.stringify(arg)}: ${r.problem}`;
  const missing = !r.spec.nameGiven && r.spec.command !== undefined ? missingProgram(r.spec.command, env, cwd) : null;
  return missing === null ? null : notARow(arg, missing, profileIds);
}

/** The usage error for a ROW whose program is nowhere: most likely a mistyped subcommand or profile. */
function notARow(arg: string, program: string, profileIds: readonly string[]): string {
  const command = nearest(program, COMMAND_NAMES);
  const profile = nearest(program, profileIds);
  const hint = command ? ` Did you mean \`swb ${command}\`?` : profile ? ` Did you mean the profile ${profile}?` : '';
  return (
    `row ${JSON.stringify(arg)}: "${program}" is not a swb command, an agent profile or a program on PATH.${hint}\n` +
    `Rows are profiles (${profileIds.join(', ')}) or command lines; name one with NAME=COMMAND to run it anyway. Try: swb --help`
  );
}
