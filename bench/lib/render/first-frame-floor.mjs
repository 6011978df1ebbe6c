// The render bench's floor for `first` and `memory` (issue #33: a cold start with 8 rows in
// <= 3x `node -e 0`, "two node starts and a frame"; a server base <= 60 MB). A dashboard on swb's
// mandated stack (Node, Ink/React with yoga-layout's wasm, @xterm/headless, node-pty) that does
// exactly that and nothing else, as fast as the stack allows: a thin client (first-frame-floor-
// client.cjs) that starts a detached server and relays its frames; a server (first-frame-floor-
// boot.mjs, -server.mjs) that loads one bundle of the stack with a warm code cache, starts the rows
// in ptys with swb's posix_spawn, parses their output into xterm terminals and renders them with
// Ink. No SQLite, hub, config, trust check, supervision, scrollback or colour. What swb spends
// above it is swb's; what the floor spends is the stack's.
//
// The bundle and its cache are built at bench start (buildFirstFrameFloor), not by the product's
// build: the bundle with the workspace server's own esbuild options (scripts/server-bundle-
// options.mjs: production React, Ink without its DEV-mode awaits, the lazy Intl.Segmenter, the
// CommonJS wrapper of swb's code-cached loader), written Latin-1 as the build writes swb's; the cache
// from a warm run (as scripts/code-cache.mjs makes swb's): a first frame of 8 rows, after which the
// server writes the cache of all it compiled, under the server's own V8 flags (SERVER_NODE_FLAGS).
import { build } from 'esbuild';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PtyClient, sleep } from './pty-client.mjs';
import { COLS, ROWS, clientEnv, waitUntilGone } from './systems.mjs';
import { helloCommand } from './workloads.mjs';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const here = (file) => fileURLToPath(new URL(file, import.meta.url));
const { SERVER_NODE_FLAGS } = await import(new URL('dist/src/util/server-node-flags.js', `file://${root}`).href);

/**
 * Builds the floor's bundle and its warm code cache into a new directory, which the caller removes
 * (`dispose()`). Under node_modules/.cache: the bundle's require() of node-pty and the posix_spawn
 * addon's lookup of the package root (src/util/package-root.ts) resolve from where the bundle is,
 * as they do from swb's dist/.
 */
export async function buildFirstFrameFloor(benchDir) {
  mkdirSync(join(root, 'node_modules', '.cache'), { recursive: true });
  const dir = mkdtempSync(join(root, 'node_modules', '.cache', 'swb-bench-floor-'));
  const bundle = join(dir, 'floor-server.bundle.cjs');
  const cache = join(dir, 'floor-server.bundle.cache');
  const floor = { dir, bundle, cache, cacheBytes: 0, dispose: () => rmSync(dir, { recursive: true, force: true }) };
  try {
    const [{ serverBundleOptions }, { oneByteSource }] = await Promise.all([import(new URL('scripts/server-bundle-options.mjs', `file://${root}`).href), import(new URL('dist/src/util/one-byte-source.js', `file://${root}`).href)]);
    await build({ ...serverBundleOptions(root), entryPoints: [here('./first-frame-floor-server.mjs')], outfile: bundle });
    // yoga's loader as swb's server entry has it (src/server/server-bundle.ts): yoga-layout/load, no
    // top-level await, bundled as CommonJS, so that loading yoga starts no ES module loader.
    await build({
      bundle: true,
      platform: 'node',
      target: 'node20',
      format: 'cjs',
      logLevel: 'warning',
      banner: { js: "const __swbImportMetaUrl = require('node:url').pathToFileURL(__filename).href;" },
      define: { 'import.meta.url': '__swbImportMetaUrl' },
      stdin: { contents: "export * from 'yoga-layout/load';", resolveDir: root, loader: 'js' },
      outfile: join(dir, 'yoga-load.cjs'),
    });
    writeFileSync(bundle, oneByteSource(withoutEmojiTestOfOneUnit(readFileSync(bundle, 'utf8'))), 'latin1');
    // The warm run: the server writes the cache when stopped, after a first frame of 8 rows.
    const part = `${cache}.part`;
    const rows = Array.from({ length: 8 }, (_, i) => ({ name: `w${i + 1}`, cmd: helloCommand(`w${i + 1}`) }));
    const s = await startFirstFrameFloor({ dir: benchDir }, floor, rows, { extraEnv: { SWB_BENCH_FLOOR_WRITE_CACHE: part } });
    try {
      await s.client.waitForMarkers([...rows.map((r) => `HELLO-${r.name}`), ...rows.map((r) => ` ${r.name} · `)], 30000);
      await sleep(200);
    } finally {
      await s.stop();
    }
    if (!existsSync(part)) throw new Error('the warm run wrote no code cache');
    floor.cacheBytes = readFileSync(part).length;
    renameSync(part, cache);
    return floor;
  } catch (err) {
    floor.dispose();
    throw err;
  }
}

