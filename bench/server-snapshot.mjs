#!/usr/bin/env node
// npm run bench:server-snapshot — would a V8 startup snapshot of the server's bundle start the
// server faster than the code-cached bundle it loads today (issue #33)? Builds, in a temp dir, the
// snapshot the way a build step would have to (`node --build-snapshot`, the server's own V8 flags),
// then times, interleaved, from spawn to "the server's code is ready" (runServer callable):
//   cache      the path the server takes today: dist/server.bundle.cjs with dist/server.bundle.cache
//              (src/server/server-bundle.ts), yoga-layout imported first
//   snapshot   node --snapshot-blob: the bundle's heap deserialized, then yoga-layout imported and
//              the native addons' require() made ready
//   node -e 0  under the same flags, the unit of issue #33's goal
// and reports each one's CPU (user + system, the process's own), wall and RSS at that point.
// Favourable to the snapshot: a function the bundle's load did not run has no bytecode in the
// snapshot and compiles at its first call, after this bench stops the clock (the code cache holds
// every function the load ran, too).
//
// What Node 20's userland snapshot needs of this bundle (the probe below does each):
//  - one script, only built-in modules at build time: node-pty, better-sqlite3 and yoga-layout (an
//    ES module with a top-level await and wasm, which a snapshot cannot hold) are stand-ins that
//    load the real module at their first use, from the deserialized main;
//  - no ICU object in the heap: the bundle makes five Intl.Segmenter at its top level (string-width,
//    Ink, the painter), each a V8 Managed<> pointer the snapshot cannot serialize ("global handle not
//    serialized", a fatal check) — they are made lazy while the bundle loads;
//  - node:http, node:https and node:tls cannot be loaded at build time (the same fatal check); the
//    bundle's load does not load them today.
// And what it does not do, which a real build step would have to: state the top level computed
// from the environment at build time (chalk's colour level from FORCE_COLOR, SWB_START_TRACE, any
// process.env read at import) would be the build machine's, not the server's.
//   node bench/server-snapshot.mjs [RUNS]   (default 9 of each)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const runs = Number(process.argv[2] ?? 9);
const bundlePath = join(root, 'dist', 'server.bundle.cjs');
const { SERVER_NODE_FLAGS } = await import(pathToFileURL(join(root, 'dist', 'src', 'util', 'server-node-flags.js')).href);
const dir = mkdtempSync(join(tmpdir(), 'swb-snapshot-bench-'));

/** The line each timed process prints when its server code is ready: CPU ms, RSS bytes. */
const READY = `const c = process.cpuUsage(); process.stdout.write(JSON.stringify({ cpuMs: (c.user + c.system) / 1000, rss: process.memoryUsage.rss(), sinceStartMs: performance.now() }) + '\\n');`;

function snapshotEntry() {
  const source = readFileSync(bundlePath, 'latin1');
  const pre = `'use strict';
let realRequire = null;
const loaded = new Map();
function external(id) { let m = loaded.get(id); if (m === undefined) { m = realRequire(id); loaded.set(id, m); } return m; }
function lazy(id, pick) {
  const real = () => pick(external(id));
  return new Proxy(function () {}, {
    get: (_t, k) => Reflect.get(real(), k),
    has: (_t, k) => Reflect.has(real(), k),
    apply: (_t, self, args) => Reflect.apply(real(), self, args),
    construct: (_t, args) => Reflect.construct(real(), args),
  });
}
const standIns = {
  'node-pty': lazy('node-pty', (m) => m),
  'better-sqlite3': lazy('better-sqlite3', (m) => m),
  'yoga-layout': { default: lazy('yoga-layout', (m) => m.default) },
};
const buildRequire = (id) => (Object.hasOwn(standIns, id) ? standIns[id] : require(id));
const RealSegmenter = Intl.Segmenter;
class LazySegmenter {
  constructor(locales, options) { this.locales = locales; this.options = options; this.real = undefined; }
  segment(text) { return (this.real ??= new RealSegmenter(this.locales, this.options)).segment(text); }
  resolvedOptions() { return (this.real ??= new RealSegmenter(this.locales, this.options)).resolvedOptions(); }
}
Intl.Segmenter = LazySegmenter;
const mod = { exports: {} };
const bundle = `;
  const post = `;
bundle(mod.exports, buildRequire, mod, ${JSON.stringify(bundlePath)}, ${JSON.stringify(join(root, 'dist'))}, ${JSON.stringify(pathToFileURL(bundlePath).href)});
Intl.Segmenter = RealSegmenter;
require('node:v8').startupSnapshot.setDeserializeMainFunction(() => {
  const c0 = process.cpuUsage();
  const mainCpuMs = (c0.user + c0.system) / 1000;
  realRequire = require('node:module').createRequire(${JSON.stringify(bundlePath)});
  const vm = require('node:vm');
  new vm.Script('import("yoga-layout")', { filename: ${JSON.stringify(bundlePath)}, importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER })
    .runInThisContext()
    .then((yoga) => {
      loaded.set('yoga-layout', yoga);
      if (typeof mod.exports.runServer !== 'function') throw new Error('no runServer in the snapshot');
      process.stdout.write(JSON.stringify({ mainCpuMs }) + '\\n');
      ${READY}
    });
});
`;
  return pre + source + post;
}

