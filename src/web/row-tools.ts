// The page's row tools, all through the ClientDesk (the one port every client changes rows through):
// explain, the wake policy, new row, restart, close, reopen, a worktree row's review, removing its
// worktree. The confirmations are the dashboard's (row-flows.ts): restarting a running row, closing a
// running row or any worktree row, removing a worktree — the page asks the operator and says
// `confirm: true`; without it the server answers CONFIRM_REQUIRED and changes nothing. What git
// would lose (a dirty worktree, unmerged commits) the server checks itself: git refuses.
import * as z from 'zod';
import { HANDLE_HINT, HANDLE_PATTERN } from '../protocol/handle.js';
import { lazySchema } from '../protocol/lazy-schema.js';
import { explainRowText } from '../app/row-mirror.js';
import { emptyParams, explainParams } from '../protocol/method-params.js';
import { describeSkipped } from '../worktree/skipped-files.js';
import { reviewLine } from './review-line.js';
import { sayLine, toolError, type ToolContext, type ToolTable } from './tool-method.js';
import type { DeskInfo } from './tool-protocol.js';

// The params' schemas, built at a tool's first call (protocol/lazy-schema.ts says why).
const handle = lazySchema(() => z.string().regex(HANDLE_PATTERN, { error: HANDLE_HINT }));
const rowParams = lazySchema(() => z.strictObject({ row: handle() }));
const confirmed = lazySchema(() => z.strictObject({ row: handle(), confirm: z.optional(z.boolean()) }));
/** A size for a row that has no place yet: what the page's view of it measures, bounded. */
const cols = lazySchema(() => z.optional(z.int().min(20).max(500)));
const rows = lazySchema(() => z.optional(z.int().min(5).max(200)));
const DEFAULT_SIZE = { cols: 120, rows: 32 };
/** A review shows at most this many lines (the server's own review stops at 20 000). */
const MAX_REVIEW_LINES = 20_000;

const noRow = (row: string) => toolError('NOT_FOUND', `No row ${row} runs on this server.`);

/** The "new row" dialog's fields (NewRowRequest), bounded; `what` is a profile or a command line. */
const newRowParams = lazySchema(() =>
  z.strictObject({
    name: z.string().max(64),
    what: z.string().min(1).max(4096),
    cwd: z.string().max(4096),
    worktree: z.optional(z.string().max(200)),
    cols: cols(),
    rows: rows(),
  }),
);

export function deskInfo({ desk, port }: ToolContext, defaultCwd: string): DeskInfo & { cwd: string } {
  return {
    profiles: [...desk.profileIds],
    canCreateRows: desk.newRow !== undefined,
    closed: desk.fleet.closed().map((c) => ({ name: c.spec.name, command: sayLine(c.command, 300), at: c.at })),
    parked: port.parkedMail(),
    cwd: defaultCwd,
  };
}

