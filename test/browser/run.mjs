#!/usr/bin/env node
// The browser suite: the page in headless Debian chromium (driven by playwright-core) against real
// servers. Installs chromium with apt-get when it is missing (after `apt-get update` if the package
// is not found), builds swb if needed, then runs test/browser/ with its own vitest config. Not part
// of `npm test` (a browser is a few hundred MB); .ci/run runs it.
//
//   node test/browser/run.mjs [vitest args, e.g. -t NAME]
//
// Exit status: vitest's, or 1 when chromium could not be installed.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const found = () => [process.env.SWB_CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser'].some((p) => p && existsSync(p));

if (!found()) {
  process.stdout.write('browser suite: installing chromium with apt-get\n');
  const apt = (...args) => spawnSync('apt-get', args, { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } }).status === 0;
  if (!apt('install', '-y', 'chromium')) apt('update') && apt('install', '-y', 'chromium');
  if (!found()) {
    process.stderr.write('browser suite: chromium could not be installed (apt-get install -y chromium)\n');
    process.exit(1);
  }
}

// The suite drives the built CLI and serves the built page.
if (!existsSync(join(root, 'dist', 'bin', 'swb.js')) || !existsSync(join(root, 'dist', 'web', 'app.js'))) {
  const b = spawnSync('npm', ['run', 'build'], { stdio: 'inherit', cwd: root });
  if (b.status !== 0) process.exit(b.status ?? 1);
}

const vitest = join(root, 'node_modules', 'vitest', 'vitest.mjs');
const r = spawnSync(process.execPath, [vitest, 'run', '--config', join(root, 'vitest.browser.config.ts'), ...process.argv.slice(2)], { stdio: 'inherit', cwd: root });
process.exit(r.status ?? 1);
