#!/usr/bin/env node
// The federation suite: makes sure a nats-server with JetStream is there (Debian's nats-server
// package: apt-get install, after apt-get update when the package is not found), builds swb if
// needed, then runs test/federation/ with its own vitest config. Not part of `npm test`.
//
//   node test/federation/run.mjs [vitest args]
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const has = () => spawnSync(process.env.NATS_SERVER ?? 'nats-server', ['--version'], { stdio: 'ignore' }).status === 0;
if (!has()) {
  process.stdout.write('federation: installing nats-server (Debian package)\n');
  const sudo = process.getuid?.() === 0 ? [] : ['sudo', '-n'];
  const apt = (...args) => spawnSync(sudo[0] ?? 'apt-get', [...sudo.slice(1), ...(sudo.length ? ['apt-get'] : []), ...args], { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  if (apt('install', '-y', 'nats-server').status !== 0) {
    apt('update');
    apt('install', '-y', 'nats-server');
  }
  if (!has()) {
    process.stderr.write('federation: nats-server could not be installed; the suite needs it.\n');
    process.exit(1);
  }
}
if (!existsSync(join(root, 'dist', 'bin', 'swb.js'))) {
  const b = spawnSync('npm', ['run', 'build'], { stdio: 'inherit', cwd: root });
  if (b.status !== 0) process.exit(b.status ?? 1);
}
const r = spawnSync(process.execPath, [join(root, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--config', 'vitest.federation.config.ts', ...process.argv.slice(2)], { stdio: 'inherit', cwd: root });
process.exit(r.status ?? 1);