export function rowTools(defaultCwd: string): ToolTable {
  return {
    desk: { params: emptyParams, mutates: false, run: (_, ctx) => ({ ok: deskInfo(ctx, defaultCwd) }) },
    explain: {
      params: explainParams,
      mutates: false,
      run({ row }, { desk }) {
        if (!desk.fleet.has(row)) return noRow(row);
        return { ok: { row, text: explainRowText(desk, row) } };
      },
    },
    'wake.set': {
      params: lazySchema(() => z.strictObject({ row: handle(), policy: z.enum(['auto', 'notify', 'off']) })),
      mutates: true,
      run({ row, policy }, { desk, note }) {
        if (!desk.fleet.has(row)) return noRow(row);
        if (!desk.fleet.agents?.has(row)) return toolError('UNAVAILABLE', `${row} has no agent profile: it is never woken`);
        if (!desk.setWakePolicy(row, policy)) return toolError('REFUSED', `the wake policy of ${row} could not be set`);
        const said = `wake policy of @${row}: ${policy}`;
        note('info', said, row);
        return { ok: { row, policy, said } };
      },
    },
    'row.new': {
      params: newRowParams,
      mutates: true,
      async run(params, { desk, note }) {
        if (!desk.newRow) return toolError('UNAVAILABLE', 'this server starts rows only from swb new');
        const { cols: c, rows: r, ...fields } = params;
        const request = { ...fields, cwd: fields.cwd || defaultCwd };
        const started = desk.newRow(request, { cols: c ?? DEFAULT_SIZE.cols, rows: r ?? DEFAULT_SIZE.rows });
        if ('problem' in started) return toolError('REFUSED', sayLine(started.problem));
        if ('started' in started) {
          const said = `@${started.started} started`;
          note('info', said, started.started);
          return { ok: { name: started.started, said } };
        }
        // git makes the worktree first; the answer waits for it (the row shows up once it exists).
        const made = await started.worktree;
        if ('problem' in made) return toolError('REFUSED', `@${started.name} did not start: ${sayLine(made.problem)}`);
        const said = `@${started.name} started in ${sayLine(made.path, 200)} on ${sayLine(made.branch, 100)}`;
        note('info', said, started.name);
        if (made.skipped?.length) note('error', `@${started.name}: ${describeSkipped(made.skipped)}`, started.name);
        return { ok: { name: started.name, path: made.path, branch: made.branch, said } };
      },
    },
    'row.restart': {
      params: confirmed,
      mutates: true,
      run({ row, confirm }, { desk, note }) {
        const r = desk.fleet.get(row);
        if (!r) return noRow(row);
        if (r.state === 'running' && !confirm) return toolError('CONFIRM_REQUIRED', `${row} is running: restarting it ends what it is doing`);
        let resumed: boolean;
        try {
          ({ resumed } = desk.restart(row));
        } catch (err) {
          return toolError('REFUSED', `@${row} could not restart: ${sayLine(String((err as Error).message ?? err), 200)}`);
        }
        const said = `@${row} restarted${resumed ? ', resuming its conversation' : ''}`;
        note('info', said, row);
        return { ok: { row, resumed, said } };
      },
    },
    'row.close': {
      params: confirmed,
      mutates: true,
      run({ row, confirm }, { desk, note }) {
        const r = desk.fleet.get(row);
        if (!r) return noRow(row);
        const worktree = r.spec.worktree;
        if (!confirm && worktree) return toolError('CONFIRM_REQUIRED', `${row} runs in a worktree (${sayLine(worktree.path, 200)}): closing keeps it, or remove it with the row`);
        if (!confirm && r.state === 'running') return toolError('CONFIRM_REQUIRED', `${row} is running: closing it ends its program`);
        if (!desk.close(row)) return noRow(row);
        const said = `@${row} closed${worktree ? `; its worktree stays in ${sayLine(worktree.path, 200)}` : ''}`;
        note('info', said, null);
        return { ok: { row, said } };
      },
    },
    'row.reopen': {
      params: lazySchema(() => z.strictObject({ row: handle(), cols: cols(), rows: rows() })),
      mutates: true,
      run({ row, cols: c, rows: r }, { desk, note }) {
        if (desk.fleet.has(row)) return toolError('REFUSED', `@${row} is running again already`);
        if (!desk.reopen(row, { cols: c ?? DEFAULT_SIZE.cols, rows: r ?? DEFAULT_SIZE.rows })) return toolError('NOT_FOUND', `${row} is not among the rows closed while this server runs`);
        const said = `@${row} reopened`;
        note('info', said, row);
        return { ok: { row, said } };
      },
    },
    'row.review': {
      params: rowParams,
      mutates: false,
      async run({ row }, { desk }) {
        const r = desk.fleet.get(row);
        if (!r) return noRow(row);
        if (!r.spec.worktree) return toolError('UNAVAILABLE', `@${row} does not run in a worktree of its own`);
        if (!desk.review) return toolError('UNAVAILABLE', 'this server does not review worktrees');
        const review = await desk.review(row);
        if ('problem' in review) return toolError('REFUSED', `review of @${row}: ${sayLine(review.problem)}`);
        return { ok: { row, title: review.title, lines: review.lines.slice(0, MAX_REVIEW_LINES).map(reviewLine) } };
      },
    },
    'worktree.remove': {
      params: confirmed,
      mutates: true,
      async run({ row, confirm }, { desk, note }) {
        const r = desk.fleet.get(row);
        if (!r) return noRow(row);
        if (!r.spec.worktree || !desk.removeWorktree) return toolError('UNAVAILABLE', `@${row} does not run in a worktree of its own`);
        if (!confirm) return toolError('CONFIRM_REQUIRED', `removing the worktree of ${row} (${sayLine(r.spec.worktree.path, 200)}) also closes the row`);
        // The worktree first: when git refuses (work would be lost), the row stays as it was.
        const removed = await desk.removeWorktree(row);
        if ('problem' in removed) return toolError('REFUSED', `@${row} kept: ${sayLine(removed.problem)}`);
        const said = `@${row} closed and its worktree removed (the branch is kept)`;
        note('info', said, null);
        return { ok: { row, said } };
      },
    },
  };
}
