// What `swb server` does once its node has started, whichever file it started from: bin/swb.ts
// (`swb server` typed by hand, --help and all) or the server's own CommonJS entry that the client
// launches (server-main.ts, which says why it exists). One body for both, so that the two cannot drift.
import { renameSync, writeFileSync } from 'node:fs';
import { startMark } from '../util/start-trace.js';
import { loadServer, serverBundleCodeCache } from './server-bundle.js';

/** Runs the workspace server with `argv` (what follows `swb server`); resolves with its exit status. */
export async function runServerEntry(argv: string[]): Promise<number> {
  // React's production build (no dev checks) for the dashboards; rows still get the operator's own env.
  const operatorEnv = { ...process.env };
  delete operatorEnv.SWB_COLOR_LEVEL;
  delete operatorEnv.SWB_SERVER_NODE_ARGS;
  // The build's warm run (scripts/code-cache.mjs): the server writes its bundle's code cache here
  // when it stops, after a first frame, so the cache holds what a first frame compiles too.
  const cacheOut = process.env.SWB_WRITE_CODE_CACHE;
  delete operatorEnv.SWB_WRITE_CODE_CACHE;
  process.env.NODE_ENV ??= 'production';
  // No terminal here: Ink's colours follow the one that started the server (chalk reads this on import).
  if (process.env.SWB_COLOR_LEVEL && process.env.FORCE_COLOR === undefined) process.env.FORCE_COLOR = process.env.SWB_COLOR_LEVEL;
  const { server, bundle } = await loadServer();
  startMark(`server bundle loaded (code cache ${bundle?.cache ?? 'none: plain modules'})`);
  const status = await server.runServer(argv, operatorEnv);
  if (cacheOut && bundle) {
    // Whole or not at all: the build takes the file once it is there.
    writeFileSync(`${cacheOut}.part`, serverBundleCodeCache(bundle));
    renameSync(`${cacheOut}.part`, cacheOut);
  }
  return status;
}