/**
 * The floor's headers (" f1 · running") go through Ink's layout, which measures them with
 * string-width; swb's do not (its compositor draws them: components/row-header-line.ts). Text that
 * is not printable ASCII makes string-width test each cluster against /^\p{RGI_Emoji}$/v, whose
 * first use builds the set of every emoji sequence: 30-35 ms of the floor's first render (a CPU
 * profile of it). No cluster of one UTF-16 unit below U+231A (the first emoji shown as one) is an
 * RGI emoji (checked over all of them), so those skip the test: the same widths, without a cost a
 * dashboard on this stack need not pay for a middle dot. Fails the build if string-width changed.
 */
function withoutEmojiTestOfOneUnit(source) {
  const test = 'rgiEmojiRegex.test(segment) || isDoubleWidthNonRgiEmojiSequence(segment)';
  const found = source.split(test).length - 1;
  if (found !== 1) throw new Error(`the floor bundle holds ${found} "${test}" where one was expected (string-width changed)`);
  return source.replace(test, `(segment.length > 1 || segment.charCodeAt(0) >= 0x231a) && (${test})`);
}

/**
 * The floor with `rows` ([{ name, cmd }]), each at the size and place swb's grid gives it at
 * COLSxROWS (src/app/layout.ts, as startFloor does), its client in a pty of that size: started as
 * swb's client is (startSwb), but run by node directly, and without NODE_EXTRA_CA_CERTS (which
 * bin/swb sets aside for swb's client and server: src/util/ca-certs-aside.ts). `onClient(client)`
 * as soon as the pty exists; `extraEnv`: more environment (SWB_START_TRACE, say).
 */
export async function startFirstFrameFloor(ctx, floor, rows, { onClient, extraEnv = {} } = {}) {
  const { computeLayout } = await import(new URL('dist/src/app/layout.js', `file://${root}`).href);
  const names = rows.map((r) => r.name);
  // CHROME_HEIGHT in src/server/client-session.ts: the notification strip and the key hints.
  const layout = computeLayout({ cols: COLS, rows: ROWS, names, focused: names[0], mode: 'grid', zoomed: false, chromeHeight: 2 });
  const specs = rows.map((r) => {
    const v = layout.rows.find((p) => p.name === r.name)?.viewport;
    if (!v || v.height < 1) throw new Error(`the grid at ${COLS}x${ROWS} has no room for row ${r.name}`);
    return `${r.name}@${v.x},${v.y},${v.width}x${v.height}=${r.cmd}`;
  });
  const dir = mkdtempSync(join(ctx.dir, 'floor-'));
  const env = clientEnv({ NODE_ENV: 'production', HOME: dir, ...extraEnv });
  delete env.NODE_EXTRA_CA_CERTS;
  const serverArgs = [...SERVER_NODE_FLAGS, here('./first-frame-floor-boot.cjs'), floor.bundle, dir, String(COLS), String(ROWS), ...specs];
  const client = new PtyClient({ file: process.execPath, args: [here('./first-frame-floor-client.cjs'), dir, '--', ...serverArgs], env, cwd: dir, cols: COLS, rows: ROWS });
  onClient?.(client);
  let serverPid;
  try {
    serverPid = await waitForPidFile(join(dir, 'server.pid'), client, 20000);
  } catch (err) {
    await client.stop('SIGKILL', 1000);
    client.dispose();
    throw err;
  }
  const kill = (signal) => {
    try {
      process.kill(serverPid, signal);
    } catch {
      // gone
    }
  };
  return {
    system: 'floor',
    client,
    serverPid,
    cpuPids: [serverPid, client.pid],
    memPid: serverPid,
    dir,
    killNow() {
      kill('SIGKILL');
      try {
        process.kill(client.pid, 'SIGKILL');
      } catch {
        // gone
      }
    },
    async stop() {
      // The server ends its rows; its socket closes, and the client exits.
      kill('SIGTERM');
      await waitUntilGone(serverPid, 10000);
      await client.stop('SIGTERM', 5000);
      client.dispose();
    },
  };
}

async function waitForPidFile(path, client, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const pid = Number(readFileSync(path, 'utf8'));
      if (pid > 0) return pid;
    } catch {
      // not yet
    }
    if (client.exitInfo) throw new Error(`the floor client exited before it started its server (${JSON.stringify(client.exitInfo)})`);
    if (Date.now() > deadline) throw new Error(`the floor client named no server within ${timeoutMs} ms`);
    await sleep(10);
  }
}
