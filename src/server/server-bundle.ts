// How the workspace server's code is loaded: the CommonJS bundle the build made, with V8's code
// cache (src/util/code-cached-bundle.ts says why), or, without a build's bundle, the plain
// compiled modules. server-entry.ts loads the server through this; scripts/code-cache.mjs too, to
// write the cache of exactly this load.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as yogaLoader from 'yoga-layout/load';
import { asRequired, codeCachedBundlesRun, runCodeCachedBundle, type CodeCachedBundle } from '../util/code-cached-bundle.js';
import { withoutFetch } from '../util/without-fetch.js';
import { serverFlagsWhileLoading, serverFlagsWhileRunning } from './server-flag-hash.js';

type ServerModule = typeof import('./workspace-server.js');

export interface LoadedServer {
  server: ServerModule;
  /** The bundle's load (null: the plain modules ran: no bundle, or a node too old for it). */
  bundle: CodeCachedBundle<ServerModule> | null;
}

/** dist/server.bundle.cjs and its cache, beside this file's dist/src/server/. */
const BUNDLE = new URL('../../server.bundle.cjs', import.meta.url);
const CACHE = new URL('../../server.bundle.cache', import.meta.url);

/**
 * Loads the server under V8's default flags, so that node's built-ins and the bundle take their code
 * caches, and sets the server's heap flags again once it is loaded (server-flag-hash.ts).
 */
export async function loadServer(): Promise<LoadedServer> {
  serverFlagsWhileLoading();
  try {
    // A node before 20.12 cannot run the bundle (codeCachedBundlesRun): the plain modules then.
    if (!existsSync(BUNDLE) || !codeCachedBundlesRun()) return { server: await withoutFetch(() => import('./workspace-server.js')), bundle: null };
    const yoga = await withoutFetch(yogaAsImported);
    const bundle = runCodeCachedBundle<ServerModule>(fileURLToPath(BUNDLE), fileURLToPath(CACHE), { 'yoga-layout': asRequired(yoga) });
    return { server: bundle.exports, bundle };
  } finally {
    serverFlagsWhileRunning();
  }
}

/**
 * yoga-layout as Ink's `import Yoga from 'yoga-layout'` sees it (its default export and its enums),
 * for the bundle's require(). Its own entry awaits the wasm at its top level, which only an ES
 * module can: importing it started node's ES module loader in this CommonJS process and compiled
 * its 120 KB without a code cache: the server's CPU from its entry to "server bundle loaded" was
 * 112 against 93 ms through yoga-layout/load (bench:render --only=first --compare, one run, load
 * 3.9). yoga-layout/load is the same loader without
 * the top-level await, and the build bundles it into this entry (scripts/bundle.mjs).
 */
async function yogaAsImported(): Promise<Record<string, unknown>> {
  const { loadYoga, ...enums } = yogaLoader;
  return { ...enums, default: await loadYoga() };
}

/** The bundle's code cache as it stands, made under the flags a server loads with (else V8 would refuse it then). */
export function serverBundleCodeCache(bundle: CodeCachedBundle<ServerModule>): Buffer {
  serverFlagsWhileLoading();
  try {
    return bundle.script.createCachedData();
  } finally {
    serverFlagsWhileRunning();
  }
}

/** Where the build writes the cache (scripts/code-cache.mjs). */
export const SERVER_BUNDLE_CACHE = CACHE;
