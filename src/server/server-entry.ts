// What `swb server` does once its node has started, whichever file it started from: bin/swb.ts
// (`swb server` typed by hand, --help and all) or the server's own CommonJS entry that the client
// launches (server-main.ts, which says why it exists). One body for both, so that the two cannot drift.
import { renameSync, writeFileSync } from 'node:fs';
import { EARLY_SERVER_ENV } from '../protocol/early-server-meeting.js';
import { terminalColourLevel } from '../util/colour-level.js';
import { startMark } from '../util/start-trace.js';
import { loadServer, serverBundleCodeCache } from './server-bundle.js';
import { meetEarlyClient } from './early-gate.js';

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
  // bin/swb's word to the client it started this server beside: not the rows' business.
  delete operatorEnv[EARLY_SERVER_ENV];
  delete process.env[EARLY_SERVER_ENV];
  // Started by bin/swb beside its client: meet it now, so that the kernel has joined the two by the
  // time the code below is loaded (early-gate.ts). Its terminal is the client's (bin/swb started
  // both from it), and Ink's colours follow it, as its launching client would have said.
  const earlyFor = earlyClientPid(argv);
  const meeting = earlyFor !== null ? meetEarlyClient(earlyFor) : null;
  if (earlyFor !== null) process.env.SWB_COLOR_LEVEL ??= terminalColourLevel(process.env);
  process.env.NODE_ENV ??= 'production';
  // No terminal here: Ink's colours follow the one that started the server (chalk reads this on import).
  if (process.env.SWB_COLOR_LEVEL && process.env.FORCE_COLOR === undefined) process.env.FORCE_COLOR = process.env.SWB_COLOR_LEVEL;
  const { server, bundle } = await loadServer();
  startMark(`server bundle loaded (code cache ${bundle?.cache ?? 'none: plain modules'})`);
  const early = meeting ? await meeting : undefined;
  if (early === null) return 0; // its client is gone, or did not want it: nothing was touched
  const status = await server.runServer(argv, operatorEnv, early);
  if (cacheOut && bundle) {
    // Whole or not at all: the build takes the file once it is there.
    writeFileSync(`${cacheOut}.part`, serverBundleCodeCache(bundle));
    renameSync(`${cacheOut}.part`, cacheOut);
  }
  return status;
}

/** The client pid of `--early-for PID` (server-bundle's flag parser is not loaded yet); null without it, or a pid that is not one. */
function earlyClientPid(argv: readonly string[]): number | null {
  const at = argv.indexOf('--early-for');
  const value = at === -1 ? undefined : argv[at + 1];
  return value !== undefined && /^[1-9][0-9]{0,9}$/.test(value) ? Number(value) : null;
}
