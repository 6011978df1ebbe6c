// The workspace server's bundle (2.7 MB of JavaScript: React, Ink, xterm, zod, the hub) is parsed
// and compiled at every cold start before the first row can start: about a third of the server's
// own start (issue #33). V8 can skip that with a code cache, the bytecode of an earlier compile,
// checked against the source and the V8 version and flags before it is used. Node 22 offers it for
// ES modules (module.enableCompileCache); Node 20, this project's floor, only for scripts
// (vm.Script's cachedData), which works on every version. So the build writes the server as a
// CommonJS bundle (dist/server.bundle.cjs, one function: BUNDLE_WRAPPER) with the cache of its load
// (dist/server.bundle.cache, scripts/code-cache.mjs), and this runs it as Node's own CommonJS
// loader would — a function of (exports, require, module, __filename, __dirname) — with the cache.
// A cache V8 refuses (another node than the build's, other V8 flags) costs nothing but the
// compile it would have saved: the cache is written by a node with the server's own flags.
// Measured here (Node 20, in-process, medians of 6): the bundle's load 350 → 250 ms of CPU.
//
// ES-only packages cannot be require()d on Node 20: the caller imports them first and hands them
// in (`preloaded`), and require() gives those out. import.meta.url, which a CommonJS bundle does
// not have, is the bundle's file URL (the build replaces it with __swbImportMetaUrl).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { pathToFileURL } from 'node:url';
import vm from 'node:vm';

export interface CodeCachedBundle<T> {
  exports: T;
  /** used: V8 took the cache; rejected: it did not (another node or V8 flags); missing: there was none. */
  cache: 'used' | 'rejected' | 'missing';
  /** The compiled script, for createCachedData() once it ran (the build's cache writer). */
  script: vm.Script;
}

/**
 * The function a bundle is, as Node's CommonJS wrapper makes one, and one parameter more. The build
 * writes the bundle already wrapped (its banner and footer): wrapping it here would make a second
 * copy of 2.7 MB of source, and the heap keeps it (8 MB more RSS, measured here).
 */
export const BUNDLE_WRAPPER = { head: '(function (exports, require, module, __filename, __dirname, __swbImportMetaUrl) {', tail: '\n})' };

/** Runs the CommonJS bundle at `path` with the code cache at `cachePath` (when there is one). */
export function runCodeCachedBundle<T>(path: string, cachePath: string | null, preloaded: Readonly<Record<string, unknown>> = {}): CodeCachedBundle<T> {
  if (!codeCachedBundlesRun()) throw new Error(`node ${process.version} cannot run ${path} (vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER came in 20.12)`);
  // Latin-1: the build writes the bundle one byte a character (scripts/bundle.mjs, one-byte-source.ts),
  // which V8 takes as it is; decoding 3 MB of UTF-8 cost about 10 ms more of every server start.
  const source = readFileSync(path, 'latin1');
  if (!source.startsWith(BUNDLE_WRAPPER.head)) throw new Error(`${path} is not a bundle written for this loader (scripts/bundle.mjs wraps it)`);
  let cachedData: Buffer | undefined;
  if (cachePath !== null) {
    try {
      cachedData = readFileSync(cachePath);
    } catch {
      // no cache: compiled as any script is
    }
  }
  const script = new vm.Script(source, {
    filename: path,
    ...(cachedData ? { cachedData } : {}),
    // import() inside the bundle (a built-in module, say) goes to Node's own loader.
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  const nodeRequire = createRequire(path);
  const require = Object.assign((id: string): unknown => (Object.hasOwn(preloaded, id) ? preloaded[id] : nodeRequire(id)), nodeRequire);
  const module = { exports: {} as T };
  const run = script.runInThisContext() as (...args: unknown[]) => void;
  run(module.exports, require, module, path, dirname(path), pathToFileURL(path).href);
  return { exports: module.exports, cache: cachedData === undefined ? 'missing' : script.cachedDataRejected ? 'rejected' : 'used', script };
}

/** Whether this node can run such a bundle: an import() inside it needs Node's own loader (20.12 on). */
export function codeCachedBundlesRun(): boolean {
  return (vm.constants as Partial<typeof vm.constants> | undefined)?.USE_MAIN_CONTEXT_DEFAULT_LOADER !== undefined;
}

/**
 * An ES module's namespace as a CommonJS bundle's require() should see it: esbuild's interop
 * (`__toESM(require(id), 1)`) takes the whole object as the default export and copies its names,
 * so the default export's own properties and the named exports are merged into one object.
 */
export function asRequired(namespace: Record<string, unknown>): Record<string, unknown> {
  const defaults = namespace.default;
  return { ...(typeof defaults === 'object' && defaults !== null ? defaults : {}), ...namespace };
}
