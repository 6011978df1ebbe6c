#!/usr/bin/env node
// The real-agent suite: installs the pinned agent CLIs (test/real-agents/pins.json) into the ignored
// .cache/agents when they are missing or at another version, builds swb if needed, then runs
// test/real-agents/ with its own vitest config. Not part of `npm test` (the CLIs are hundreds of MB).
//
//   node test/real-agents/run.mjs [vitest args, e.g. a file filter or -t NAME]
//
// Exit status: vitest's, or 1 when the CLIs could not be installed.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const cache = join(root, '.cache', 'agents');
const { $comment: _comment, ...pins } = JSON.parse(readFileSync(new URL('./pins.json', import.meta.url), 'utf8'));

function installedVersion(pkg) {
  try {
    return JSON.parse(readFileSync(join(cache, 'node_modules', pkg, 'package.json'), 'utf8')).version;
  } catch {
    return undefined;
  }
}

const missing = Object.entries(pins).filter(([pkg, version]) => installedVersion(pkg) !== version);
if (missing.length > 0) {
  const specs = missing.map(([pkg, version]) => `${pkg}@${version}`);
  process.stdout.write(`real agents: installing ${specs.join(' ')} into .cache/agents\n`);
  mkdirSync(cache, { recursive: true });
  // No install scripts (Gemini's optional node-pty build is not needed to run it); Claude Code's
  // own postinstall, which only links its native binary from the platform package, runs below.
  const r = spawnSync('npm', ['install', '--prefix', cache, '--save-exact', '--ignore-scripts', '--no-audit', '--no-fund', ...specs], {
    stdio: 'inherit',
    cwd: root,
  });
  const still = Object.entries(pins).filter(([pkg, version]) => installedVersion(pkg) !== version);
  if (r.status !== 0 || still.length > 0) {
    process.stderr.write(`real agents: could not install ${still.map(([p, v]) => `${p}@${v}`).join(' ') || specs.join(' ')} (npm exit ${r.status}).\n`);
    process.exit(1);
  }
}

// Claude Code's postinstall links the native binary shipped in its platform package
// (@anthropic-ai/claude-code-linux-x64); without it `claude` only prints "native binary not
// installed". Local and idempotent, so it runs every time (a cache from an older run may lack it).
const claudeInstall = join(cache, 'node_modules', '@anthropic-ai', 'claude-code', 'install.cjs');
if (existsSync(claudeInstall)) {
  const c = spawnSync(process.execPath, [claudeInstall], { stdio: 'inherit', cwd: join(cache, 'node_modules', '@anthropic-ai', 'claude-code') });
  if (c.status !== 0) {
    process.stderr.write(`real agents: Claude Code's install.cjs failed (exit ${c.status}).\n`);
    process.exit(1);
  }
}

// The swb e2e tests drive the built CLI.
if (!existsSync(join(root, 'dist', 'bin', 'swb.js'))) {
  const b = spawnSync('npm', ['run', 'build'], { stdio: 'inherit', cwd: root });
  if (b.status !== 0) process.exit(b.status ?? 1);
}

const vitest = join(root, 'node_modules', 'vitest', 'vitest.mjs');
const r = spawnSync(process.execPath, [vitest, 'run', '--config', join(root, 'vitest.real-agents.config.ts'), ...process.argv.slice(2)], {
  stdio: 'inherit',
  cwd: root,
  // Every test must run: a CLI that is still missing is a failure here, not a skip.
  env: { ...process.env, SWB_REAL_AGENTS_REQUIRED: '1' },
});
process.exit(r.status ?? 1);
