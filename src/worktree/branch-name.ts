// A worktree row's branch as the operator gave it (`--branch`, the N dialog, a config row), made the
// short name git's `worktree add -b` wants (issue #34.3): `refs/heads/x` is the branch x, not a branch
// literally named "refs/heads/x" (which git would make, as refs/heads/refs/heads/x, and which every
// later git command would read ambiguously). Any other full ref (refs/tags/..., refs/remotes/...) is
// not a branch and is refused. Pure text: git itself then checks the name (`check-ref-format --branch`).

const BRANCH_REF = 'refs/heads/';

export function normalizeBranch(input: string): { ok: string } | { problem: string } {
  const name = input.startsWith(BRANCH_REF) ? input.slice(BRANCH_REF.length) : input;
  if (name === '') return { problem: `${JSON.stringify(input)} names no branch` };
  if (name.startsWith('refs/')) {
    return { problem: `${JSON.stringify(input)} is a full ref, not a branch name; give the branch's short name (x for refs/heads/x)` };
  }
  return { ok: name };
}
