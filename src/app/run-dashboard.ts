// Placeholder entry for the dashboard until the rows/dashboard issue lands: says so plainly.
export async function runDashboard(_argv: string[]): Promise<number> {
  process.stderr.write('swb: the dashboard is not built yet; use `swb --help` for the mail commands.\n');
  return 2;
}
