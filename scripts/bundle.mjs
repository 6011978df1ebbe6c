// After tsc: bundles the entry points `bin/swb.js` loads, each into one ES module.
//  - dist/cli-bundle/cli.mjs: the CLI commands (one chunk per command). An agent runs `swb send` constantly; one file loads
//    noticeably faster than the two dozen small modules it is made of. dist/cli-bundle/dashboard.mjs beside it (chunks
//    shared): the dashboard's and `swb attach`'s own entry, without the command table (src/cli/dashboard-entry.ts).
//  - dist/server.bundle.cjs: the workspace server, which draws every client's dashboard with Ink and React. Loading Ink's few hundred small
//    modules one by one costs about half a second here; the bundle a fraction of that, which is
//    most of the "start to first frame" budget. CommonJS, so that it can load with V8's code cache
//    on Node 20 (src/util/code-cached-bundle.ts says why; scripts/code-cache.mjs writes the cache).
//  - dist/hook.mjs: `swb hook <event>`, which an agent starts at every hook: a few kilobytes that
//    load nothing but node:net and node:fs, so it starts about as fast as Node itself (issue #37).
// Native addons and yoga's wasm loader stay external. bin/swb.js falls back to the plain
// compiled modules when a bundle is missing.
import { build } from 'esbuild';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { BUNDLE_WRAPPER } from '../dist/src/util/code-cached-bundle.js';
import { oneByteSource } from '../dist/src/util/one-byte-source.js';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
// Chunk names carry a hash: without this, every build would leave the last one's chunks behind.
rmSync(`${root}dist/cli-bundle`, { recursive: true, force: true });
// The ES module bundle of earlier builds: nothing loads it any more.
rmSync(`${root}dist/server.bundle.mjs`, { force: true });
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

/**
 * Ink's reconciler awaits at its top level, for its DEV mode only (the devtools bridge, its own
 * package.json): a CommonJS bundle cannot hold a top-level await. Production never takes those
 * branches (NODE_ENV is production in the server), so they go; a changed Ink fails the build here
 * rather than the server at its start.
 */
const inkWithoutDevMode = {
  name: 'ink-without-dev-mode',
  setup(b) {
    b.onLoad({ filter: /[\\/]ink[\\/]build[\\/]reconciler\.js$/ }, (args) => {
      const text = readFileSync(args.path, 'utf8');
      const awaits = ["await import('./devtools.js');", '? await loadPackageJson()'];
      for (const a of awaits) if (!text.includes(a)) throw new Error(`${args.path}: no "${a}" (Ink changed: see scripts/bundle.mjs)`);
      return { contents: text.replace(awaits[0], 'void 0;').replace(awaits[1], '? undefined'), loader: 'js' };
    });
  },
};

/**
 * string-width builds its emoji regular expression (`\p{RGI_Emoji}`, a set of strings V8 expands as
 * it makes the literal) when the module loads: 10-30 ms of every server's start (issue #33), for
 * text no first frame holds (printable ASCII takes string-width's fast path, and most text after it
 * never reaches the emoji test). Made at its first test instead; the same expression, so widths do
 * not change. A changed string-width fails the build here. (Called by lazyGraphemeSegmenters below.)
 */
function lazyEmoji(path, text) {
  const made = 'const rgiEmojiRegex = /^\\p{RGI_Emoji}$/v;';
  if (!text.includes(made)) throw new Error(`${path}: no "${made}" (string-width changed: see scripts/bundle.mjs)`);
  return text.replace(made, 'let rgiEmojiRegexMade;\nconst rgiEmojiRegex = { test: (s) => (rgiEmojiRegexMade ??= /^\\p{RGI_Emoji}$/v).test(s) };');
}

/**
 * The first Intl.Segmenter a process makes costs 30-100 ms (src/text/grapheme-segmenter.ts says
 * why), and four of the server's dependencies make one as they load: each gets
 * lazyGraphemeSegmenter in its place, which makes it only for text that needs it (a first frame's
 * does not). Each file must hold exactly one, else the build fails here (a dependency changed).
 */
const LAZY_SEGMENTER_FILES = ['string-width/index.js', 'wrap-ansi/node_modules/string-width/index.js', 'slice-ansi/tokenize-ansi.js', '@alcalzone/ansi-tokenize/build/tokenize.js'].map((f) => `${root}node_modules/${f}`);
const lazyGraphemeSegmenters = {
  name: 'lazy-grapheme-segmenters',
  setup(b) {
    const helper = JSON.stringify(`${root}dist/src/text/grapheme-segmenter.js`);
    b.onLoad({ filter: /[\\/]node_modules[\\/].*\.js$/ }, (args) => {
      if (!LAZY_SEGMENTER_FILES.includes(args.path)) return undefined;
      let text = readFileSync(args.path, 'utf8');
      const made = text.split('new Intl.Segmenter(').length - 1;
      if (made !== 1) throw new Error(`${args.path}: ${made} "new Intl.Segmenter(" where one was expected (a dependency changed: see scripts/bundle.mjs)`);
      // string-width's emoji expression too (lazyEmoji): one file, one onLoad.
      if (args.path === `${root}node_modules/string-width/index.js`) text = lazyEmoji(args.path, text);
      return { contents: `import { lazyGraphemeSegmenter as __swbLazyGraphemeSegmenter } from ${helper};\n${text.replace('new Intl.Segmenter(', '__swbLazyGraphemeSegmenter(')}`, loader: 'js' };
    });
  },
};

await Promise.all([
  build({ bundle: true, platform: 'node', format: 'esm', target: 'node20', logLevel: 'warning', legalComments: 'none', entryPoints: [`${root}dist/src/cli/hook-report.js`], outfile: `${root}dist/hook.mjs` }),
  // Split: each command is its own chunk, loaded when it runs, so `swb send` never loads the
  // hub's modules (and the node:crypto / child_process they import).
  build({ ...common, entryPoints: { cli: `${root}dist/src/cli/main.js`, dashboard: `${root}dist/src/cli/dashboard-entry.js` }, outdir: `${root}dist/cli-bundle`, splitting: true, chunkNames: 'chunks/[name]-[hash]', outExtension: { '.js': '.mjs' } }),
  build({
    ...common,
    format: 'cjs',
    // One function of (exports, require, ...), as the loader runs it (BUNDLE_WRAPPER says why);
    // it hands in require() and import.meta.url.
    banner: { js: BUNDLE_WRAPPER.head },
    footer: { js: BUNDLE_WRAPPER.tail },
    entryPoints: [`${root}dist/src/server/workspace-server.js`],
    outfile: `${root}dist/server.bundle.cjs`,
    // Ink imports react-devtools-core only for its DEV-mode bridge, never used in production.
    alias: { ...common.alias, 'react-devtools-core': `${root}scripts/stubs/react-devtools-core.mjs` },
    define: { 'process.env.NODE_ENV': '"production"', 'import.meta.url': '__swbImportMetaUrl' },
    plugins: [inkWithoutDevMode, lazyGraphemeSegmenters],
  }),
]);

// The server keeps its bundle's source in its heap: one byte a character, not two, when no
// character is above U+00FF (src/util/one-byte-source.ts; 3 MB of the base server's RSS).
const serverBundle = `${root}dist/server.bundle.cjs`;
// Written as Latin-1, which the loader reads (src/util/code-cached-bundle.ts): no UTF-8 to decode at start.
writeFileSync(serverBundle, oneByteSource(readFileSync(serverBundle, 'utf8')), 'latin1');
