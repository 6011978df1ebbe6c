// The server's ClientDesk (src/app/client-desk.ts): what any client — the terminal dashboard, a
// browser later — asks of the server beyond mail, carried out once here against the row fleet,
// git worktrees and the launch plan. Built once per server and handed to every client session,
// so two kinds of client cannot start, close or review rows two different ways.
import { join } from 'node:path';
import type { ProfileSet } from '../agents/load-profiles.js';
import { fleetDesk, type ClientDesk, type RowUsageStatus } from '../app/client-desk.js';
import type { WorktreesConfig } from '../config/config-schema.js';
import { removeWorktree } from '../worktree/worktree.js';
import { planNewRow } from './new-row.js';
import { reviewLines } from './review-lines.js';
import type { ServerCore } from './server-core.js';
import { startWorktreeRow } from './worktree-rows.js';

export interface ServerDeskSettings {
  /** The server's profiles and environment, for new rows. */
  profiles: ProfileSet;
  env: NodeJS.ProcessEnv;
  /** Where worktree rows go and what prepares them (the config's `worktrees`). */
  worktrees?: WorktreesConfig;
  /** The server's run directory (copies go in its `copies/`). */
  runDir: string;
  /** Agent rows' usage (the server's usage board). */
  usage?: RowUsageStatus;
}

export function serverDesk(core: ServerCore, settings: ServerDeskSettings): ClientDesk {
  const { fleet } = core;
  const base = fleetDesk(fleet);
  return {
    ...base,
    worktrees: core.worktrees,
    mutes: core.notifications.mutes,
    ...(settings.usage ? { usage: settings.usage } : {}),
    pasteBuffer: core.pasteBuffer,
    auditLogPath: core.auditLogPath,
    copiesDir: join(settings.runDir, 'copies'),
    profileIds: [...settings.profiles.profiles.keys()],
    // Rows a client names start together: their agents' first launches share one batch.
    startRows: (rows, sizeOf) => core.launchTogether(() => base.startRows(rows, sizeOf)),
    newRow: (request, size) => {
      const taken = fleet.list().map((r) => r.name);
      const plan = planNewRow({ profiles: settings.profiles, env: settings.env, taken, ...(request.name ? { name: request.name } : {}), line: request.what, cwd: request.cwd });
      if ('problem' in plan) return { problem: plan.problem };
      const { spec } = plan;
      if (request.worktree !== undefined) {
        // git makes the worktree first; the row shows up once it exists.
        const branch = request.worktree;
        const worktree = startWorktreeRow(fleet, settings.worktrees, { spec, ...(branch ? { branch } : {}), size }).then((r) => {
          if ('error' in r) return { problem: `${r.error.code}: ${r.error.message}` };
          return { path: r.ok.row.spec.worktree!.path, branch: r.ok.row.spec.worktree!.branch, skipped: r.ok.skipped };
        });
        return { name: spec.name, worktree };
      }
      try {
        fleet.add(spec, size);
      } catch (err) {
        return { problem: `it did not start: ${(err as Error).message}` };
      }
      return { started: spec.name };
    },
    review: (name) => reviewLines(fleet, name),
    removeWorktree: async (name) => {
      const info = fleet.get(name)?.spec.worktree;
      if (!info) return { problem: 'it does not run in a worktree' };
      const r = await removeWorktree(info, {});
      if ('error' in r) return { problem: `${r.error.code}: ${r.error.message}` };
      fleet.close(name);
      return { ok: true };
    },
  };
}
