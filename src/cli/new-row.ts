import { resolve } from 'node:path';
import { HANDLE_HINT, isValidHandle } from '../protocol/handle.js';
import { sanitize } from '../text/sanitize.js';
import { normalizeBranch } from '../worktree/branch-name.js';
import { describeSkipped, type SkippedFile } from '../worktree/skipped-files.js';
import { UsageError, type CommandDescriptor } from './command.js';

export const newRowCommand: CommandDescriptor = {
  name: 'new',
  summary: 'Add a row to the running server, from any shell (operator only).',
  usage: '[--name N] [--profile P] [--cwd DIR] [--worktree [--branch B] [--base REF] [--reuse-branch]] [-- CMD ...]',
  flags: [
    { name: 'worktree', type: 'boolean', description: 'run it in a git worktree of its own, beside the repository (branch swb/<name>, from HEAD)' },
    { name: 'branch', type: 'string', value: 'B', description: "the worktree's branch (default swb/<name>; refs/heads/B is B, other refs/... are refused)" },
    { name: 'base', type: 'string', value: 'REF', description: 'what the branch starts from (default: the current branch HEAD)' },
    { name: 'reuse-branch', type: 'boolean', description: 'the branch exists: check it out as it is' },
    { name: 'name', type: 'string', value: 'N', description: "the row's name (default: the profile or the program)" },
    { name: 'profile', type: 'string', value: 'P', description: 'agent profile (claude, codex, gemini, bash, ...): its command, state detection and wake' },
    { name: 'cwd', type: 'string', value: 'DIR', description: 'working directory (default: this directory)' },
  ],
  details:
    "The command after -- runs as given; with only --profile, the profile's own command runs. Every dashboard attached to the server shows the new row. " +
    'With --worktree the row works in <repo>/../<repo>.swb/<name> (config worktrees.root), with the untracked files .worktreeinclude lists copied in and the config\'s worktrees.setup run first; swb review, swb merge and swb rm take it from there.',
  async run(ctx) {
    const command = ctx.args;
    const profile = ctx.flags.profile as string | undefined;
    if (command.length === 0 && profile === undefined) throw new UsageError('give a profile (--profile P) or a command after --');
    const name = ctx.flags.name as string | undefined;
    if (name !== undefined && !isValidHandle(name)) throw new UsageError(`--name ${JSON.stringify(name)}: ${HANDLE_HINT}`);
    const cwd = resolve(process.cwd(), (ctx.flags.cwd as string | undefined) ?? '.');
    const worktree = ctx.flags.worktree === true;
    if (!worktree && (ctx.flags.branch !== undefined || ctx.flags.base !== undefined || ctx.flags['reuse-branch'] === true)) {
      throw new UsageError('--branch, --base and --reuse-branch go with --worktree');
    }
    // A full ref is the branch's short name (refs/heads/x is x); any other refs/... is not a branch.
    let branch = ctx.flags.branch as string | undefined;
    if (branch !== undefined) {
      const normal = normalizeBranch(branch);
      if ('problem' in normal) throw new UsageError(`--branch: ${normal.problem}`);
      branch = normal.ok;
    }
    const client = await ctx.connect({ autoStart: false, server: true });
    const r = await client.request<{ name: string; worktree?: { path: string; branch: string; base: { ref: string | null; commit: string } }; copied?: string[]; skipped?: SkippedFile[] }>('server.newRow', {
      ...(ctx.flags.name !== undefined ? { name: ctx.flags.name } : {}),
      ...(profile !== undefined ? { profile } : {}),
      ...(command.length > 0 ? { command } : {}),
      cwd,
      ...(worktree
        ? {
            worktree: {
              ...(branch !== undefined ? { branch } : {}),
              ...(ctx.flags.base !== undefined ? { base: ctx.flags.base } : {}),
              ...(ctx.flags['reuse-branch'] === true ? { reuseBranch: true } : {}),
            },
          }
        : {}),
    });
    ctx.result(r);
    ctx.print(`started row ${r.name}`);
    if (r.worktree) {
      // The path, branch and base come from the server and, through git, from a repository someone else wrote.
      const shown = (text: string) => sanitize(text, { singleLine: true, maxChars: 1000 });
      const from = shown(r.worktree.base.ref ?? r.worktree.base.commit.slice(0, 12));
      ctx.print(`  worktree ${shown(r.worktree.path)} on branch ${shown(r.worktree.branch)}, from ${from}${r.copied?.length ? `; copied ${r.copied.length} untracked file${r.copied.length === 1 ? '' : 's'} (.worktreeinclude)` : ''}`);
      if (r.skipped?.length) ctx.print(`  ${describeSkipped(r.skipped)}`);
    }
    return 0;
  },
};
