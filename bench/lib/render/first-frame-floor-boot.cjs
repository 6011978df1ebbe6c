// The first-frame floor's server entry (first-frame-floor.mjs says what the floor is): loads the
// floor's one bundle as swb's entry loads the workspace server's (bin/swb.ts,
// src/server/server-bundle.ts, src/util/code-cached-bundle.ts): yoga-layout loaded first with no
// global fetch (its wasm then decodes without undici: src/util/without-fetch.ts), through its
// loader bundled as CommonJS beside the bundle (yoga-load.cjs, as swb's entry bundles it), then the CommonJS
// bundle, read as Latin-1, run as a vm.Script with V8's code cache, under production NODE_ENV;
// then it serves. The same steps as runCodeCachedBundle and withoutFetch, written out here because
// this entry is CommonJS (node reaches a CommonJS entry 10-20 ms sooner than an ES module one,
// measured here under the server's V8 flags) and cannot require() those ES modules on Node 20.
//
//   node <SERVER_NODE_FLAGS> first-frame-floor-boot.cjs BUNDLE.cjs DIR COLS ROWS name@x,y,WxH=command ...
//
// The cache is BUNDLE.cache beside the bundle. SWB_BENCH_FLOOR_WRITE_CACHE=FILE: when stopped
// (SIGTERM), write the cache of everything compiled so far to FILE (the bench's warm run, as
// scripts/code-cache.mjs does for swb).
'use strict';
const { startMark } = require('./first-frame-floor-trace.cjs');

startMark('entry');
const { readFileSync, writeFileSync } = require('node:fs');
const { createRequire } = require('node:module');
const { dirname } = require('node:path');
const { pathToFileURL } = require('node:url');
const vm = require('node:vm');

/** BUNDLE_WRAPPER.head in src/util/code-cached-bundle.ts: the function the build wrapped the bundle in. */
const WRAPPER_HEAD = '(function (exports, require, module, __filename, __dirname, __swbImportMetaUrl) {';

process.env.NODE_ENV ??= 'production';
const cacheOut = process.env.SWB_BENCH_FLOOR_WRITE_CACHE;
delete process.env.SWB_BENCH_FLOOR_WRITE_CACHE;
const [bundlePath, ...argv] = process.argv.slice(2);

main().catch((err) => {
  process.stderr.write(`floor server: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});

async function main() {
  const yoga = await withoutFetch(async () => {
    const { loadYoga, ...enums } = require(`${dirname(bundlePath)}/yoga-load.cjs`);
    return { ...enums, default: await loadYoga() };
  });
  const source = readFileSync(bundlePath, 'latin1');
  if (!source.startsWith(WRAPPER_HEAD)) throw new Error(`${bundlePath} is not a bundle written for this loader`);
  let cachedData;
  try {
    cachedData = readFileSync(bundlePath.replace(/\.cjs$/, '.cache'));
  } catch {
    // no cache yet (the warm run): compiled as any script is
  }
  const script = new vm.Script(source, { filename: bundlePath, ...(cachedData ? { cachedData } : {}), importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER });
  // yoga-layout as esbuild's interop wants an ES module's namespace (asRequired in code-cached-bundle.ts).
  const preloaded = { 'yoga-layout': { ...(typeof yoga.default === 'object' && yoga.default !== null ? yoga.default : {}), ...yoga } };
  const nodeRequire = createRequire(bundlePath);
  const bundleRequire = Object.assign((id) => (Object.hasOwn(preloaded, id) ? preloaded[id] : nodeRequire(id)), nodeRequire);
  const module = { exports: {} };
  script.runInThisContext()(module.exports, bundleRequire, module, bundlePath, dirname(bundlePath), pathToFileURL(bundlePath).href);
  startMark(`bundle loaded (code cache ${cachedData === undefined ? 'missing' : script.cachedDataRejected ? 'rejected' : 'used'})`);
  module.exports.serveFloor(argv, {
    mark: startMark,
    beforeExit: cacheOut ? () => writeFileSync(cacheOut, script.createCachedData()) : undefined,
  });
}

/** withoutFetch in src/util/without-fetch.ts: no global fetch while `load` runs. */
async function withoutFetch(load) {
  const saved = Object.getOwnPropertyDescriptor(globalThis, 'fetch');
  if (!saved?.configurable) return load();
  Object.defineProperty(globalThis, 'fetch', { value: undefined, configurable: true, writable: true });
  try {
    return await load();
  } finally {
    Object.defineProperty(globalThis, 'fetch', saved);
  }
}