const entry = join(dir, 'server-snapshot-entry.cjs');
const blob = join(dir, 'server.snapshot.blob');
writeFileSync(entry, snapshotEntry());
const cacheScript = join(dir, 'code-cache-path.mjs');
writeFileSync(
  cacheScript,
  `process.env.NODE_ENV = 'production';
const { loadServer } = await import(${JSON.stringify(pathToFileURL(join(root, 'dist', 'src', 'server', 'server-bundle.js')).href)});
const { server, bundle } = await loadServer();
if (typeof server.runServer !== 'function' || bundle?.cache !== 'used') throw new Error('the code cache was not used: ' + bundle?.cache);
${READY}
`,
);

const quiet = { ...process.env, NODE_ENV: 'production' };
delete quiet.SWB_START_TRACE;
const t0 = performance.now();
const built = spawnSync(process.execPath, [...SERVER_NODE_FLAGS, '--snapshot-blob', blob, '--build-snapshot', entry], { env: quiet, encoding: 'utf8' });
const buildMs = performance.now() - t0;
if (built.status !== 0) {
  process.stderr.write(`the snapshot did not build (status ${built.status}):\n${built.stderr.slice(-3000)}\n`);
  process.exit(1);
}

function timed(args) {
  const start = performance.now();
  const r = spawnSync(process.execPath, args, { env: quiet, encoding: 'utf8' });
  const wallMs = performance.now() - start;
  if (r.status !== 0) throw new Error(`${args.join(' ')}: status ${r.status}: ${r.stderr.slice(-2000)}`);
  const lines = r.stdout.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));
  return Object.assign({ wallMs }, ...lines);
}

const systems = {
  'node -e 0': [...SERVER_NODE_FLAGS, '-e', READY],
  cache: [...SERVER_NODE_FLAGS, '--no-warnings', cacheScript],
  snapshot: [...SERVER_NODE_FLAGS, '--no-warnings', '--snapshot-blob', blob],
};
const results = Object.fromEntries(Object.keys(systems).map((k) => [k, []]));
for (let i = 0; i < runs; i++) {
  // Who goes first changes every round.
  const order = Object.keys(systems);
  for (let k = 0; k < i % order.length; k++) order.push(order.shift());
  for (const name of order) results[name].push(timed(systems[name]));
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const fmt = (x) => x.toFixed(0).padStart(6);
const unit = median(results['node -e 0'].map((r) => r.cpuMs));
process.stdout.write(
  `node ${process.version}, flags ${SERVER_NODE_FLAGS.join(' ')}, ${runs} runs each, interleaved; load average at the end ${(await import('node:os')).loadavg().map((x) => x.toFixed(2)).join(' ')}\n` +
    `snapshot: built in ${buildMs.toFixed(0)} ms, blob ${(statSync(blob).size / 1e6).toFixed(1)} MB (bundle ${(statSync(bundlePath).size / 1e6).toFixed(1)} MB, its code cache ${(statSync(join(root, 'dist', 'server.bundle.cache')).size / 1e6).toFixed(1)} MB)\n` +
    `medians to "server code ready":          CPU ms   wall ms   RSS MB   CPU x node -e 0\n`,
);
for (const [name, rs] of Object.entries(results)) {
  const cpu = median(rs.map((r) => r.cpuMs));
  process.stdout.write(`  ${name.padEnd(38)} ${fmt(cpu)}   ${fmt(median(rs.map((r) => r.wallMs)))}   ${(median(rs.map((r) => r.rss)) / 1e6).toFixed(1).padStart(6)}   ${(cpu / unit).toFixed(2)}x\n`);
}
process.stdout.write(`  snapshot: CPU when its main function began (the deserialization): ${fmt(median(results.snapshot.map((r) => r.mainCpuMs)))} ms\n`);
process.stdout.write(`  all CPU ms: ${Object.entries(results).map(([n, rs]) => `${n}: ${rs.map((r) => r.cpuMs.toFixed(0)).join(' ')}`).join('; ')}\n`);
rmSync(dir, { recursive: true, force: true });
