// One way to turn "a new row, please" into a row spec, for the dashboard's N dialog and for
// `swb new`: a profile or a command line, an optional name, a working directory that must exist.
// A derived name that is taken gets a suffix (claude-2); a name the operator gave must be free.
import { isAbsolute } from 'node:path';
import type { ProfileSet } from '../agents/load-profiles.js';
import { isDirectory, rowSpecFor } from '../app/launch-plan.js';
import { missingProgram } from '../config/row-command-check.js';
import { assignUniqueNames, parseRowArg, type RowSpec as ConfigRowSpec } from '../config/row-spec.js';
import type { ErrorCode } from '../protocol/error-codes.js';
import { isValidHandle, HANDLE_HINT } from '../protocol/handle.js';
import type { RowSpec } from '../rows/row.js';

export interface NewRowInput {
  profiles: ProfileSet;
  env: NodeJS.ProcessEnv;
  /** Names of the rows that run now. */
  taken: readonly string[];
  name?: string;
  profile?: string;
  /** A shell command line (the program is looked up on PATH first). */
  line?: string;
  cwd: string;
}

export type NewRowPlan = { spec: RowSpec } | { code: ErrorCode; problem: string };

export function planNewRow(o: NewRowInput): NewRowPlan {
  if (!isAbsolute(o.cwd) || !isDirectory(o.cwd)) return { code: 'BAD_REQUEST', problem: `the working directory ${o.cwd} does not exist (or is not a directory)` };
  if (o.name !== undefined && o.name !== '' && !isValidHandle(o.name)) return { code: 'BAD_REQUEST', problem: `the name ${JSON.stringify(o.name)}: ${HANDLE_HINT}` };
  const profileIds = [...o.profiles.profiles.keys()];
  if (o.profile !== undefined && !profileIds.includes(o.profile)) {
    return { code: 'BAD_REQUEST', problem: `there is no agent profile ${o.profile} (known: ${profileIds.join(', ')})` };
  }
  let spec: ConfigRowSpec;
  if (o.line !== undefined && o.line !== '') {
    const parsed = parseRowArg(o.line, profileIds);
    if (!parsed.ok) return { code: 'BAD_REQUEST', problem: parsed.problem };
    spec = parsed.spec;
    if (spec.command !== undefined) {
      const missing = missingProgram(spec.command, o.env, o.cwd);
      if (missing !== null) return { code: 'BAD_REQUEST', problem: `"${missing}" is not an agent profile or a program on PATH` };
    }
    if (o.profile !== undefined) spec = { ...spec, profile: o.profile };
  } else if (o.profile !== undefined) {
    spec = { name: o.profile, nameGiven: false, profile: o.profile };
  } else {
    return { code: 'BAD_REQUEST', problem: 'give a profile or a command' };
  }
  spec = { ...spec, cwd: o.cwd, ...(o.name ? { name: o.name, nameGiven: true } : {}) };
  if (o.taken.includes(spec.name)) {
    if (spec.nameGiven) return { code: 'ROW_EXISTS', problem: `a row named ${spec.name} runs already; pick another name` };
    spec = assignUniqueNames([spec], [...o.taken, 'operator', 'all'])[0]!;
  }
  return { spec: rowSpecFor(spec, o.profiles.profiles) };
}
