// The server's answers to `swb ls`, `swb usage`, `swb new`, `swb kill`, `swb kill-server` and the parked-mail
// review, reached through the hub's operator-only `server.*` methods (so they get the hub's
// hardening: peer checks, the operator token refused inside rows, typed errors, deadlines).
import { swbError } from '../protocol/error-codes.js';
import type { ListedRow, ServerControl } from '../hub/server-control.js';
import type { RowUsageBoard } from './row-usage.js';
import { MAX_USAGE_GROUPS } from '../usage/usage-report.js';
import { packageVersion } from '../util/package-root.js';
import type { LaunchPlan } from '../app/launch-plan.js';
import { planNewRow } from './new-row.js';
import { startWorktreeRow } from './worktree-rows.js';
import { findRowWorktree } from '../worktree/find-worktree.js';
import { mergeWorktree, removeWorktree, reviewWorktree, type WorktreeInfo } from '../worktree/worktree.js';
import type { SwbErrorValue } from '../protocol/error-codes.js';
import { describeCommand, restoredMark } from '../supervisor/row-fleet.js';
import type { ServerCore } from './server-core.js';
import { shellQuote } from '../util/shell-quote.js';

/** Size of a row started with no client looking (the first client to attach resizes it). */
const HEADLESS_SIZE = { cols: 120, rows: 32 };

