// After tsc: bundles the entry points `bin/swb.js` loads, each into one ES module.
//  - dist/cli-bundle/cli.mjs: the CLI commands (one chunk per command). An agent runs `swb send` constantly; one file loads
//    noticeably faster than the two dozen small modules it is made of.
//  - dist/server.bundle.mjs: the workspace server, which draws every client's dashboard with Ink and React. Loading Ink's few hundred small
//    modules one by one costs about half a second here; the bundle a fraction of that, which is
//    most of the "start to first frame" budget.
//  - dist/hook.mjs: `swb hook <event>`, which an agent starts at every hook: a few kilobytes that
//    load nothing but node:net and node:fs, so it starts about as fast as Node itself (issue #37).
// Native addons and yoga's wasm loader stay external. bin/swb.js falls back to the plain
// compiled modules when a bundle is missing.
import { build } from 'esbuild';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
// Chunk names carry a hash: without this, every build would leave the last one's chunks behind.
rmSync(`${root}dist/cli-bundle`, { recursive: true, force: true });
const common = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: ['node-pty', 'better-sqlite3', 'yoga-layout'],
  // Some bundled CommonJS dependencies call require(); give the ES module one.
  banner: { js: "import { createRequire as __swbCreateRequire } from 'node:module'; const require = __swbCreateRequire(import.meta.url);" },
  logLevel: 'warning',
  legalComments: 'none',
  // jsonc-parser's "main" is a UMD build whose require() calls esbuild cannot see: use its ES build.
  alias: { 'jsonc-parser': `${root}node_modules/jsonc-parser/lib/esm/main.js` },
};

await Promise.all([
  build({ bundle: true, platform: 'node', format: 'esm', target: 'node20', logLevel: 'warning', legalComments: 'none', entryPoints: [`${root}dist/src/cli/hook-report.js`], outfile: `${root}dist/hook.mjs` }),
  // Split: each command is its own chunk, loaded when it runs, so `swb send` never loads the
  // hub's modules (and the node:crypto / child_process they import).
  build({ ...common, entryPoints: { cli: `${root}dist/src/cli/main.js` }, outdir: `${root}dist/cli-bundle`, splitting: true, chunkNames: 'chunks/[name]-[hash]', outExtension: { '.js': '.mjs' } }),
  build({
    ...common,
    entryPoints: [`${root}dist/src/server/workspace-server.js`],
    outfile: `${root}dist/server.bundle.mjs`,
    // Ink imports react-devtools-core only for its DEV-mode bridge, never used in production.
    alias: { ...common.alias, 'react-devtools-core': `${root}scripts/stubs/react-devtools-core.mjs` },
    define: { 'process.env.NODE_ENV': '"production"' },
  }),
]);
