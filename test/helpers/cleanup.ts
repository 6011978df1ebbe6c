// One registry of everything a test starts (hubs, clients, child processes, temp dirs). Helpers
// record their resources here; each test file runs `afterEach(runCleanups)`, which releases them
// newest first, so a hub stops before its temp dir is removed.

type Task = { label: string; run: () => unknown };

const tasks: Task[] = [];

/** Records a cleanup step to run after the current test. */
export function deferCleanup(label: string, run: () => unknown): void {
  tasks.push({ label, run });
}

/** Runs every recorded step, newest first; all run even if some fail, then the failures are thrown. */
export async function runCleanups(): Promise<void> {
  const errors: Error[] = [];
  while (tasks.length > 0) {
    const task = tasks.pop()!;
    try {
      await task.run();
    } catch (err) {
      errors.push(new Error(`cleanup "${task.label}" failed: ${err instanceof Error ? err.message : String(err)}`));
    }
  }
  if (errors.length === 1) throw errors[0];
  if (errors.length > 1) throw new AggregateError(errors, `${errors.length} cleanup steps failed`);
}
