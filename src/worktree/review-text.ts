// Words a review says the same way in the CLI (`swb review`) and on the dashboard (`D`).

/** "1 commit since the base:" / "3 commits since the base:". */
export function commitsHeading(count: number): string {
  return `${count} commit${count === 1 ? '' : 's'} since the base:`;
}
