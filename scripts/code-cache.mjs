// After the bundles: writes dist/server.bundle.cache, V8's code cache of the server bundle as the
// server loads it (src/server/server-bundle.ts; src/util/code-cached-bundle.ts says why). Made by
// the node that builds, started with the server's own V8 flags (src/util/server-node-flags.ts) and
// loading as the server does, under the flags it loads with (src/server/server-flag-hash.ts): V8
// refuses a cache made by another node or under other flags (and the server compiles as it would
// without one).
//
// Two steps. First the cache of the load alone: every function the bundle's top level ran. Then a
// warm run replaces it, when it can: a real `swb` in a pseudo-terminal starts a real server with 8
// rows, waits for the first frame that shows all of them, and stops it; the server writes the
// cache as it exits (SWB_WRITE_CODE_CACHE, src/server/server-entry.ts). That cache also holds what the first frame
// compiled (React's first commit, Ink's output, xterm's terminals, node-pty's spawn, the store's
// statements), which V8 otherwise compiles lazily at every cold start while the operator waits:
// issue #33, 8 rows, about 55 ms of the server's CPU before its first frame (measured here). A warm
// run that fails (no pseudo-terminal in this sandbox, say) leaves the first cache: the build goes on.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** How long the warm run may take before the build gives up on it (a cold start takes about one second). */
const WARM_RUN_TIMEOUT_MS = 30_000;
const WARM_ROWS = 8;

const { SERVER_NODE_FLAGS } = await import('../dist/src/util/server-node-flags.js');
if (process.env.SWB_CODE_CACHE_WRITER !== '1') {
  // Again, under the server's flags.
  const run = spawnSync(process.execPath, [...SERVER_NODE_FLAGS, fileURLToPath(import.meta.url)], { stdio: 'inherit', env: { ...process.env, SWB_CODE_CACHE_WRITER: '1' } });
  process.exit(run.status ?? 1);
}
process.env.NODE_ENV = 'production';
const { loadServer, serverBundleCodeCache, SERVER_BUNDLE_CACHE } = await import('../dist/src/server/server-bundle.js');
rmSync(SERVER_BUNDLE_CACHE, { force: true });
const { bundle } = await loadServer();
if (bundle === null) {
  process.stderr.write('code-cache: no dist/server.bundle.cjs (run scripts/bundle.mjs first)\n');
  process.exit(1);
}
writeFileSync(SERVER_BUNDLE_CACHE, serverBundleCodeCache(bundle));
try {
  await warmRun(fileURLToPath(SERVER_BUNDLE_CACHE));
} catch (err) {
  process.stderr.write(`code-cache: kept the cache of the load alone; the warm run did not finish: ${err.message}\n`);
}
// The bundle's top level may have left handles (none should): the cache is written, so end here.
process.exit(0);

/** A first frame of 8 rows in a real terminal, then the server's own cache of it (see the header). */
async function warmRun(cachePath) {
  const { spawn } = (await import('node-pty')).default;
  const root = fileURLToPath(new URL('..', import.meta.url));
  const home = mkdtempSync(join(tmpdir(), 'swb-code-cache-'));
  const warmCache = join(home, 'server.bundle.cache');
  mkdirSync(join(home, 'config', 'switchboard'), { recursive: true });
  const env = { ...process.env, SWB_HOME: home, XDG_CONFIG_HOME: join(home, 'config'), SWB_NO_SCOPE: '1', SWB_WRITE_CODE_CACHE: warmCache, TERM: 'xterm-256color', SHELL: '/bin/sh' };
  for (const k of ['SWB_CODE_CACHE_WRITER', 'SWB_SERVER_NODE_ARGS', 'SWB_START_TRACE', 'NODE_OPTIONS', 'CI', 'TMUX', 'FORCE_COLOR', 'NO_COLOR']) delete env[k];
  const swb = join(root, 'dist', 'bin', 'swb.js');
  // Each row prints a line the frame must show; the command's own text (in the row's header) does not hold it.
  const rows = Array.from({ length: WARM_ROWS }, (_, i) => `w${i + 1}=printf 'warm-%s\\n' ${i + 1}; exec sleep 1000000`);
  const client = spawn(process.execPath, [swb, '--layout', 'grid', ...rows], { name: 'xterm-256color', cols: 200, rows: 50, cwd: home, env });
  let seen = '';
  let exited = false;
  client.onExit(() => (exited = true));
  try {
    await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no first frame within ${WARM_RUN_TIMEOUT_MS / 1000} s`)), WARM_RUN_TIMEOUT_MS);
      const shown = () => Array.from({ length: WARM_ROWS }, (_, i) => `warm-${i + 1}`).every((m) => seen.includes(m));
      client.onData((d) => {
        if (seen.length < 4 << 20) seen += d;
        if (shown()) {
          clearTimeout(timer);
          resolve();
        }
      });
      client.onExit(() => {
        clearTimeout(timer);
        reject(new Error(`swb exited before its first frame: ${seen.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '').trim().slice(-300)}`));
      });
    });
    const kill = spawnSync(process.execPath, [swb, 'kill-server', '--force'], { env, cwd: home, encoding: 'utf8', timeout: WARM_RUN_TIMEOUT_MS });
    if (kill.status !== 0) throw new Error(`swb kill-server: ${kill.stderr || kill.error?.message || `status ${kill.status}`}`);
    // The server writes the cache once it has stopped, after it said BYE to the client: wait for the file.
    const deadline = Date.now() + WARM_RUN_TIMEOUT_MS;
    while (!existsSync(warmCache)) {
      if (Date.now() > deadline) throw new Error(`the server wrote no cache within ${WARM_RUN_TIMEOUT_MS / 1000} s of kill-server`);
      await new Promise((r) => setTimeout(r, 20));
    }
    const size = statSync(warmCache).size;
    copyFileSync(warmCache, cachePath);
    process.stdout.write(`code-cache: warm cache of a first frame (${WARM_ROWS} rows), ${(size / 1e6).toFixed(2)} MB\n`);
  } finally {
    if (!exited) client.kill('SIGKILL');
    rmSync(home, { recursive: true, force: true });
  }
}
