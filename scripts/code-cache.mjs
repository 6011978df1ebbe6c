// After the bundles: writes dist/server.bundle.cache, V8's code cache of the server bundle as the
// server loads it (src/server/server-bundle.ts; src/util/code-cached-bundle.ts says why). Taken
// once the bundle's top level ran, so it holds every function that ran while it loaded. Made by
// the node that builds, under the server's own V8 flags (src/util/server-node-flags.ts): V8
// refuses a cache made by another node or under other flags (and the server compiles as it would
// without one).
import { spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const { SERVER_NODE_FLAGS } = await import('../dist/src/util/server-node-flags.js');
if (process.env.SWB_CODE_CACHE_WRITER !== '1') {
  // Again, under the server's flags.
  const run = spawnSync(process.execPath, [...SERVER_NODE_FLAGS, fileURLToPath(import.meta.url)], { stdio: 'inherit', env: { ...process.env, SWB_CODE_CACHE_WRITER: '1' } });
  process.exit(run.status ?? 1);
}
process.env.NODE_ENV = 'production';
const { loadServer, SERVER_BUNDLE_CACHE } = await import('../dist/src/server/server-bundle.js');
rmSync(SERVER_BUNDLE_CACHE, { force: true });
const { bundle } = await loadServer();
if (bundle === null) {
  process.stderr.write('code-cache: no dist/server.bundle.cjs (run scripts/bundle.mjs first)\n');
  process.exit(1);
}
writeFileSync(SERVER_BUNDLE_CACHE, bundle.script.createCachedData());
// The bundle's top level may have left handles (none should): the cache is written, so end here.
process.exit(0);
