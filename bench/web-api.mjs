#!/usr/bin/env node
// npm run bench:web-api — what the Intercom HTTP API costs over the hub socket it runs through
// (issue #32): the same sender (the operator) sends N messages one at a time, alternating
// `mail.send` on hub.sock and `POST /api/send` on the web listener, against one real hub in a temp
// SWB_HOME, and the round trips' p50/p95 are printed side by side (a first round warms up). Both
// answer after the store's commit, so the difference is the HTTP hop: parsing, the credential, and
// the listener's own hub connection. --n=N sets the count (default 300).
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const load = (path) => import(join(root, 'dist', 'src', path));
const { Hub } = await load('hub/hub.js');
const { resolveRuntimePaths } = await load('hub/runtime-paths.js');
const { HubClient } = await load('client/hub-client.js');
const { WebServing } = await load('server/web-serving.js');

const n = Number(process.argv.find((a) => a.startsWith('--n='))?.slice(4) ?? 300);
const home = mkdtempSync(join(tmpdir(), 'swb-bench-web-api-'));
const workspace = join(home, 'ws');
mkdirSync(workspace);
const paths = resolveRuntimePaths({ cwd: workspace, env: { SWB_HOME: home } });
const hub = await Hub.start({ paths, limits: { ratePerSecond: 0, maxUnread: 0 } });
hub.core.sessions.registerRow('alpha');
const serving = new WebServing({ paths, pages: { open: () => ({ dispose() {} }) }, log: () => {} });
try {
  const started = await serving.web({});
  if ('error' in started) throw new Error(started.error.message);
  const token = new URLSearchParams(new URL(started.ok.loginUrl).hash.slice(1)).get('token');
  const base = started.ok.url.replace(/\/$/, '');
  const client = await HubClient.open(paths.socketPath);
  await client.sayHello({ session: 'operator', token: readFileSync(paths.operatorTokenFile, 'utf8').trim() });
  const pct = (a, p) => [...a].sort((x, y) => x - y)[Math.min(a.length - 1, Math.floor(a.length * p))].toFixed(2);
  for (const round of ['warm-up', 'measured']) {
    const socket = [];
    const http = [];
    for (let i = 0; i < n; i++) {
      let t = performance.now();
      await client.request('mail.send', { to: ['alpha'], text: `socket ${i}` });
      socket.push(performance.now() - t);
      t = performance.now();
      const res = await fetch(`${base}/api/send`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ to: 'alpha', text: `http ${i}` }),
      });
      if (res.status !== 200) throw new Error(`POST /api/send answered ${res.status}: ${await res.text()}`);
      http.push(performance.now() - t);
    }
    if (round === 'measured') {
      console.log(`${n} sends, one at a time:`);
      console.log(`  mail.send over hub.sock   p50 ${pct(socket, 0.5)} ms  p95 ${pct(socket, 0.95)} ms`);
      console.log(`  POST /api/send over HTTP  p50 ${pct(http, 0.5)} ms  p95 ${pct(http, 0.95)} ms`);
    }
  }
  client.destroy();
} finally {
  serving.dispose();
  await hub.stop();
  rmSync(home, { recursive: true, force: true });
}
