// After tsc: bundles the dashboard (Ink, React and our UI code) into one ES module,
// dist/dashboard.bundle.mjs. Loading Ink's few hundred small modules one by one costs about half
// a second on this class of machine; the bundle loads in a fraction of that, which is most of
// the "start to first frame" budget. Native addons and yoga's wasm loader stay external.
// The CLI commands (`swb send` ...) do not use the bundle: they never load Ink at all.
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

await build({
  entryPoints: [`${root}dist/src/app/run-dashboard.js`],
  outfile: `${root}dist/dashboard.bundle.mjs`,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: ['node-pty', 'better-sqlite3', 'yoga-layout'],
  alias: { 'react-devtools-core': `${root}scripts/stubs/react-devtools-core.mjs` },
  define: { 'process.env.NODE_ENV': '"production"' },
  // Some bundled CommonJS dependencies call require(); give the ES module one.
  banner: { js: "import { createRequire as __swbCreateRequire } from 'node:module'; const require = __swbCreateRequire(import.meta.url);" },
  logLevel: 'warning',
  legalComments: 'none',
});
