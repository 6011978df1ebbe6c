// After tsc: bundles the entry points `bin/swb.js` loads, each into one ES module.
//  - dist/cli-bundle/cli.mjs: the CLI commands (one chunk per command). An agent runs `swb send` constantly; one file loads
//    noticeably faster than the two dozen small modules it is made of. dist/cli-bundle/dashboard.mjs beside it (one file,
//    no chunks): the dashboard's and `swb attach`'s own entry, without the command table (src/cli/dashboard-entry.ts).
//  - dist/server.bundle.cjs: the workspace server, which draws every client's dashboard with Ink and React. Loading Ink's few hundred small
//    modules one by one costs about half a second here; the bundle a fraction of that, which is
//    most of the "start to first frame" budget. CommonJS, so that it can load with V8's code cache
//    on Node 20 (src/util/code-cached-bundle.ts says why; scripts/code-cache.mjs writes the cache).
//  - dist/src/server/server-main.cjs: the server's own entry, which the client launches: CommonJS, which
//    node starts faster than an ES module under the server's V8 flags (src/server/server-main.ts).
//  - dist/src/cli/dashboard-main.cjs: the dashboard's own entry, which bin/swb runs for `swb` and `swb attach`
//    (src/cli/dashboard-main.ts): CommonJS, and only the head start that launches a server early.
//  - dist/hook.mjs: `swb hook <event>`, which an agent starts at every hook: a few kilobytes that
//    load nothing but node:net and node:fs, so it starts about as fast as Node itself (issue #37).
// Native addons and yoga's wasm loader stay external (but for the server's CommonJS entry, which loads yoga for the server bundle). bin/swb.js falls back to the plain
// compiled modules when a bundle is missing.
import { build } from 'esbuild';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { commonBundleOptions, serverBundleOptions } from './server-bundle-options.mjs';
import { oneByteSource } from '../dist/src/util/one-byte-source.js';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
// Chunk names carry a hash: without this, every build would leave the last one's chunks behind.
rmSync(`${root}dist/cli-bundle`, { recursive: true, force: true });
// The ES module bundle of earlier builds: nothing loads it any more.
rmSync(`${root}dist/server.bundle.mjs`, { force: true });
const common = {
  ...commonBundleOptions(root),
  format: 'esm',
  // Some bundled CommonJS dependencies call require(); give the ES module one.
  banner: { js: "import { createRequire as __swbCreateRequire } from 'node:module'; const require = __swbCreateRequire(import.meta.url);" },
};

/**
 * An entry node starts as CommonJS (it reaches a CommonJS file's first statement sooner than an ES
 * module's): a few kilobytes beside the modules it is made of, dist/src/NAME.cjs, so that their
 * relative URLs (a bundle, the plain modules' fallback `later`, left as import()) mean what they mean there.
 */
function commonJsEntry(name, later) {
  return build({
    ...commonBundleOptions(root),
    format: 'cjs',
    // yoga-layout/load goes in (the server's entry loads yoga for its bundle: src/server/server-bundle.ts);
    // its top-level-await entry, 'yoga-layout' itself, could not, and nothing here imports it.
    external: [...commonBundleOptions(root).external.filter((name) => name !== 'yoga-layout'), later],
    banner: { js: "const __swbImportMetaUrl = require('node:url').pathToFileURL(__filename).href;" },
    define: { 'import.meta.url': '__swbImportMetaUrl' },
    entryPoints: [`${root}dist/src/${name}.js`],
    outfile: `${root}dist/src/${name}.cjs`,
  });
}

await Promise.all([
  build({ bundle: true, platform: 'node', format: 'esm', target: 'node20', logLevel: 'warning', legalComments: 'none', entryPoints: [`${root}dist/src/cli/hook-report.js`], outfile: `${root}dist/hook.mjs` }),
  // Split: each command is its own chunk, loaded when it runs, so `swb send` never loads the
  // hub's modules (and the node:crypto / child_process they import).
  build({ ...common, entryPoints: { cli: `${root}dist/src/cli/main.js` }, outdir: `${root}dist/cli-bundle`, splitting: true, chunkNames: 'chunks/[name]-[hash]', outExtension: { '.js': '.mjs' } }),
  // Not split: the client's way to its server's launch is one file read and compiled, where the
  // shared chunks were a dozen imports, each resolved, read and linked in turn (its dynamic imports
  // of the argument and trust checks too). The client reached "launching the server" 17-21 ms
  // sooner (issue #33; 11-15 starts each, interleaved, median 64-76 against 85-93 ms).
  build({ ...common, entryPoints: [`${root}dist/src/cli/dashboard-entry.js`], outfile: `${root}dist/cli-bundle/dashboard.mjs` }),
  build({ ...serverBundleOptions(root), entryPoints: [`${root}dist/src/server/workspace-server.js`], outfile: `${root}dist/server.bundle.cjs` }),
  // The server's own entry, which the client launches (src/server/server-main.ts says why).
  commonJsEntry('server/server-main', './workspace-server.js'),
  // The dashboard's own entry, which bin/swb runs for every command line that names no command
  // (src/cli/dashboard-main.ts says why): the head start; the rest of the client (dashboard.mjs
  // above, or the plain modules' fallback) stays an import().
  commonJsEntry('cli/dashboard-main', './dashboard-entry.js'),
]);

// The server keeps its bundle's source in its heap: one byte a character, not two, when no
// character is above U+00FF (src/util/one-byte-source.ts; 3 MB of the base server's RSS).
const serverBundle = `${root}dist/server.bundle.cjs`;
// Written as Latin-1, which the loader reads (src/util/code-cached-bundle.ts): no UTF-8 to decode at start.
writeFileSync(serverBundle, oneByteSource(readFileSync(serverBundle, 'utf8')), 'latin1');
