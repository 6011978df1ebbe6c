// What every swb process does first, before it copies its environment for a child or writes a
// line: bin/swb.ts for every command, and the server's own entry (src/server/server-main.ts).

import { restoreCaCerts } from './ca-certs-aside.js';
import { exitQuietlyWhenStdoutCloses } from './closed-stdout.js';
import { startMark } from './start-trace.js';

/** Marks the entry (SWB_START_TRACE), puts NODE_EXTRA_CA_CERTS back (ca-certs-aside.ts says why), and makes a closed stdout a quiet exit. */
export function startSwbProcess(): void {
  startMark('entry');
  restoreCaCerts(process.env);
  exitQuietlyWhenStdoutCloses();
}

/** The process's exit status once `run` settles; a failure is reported as swb's own (INTERNAL). */
export function exitWhenSettled(run: Promise<number>): void {
  run.then(
    (status) => {
      process.exitCode = status;
    },
    (err: unknown) => {
      process.stderr.write(`swb: INTERNAL: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exitCode = 1;
    },
  );
}
