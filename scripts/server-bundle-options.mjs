// The esbuild options of the workspace server's bundle (dist/server.bundle.cjs), shared by the
// build (scripts/bundle.mjs) and the render bench's first-frame floor (bench/lib/render/
// first-frame-floor.mjs), which bundles Ink, React, xterm and node-pty the very same way so
// that it gets every load-time trick the server has: the CommonJS wrapper the code-cached loader
// runs, production React, Ink without its DEV-mode awaits, and the lazy Intl.Segmenter.
import { readFileSync, writeFileSync } from 'node:fs';
import { BUNDLE_WRAPPER } from '../dist/src/util/code-cached-bundle.js';

/** What every Node bundle of the build has in common (`root`: the package root, with its trailing slash). */
export function commonBundleOptions(root) {
  return {
    bundle: true,
    platform: 'node',
    target: 'node20',
    external: ['node-pty', 'better-sqlite3', 'yoga-layout'],
    logLevel: 'warning',
    legalComments: 'none',
    // jsonc-parser's "main" is a UMD build whose require() calls esbuild cannot see: use its ES build.
    alias: { 'jsonc-parser': `${root}node_modules/jsonc-parser/lib/esm/main.js` },
  };
}

/** The server bundle's options but its entry and output: a CommonJS function the code-cached loader runs (src/util/code-cached-bundle.ts). */
export function serverBundleOptions(root) {
  const common = commonBundleOptions(root);
  return {
    ...common,
    // better-sqlite3's JavaScript goes in, under the code cache; its addon is named by path (src/store/sqlite-file.ts).
    external: common.external.filter((name) => name !== 'better-sqlite3'),
    format: 'cjs',
    // One function of (exports, require, ...), as the loader runs it (BUNDLE_WRAPPER says why);
    // it hands in require() and import.meta.url.
    banner: { js: BUNDLE_WRAPPER.head },
    footer: { js: BUNDLE_WRAPPER.tail },
    // Ink imports react-devtools-core only for its DEV-mode bridge, never used in production.
    alias: { ...common.alias, 'react-devtools-core': `${root}scripts/stubs/react-devtools-core.mjs` },
    define: { 'process.env.NODE_ENV': '"production"', 'import.meta.url': '__swbImportMetaUrl' },
    plugins: [inkWithoutDevMode, lazyGraphemeSegmenters(root), oneInteropObjectPerModule],
  };
}

/**
 * esbuild gives every ES module that imports a CommonJS one (React, node:process, yoga's merged
 * namespace) its own interop object: `__toESM(require_react())` makes a fresh object and defines a
 * getter on it for each of the module's exports. React is imported so by 37 of the server's modules,
 * node:process by 12, yoga by 7: some 2,300 getters made as the bundle loads, 3-9 ms of its CPU
 * (issue #33; measured here by timing each __copyProps call). Rewritten after the build: one
 * interop object per module and import mode, made at its first import and handed to every later
 * one, as Node's own loader hands out one namespace per module. Importers only read it. A module
 * whose exports have grown since (a require cycle that was still running) gets a fresh one, as
 * before. A changed esbuild helper fails the build here.
 */
const TO_ESM = `var __toESM = (mod, isNodeMode, target) => (target = mod != null ? __create(__getProtoOf(mod)) : {}, __copyProps(
  // If the importer is in node compatibility mode or this is not an ESM
  // file that has been converted to a CommonJS file using a Babel-
  // compatible transform (i.e. "__esModule" has not been set), then set
  // "default" to the CommonJS "module.exports" for node compatibility.
  isNodeMode || !mod || !mod.__esModule ? __defProp(target, "default", { value: mod, enumerable: true }) : target,
  mod
));
`;
const TO_ESM_ONCE = `${TO_ESM.replace('var __toESM =', 'var __toESMEach =')}var __swbInterop = new WeakMap();
var __toESM = (mod, isNodeMode) => {
  if (mod === null || (typeof mod !== "object" && typeof mod !== "function")) return __toESMEach(mod, isNodeMode);
  const mode = isNodeMode ? 1 : 0, names = __getOwnPropNames(mod).length;
  let made = __swbInterop.get(mod);
  if (made === undefined) __swbInterop.set(mod, (made = [null, null]));
  const had = made[mode];
  if (had !== null && had.names === names) return had.target;
  const target = __toESMEach(mod, isNodeMode);
  made[mode] = { target, names };
  return target;
};
`;
const oneInteropObjectPerModule = {
  name: 'one-interop-object-per-module',
  setup(b) {
    b.onEnd((result) => {
      const out = b.initialOptions.outfile;
      if (result.errors.length > 0 || !out) return;
      const text = readFileSync(out, 'utf8');
      const found = text.split(TO_ESM).length - 1;
      if (found !== 1) throw new Error(`${out}: ${found} copies of esbuild's __toESM helper where one was expected (esbuild changed: see scripts/server-bundle-options.mjs)`);
      writeFileSync(out, text.replace(TO_ESM, TO_ESM_ONCE));
    });
  },
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
      for (const a of awaits) if (!text.includes(a)) throw new Error(`${args.path}: no "${a}" (Ink changed: see scripts/server-bundle-options.mjs)`);
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
  if (!text.includes(made)) throw new Error(`${path}: no "${made}" (string-width changed: see scripts/server-bundle-options.mjs)`);
  return text.replace(made, 'let rgiEmojiRegexMade;\nconst rgiEmojiRegex = { test: (s) => (rgiEmojiRegexMade ??= /^\\p{RGI_Emoji}$/v).test(s) };');
}

/**
 * The first Intl.Segmenter a process makes costs 30-100 ms (src/text/grapheme-segmenter.ts says
 * why), and four of the server's dependencies make one as they load: each gets
 * lazyGraphemeSegmenter in its place, which makes it only for text that needs it (a first frame's
 * does not). Each file must hold exactly one, else the build fails here (a dependency changed).
 */
const LAZY_SEGMENTER_FILES = ['string-width/index.js', 'wrap-ansi/node_modules/string-width/index.js', 'slice-ansi/tokenize-ansi.js', '@alcalzone/ansi-tokenize/build/tokenize.js'];
const lazyGraphemeSegmenters = (root) => ({
  name: 'lazy-grapheme-segmenters',
  setup(b) {
    const files = LAZY_SEGMENTER_FILES.map((f) => `${root}node_modules/${f}`);
    const helper = JSON.stringify(`${root}dist/src/text/grapheme-segmenter.js`);
    b.onLoad({ filter: /[\\/]node_modules[\\/].*\.js$/ }, (args) => {
      if (!files.includes(args.path)) return undefined;
      let text = readFileSync(args.path, 'utf8');
      const made = text.split('new Intl.Segmenter(').length - 1;
      if (made !== 1) throw new Error(`${args.path}: ${made} "new Intl.Segmenter(" where one was expected (a dependency changed: see scripts/server-bundle-options.mjs)`);
      // string-width's emoji expression too (lazyEmoji): one file, one onLoad.
      if (args.path === `${root}node_modules/string-width/index.js`) text = lazyEmoji(args.path, text);
      return { contents: `import { lazyGraphemeSegmenter as __swbLazyGraphemeSegmenter } from ${helper};\n${text.replace('new Intl.Segmenter(', '__swbLazyGraphemeSegmenter(')}`, loader: 'js' };
    });
  },
});
