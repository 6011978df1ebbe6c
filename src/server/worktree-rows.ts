// Starting a row in a git worktree of its own (issue #12), for `swb new --worktree`, the new-row
// dialog and config rows with `worktree`: plan the worktree, make it (copying `.worktreeinclude`
// files), and start the row there — its first launch preceded by the configured setup command, run
// inside the row so its output is the row's first screen. The row's spec records the worktree.
import type { WorktreesConfig } from '../config/config-schema.js';
import type { Row, RowSpec } from '../rows/row.js';
import type { RowCommand } from '../rows/row-process.js';
import type { WakePolicy } from '../agents/wake-controller.js';
import { checkGitVersion, GitError } from '../worktree/git.js';
import type { SkippedFile } from '../worktree/skipped-files.js';
import { createWorktree, planWorktree, type Outcome } from '../worktree/worktree.js';
import type { RowFleet } from '../supervisor/row-fleet.js';

const DEFAULT_SETUP_TIMEOUT_S = 300;

export interface WorktreeRowRequest {
  /** The row as planned (its name decided, its cwd the directory the operator asked from). */
  spec: RowSpec;
  branch?: string;
  base?: string;
  reuseBranch?: boolean;
  wake?: WakePolicy;
  size: { cols: number; rows: number };
}

export async function startWorktreeRow(fleet: RowFleet, settings: WorktreesConfig | undefined, r: WorktreeRowRequest): Promise<Outcome<{ row: Row; copied: string[]; skipped: SkippedFile[] }>> {
  try {
    await checkGitVersion();
  } catch (err) {
    if (err instanceof GitError) return { error: { code: 'GIT_FAILED', message: err.message } };
    throw err;
  }
  const cwd = r.spec.cwd ?? process.cwd();
  const plan = await planWorktree({
    cwd,
    name: r.spec.name,
    ...(r.branch !== undefined ? { branch: r.branch } : {}),
    ...(r.base !== undefined ? { base: r.base } : {}),
    ...(r.reuseBranch ? { reuseBranch: true } : {}),
    ...(settings?.root !== undefined ? { root: settings.root } : {}),
  });
  if ('error' in plan) return plan;
  // Another request may have taken the name while git ran.
  if (fleet.has(r.spec.name)) return { error: { code: 'ROW_EXISTS', message: `a row named ${r.spec.name} runs already` } };
  const made = await createWorktree(plan.ok);
  if ('error' in made) return made;
  const { repo, path, branch, base } = plan.ok;
  const spec: RowSpec = { ...r.spec, cwd: path, worktree: { repo, path, branch, base } };
  const setup = settings?.setup;
  try {
    const row = fleet.add(spec, r.size, {
      ...(r.wake ? { wake: r.wake } : {}),
      ...(setup ? { firstLaunch: (launch: RowSpec) => withSetup(launch, setup, settings?.setupTimeoutS ?? DEFAULT_SETUP_TIMEOUT_S) } : {}),
    });
    return { ok: { row, copied: made.ok.copied, skipped: made.ok.skipped } };
  } catch (err) {
    return { error: { code: 'BAD_REQUEST', message: `the row did not start in ${path}: ${(err as Error).message}` } };
  }
}

/**
 * The launch with the setup command first: `sh -c` runs it under `timeout`, says how it ended when it
 * failed, then execs the row's own program (so the program is the row's, as without setup).
 */
export function withSetup(spec: RowSpec, setup: string, timeoutS: number): RowSpec {
  const script =
    'printf "swb: worktree setup: %s\\n" "$2"; timeout "$1" sh -c "$2"; s=$?; ' +
    '[ "$s" -eq 0 ] || printf "swb: the worktree setup %s (status %s)\\n" "$([ "$s" -eq 124 ] && echo timed out || echo failed)" "$s"; shift 2; exec "$@"';
  const program = argvOf(spec.command);
  const command: RowCommand = { file: '/bin/sh', args: ['-c', script, 'swb-setup', String(timeoutS), setup, ...program] };
  return { ...spec, command };
}

function argvOf(command: RowSpec['command']): string[] {
  if (typeof command === 'string') return ['/bin/sh', '-c', command];
  if ('shell' in command) return ['/bin/sh', '-c', command.shell];
  return [command.file, ...(command.args ?? [])];
}
