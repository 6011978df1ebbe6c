// How the workspace server's code is loaded: the CommonJS bundle the build made, with V8's code
// cache (src/util/code-cached-bundle.ts says why), or, without a build's bundle, the plain
// compiled modules. server-entry.ts loads the server through this; scripts/code-cache.mjs too, to
// write the cache of exactly this load.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
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
    // yoga-layout is an ES module with a top-level await: imported here, handed to the bundle's require().
    const yoga = (await withoutFetch(() => import('yoga-layout'))) as unknown as Record<string, unknown>;
    const bundle = runCodeCachedBundle<ServerModule>(fileURLToPath(BUNDLE), fileURLToPath(CACHE), { 'yoga-layout': asRequired(yoga) });
    return { server: bundle.exports, bundle };
  } finally {
    serverFlagsWhileRunning();
  }
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