export function serverControl(o: {
  core: ServerCore;
  plan: LaunchPlan;
  stop: (why: string) => void;
  clients: () => number;
  attachedRows: () => ReadonlySet<string>;
  /** A merge moved a row's branch or its base: its header's git status is stale. */
  worktreeChanged?: (row: string) => void;
  /** Each agent row's usage, and the workspace's history (absent: usage is not tracked). */
  usage?: RowUsageBoard;
  /** `swb web`: the browser listener (web-serving.ts). */
  web?: ServerControl['web'];
}): ServerControl {
  const { core, plan } = o;
  const { fleet, port } = core;
  /** The worktree of a running row (a closed one's is gone from here: git still has it). */
  const worktreeOf = (name: string): { ok: WorktreeInfo } | { error: SwbErrorValue } => {
    const row = fleet.get(name);
    if (!row) return { error: swbError('NOT_FOUND', `No row named ${name} runs in this server (swb ls lists them).`) };
    const w = row.spec.worktree;
    if (!w) return { error: swbError('BAD_REQUEST', `Row ${name} does not run in a worktree of its own (swb new --worktree starts one that does).`) };
    return { ok: w };
  };
  return {
    rows() {
      const attached = o.attachedRows();
      const rows: ListedRow[] = fleet.list().map((row) => {
        const agent = row.state === 'exited' ? undefined : core.agents.stateOf(row.name);
        return {
          name: row.name,
          profile: row.spec.profile ?? null,
          command: describeCommand(row.spec),
          running: row.state === 'running',
          pid: row.state === 'running' ? row.pid : null,
          exitCode: row.exit?.exitCode ?? null,
          exitReason: row.state === 'exited' ? fleet.exitReasonOf(row.name) : null,
          state: row.state === 'exited' ? 'exited' : (agent?.state ?? null),
          reason: agent?.reason ?? null,
          unread: port.unreadCount(row.name),
          wake: fleet.policyOf(row.name) ?? null,
          startedAt: row.startedAt,
          restored: restoredMark(fleet.originOf(row.name)),
          attached: attached.has(row.name),
          usage: o.usage?.usageOf(row.name) ?? null,
        };
      });
      return { ok: { rows, clients: o.clients(), pid: process.pid, version: packageVersion() } };
    },

    usage(q) {
      if (!o.usage) return { error: swbError('NOT_FOUND', 'This server does not track usage.') };
      // One reply holds the answer: about 400 bytes a group at most.
      const maxGroups = Math.max(1, Math.min(MAX_USAGE_GROUPS, Math.floor((core.limits.maxReplyBytes - 8192) / 400)));
      return { ok: o.usage.report({ ...q, maxGroups }) };
    },

    async newRow(p) {
      const planned = planNewRow({
        profiles: plan.profiles,
        env: plan.env,
        taken: fleet.list().map((r) => r.name),
        ...(p.name !== undefined ? { name: p.name } : {}),
        ...(p.profile !== undefined ? { profile: p.profile } : {}),
        ...(p.command ? { line: p.command.map(shellQuote).join(' ') } : {}),
        cwd: p.cwd ?? plan.paths.workspace,
      });
      if ('problem' in planned) return { error: swbError(planned.code, sentence(planned.problem)) };
      if (p.worktree) {
        const started = await startWorktreeRow(fleet, plan.worktrees, {
          spec: planned.spec,
          ...(p.worktree.branch !== undefined ? { branch: p.worktree.branch } : {}),
          ...(p.worktree.base !== undefined ? { base: p.worktree.base } : {}),
          ...(p.worktree.reuseBranch ? { reuseBranch: true } : {}),
          size: HEADLESS_SIZE,
        });
        if ('error' in started) return { error: swbError(started.error.code, sentence(started.error.message)) };
        return { ok: { name: started.ok.row.name, worktree: started.ok.row.spec.worktree!, copied: started.ok.copied, skipped: started.ok.skipped } };
      }
      try {
        const row = fleet.add(planned.spec, HEADLESS_SIZE);
        return { ok: { name: row.name } };
      } catch (err) {
        return { error: swbError('BAD_REQUEST', `The row did not start: ${(err as Error).message}.`) };
      }
    },

    async review(name) {
      const info = worktreeOf(name);
      if ('error' in info) return info;
      const r = await reviewWorktree(info.ok);
      if ('error' in r) return { error: swbError(r.error.code, sentence(r.error.message)) };
      // The answer must fit one reply: a long patch is cut (the CLI says where the whole diff is).
      const room = Math.max(16 * 1024, core.limits.maxReplyBytes - 64 * 1024 - JSON.stringify(r.ok.files).length);
      const cut = r.ok.patch.length > room;
      return { ok: { ...r.ok, patch: cut ? r.ok.patch.slice(0, room) : r.ok.patch, truncated: r.ok.truncated || cut, worktree: info.ok } };
    },

    async merge(name, opts) {
      const info = worktreeOf(name);
      if ('error' in info) return info;
      const r = await mergeWorktree(info.ok, opts);
      if ('error' in r) return { error: swbError(r.error.code, sentence(r.error.message)) };
      o.worktreeChanged?.(name);
      return r;
    },

    async removeRow(name, opts) {
      let info = worktreeOf(name);
      if ('error' in info && !fleet.has(name)) {
        // Not running (closed with swb kill, or never restored): its spec while the server
        // remembers it, else git's own list, by the row's name.
        const closed = fleet.closed().find((c) => c.spec.name === name)?.spec.worktree;
        const found = closed ? { ok: closed } : await findRowWorktree(plan.paths.workspace, name, plan.worktrees?.root);
        info = 'error' in found ? { error: swbError(found.error.code, sentence(found.error.message)) } : found;
      }
      if ('error' in info) return info;
      const r = await removeWorktree(info.ok, { force: opts.force, deleteBranch: opts.deleteBranch });
      if ('error' in r) return { error: swbError(r.error.code, sentence(r.error.message)) };
      return { ok: { closed: fleet.has(name) && fleet.close(name), ...r.ok } };
    },

    async interrupt(name) {
      if (!fleet.has(name)) return { error: swbError('NOT_FOUND', `No row named ${name} runs in this server (swb ls lists them).`) };
      const r = await core.agents.interrupt(name);
      if (!r) return { error: swbError('BAD_REQUEST', `Row ${name} has no agent profile, so swb does not know its interrupt key (attach and press it yourself).`) };
      return { ok: r };
    },

    killRow(name) {
      if (!fleet.has(name)) return { error: swbError('NOT_FOUND', `No row named ${name} runs in this server (swb ls lists them).`) };
      return { ok: { closed: fleet.close(name) } };
    },

    async parked(row, action) {
      const r = action === 'redeliver' ? await port.redeliverParked(row) : await port.discardParked(row);
      return r;
    },

    stop(force) {
      const running = fleet.list().filter((r) => r.state === 'running').length;
      if (running > 0 && !force) {
        return { error: swbError('ROWS_RUNNING', `${running} row${running === 1 ? '' : 's'} still run${running === 1 ? 's' : ''}; stopping the server ends them (--force to stop anyway).`, { rows: running }) };
      }
      setImmediate(() => o.stop('swb kill-server'));
      return { ok: { stopping: true, rows: running, pid: process.pid } };
    },
    web(p) {
      if (!o.web) return Promise.resolve({ error: swbError('NOT_FOUND', 'This server does not serve the browser client.') });
      return o.web(p);
    },
  };
}

/** A refusal as one sentence: capitalised, with a full stop. */
function sentence(text: string): string {
  const t = text.trim();
  return `${t.charAt(0).toUpperCase()}${t.slice(1)}${/[.!?]$/.test(t) ? '' : '.'}`;
}
