// The server's V8 flags live in two places: SERVER_NODE_FLAGS (the client's launch and the code
// cache's build) and bin/swb's serverflags line (`swb server`, and the server it starts beside a
// dashboard's client); each must be a flag this node accepts (a refused
// one stops the server before it starts). V8 refuses a code cache made under another flag hash,
// node's cache of its own built-ins included (made under V8's defaults): the server loads with its
// heap flags back at V8's defaults (SERVER_FLAGS_WHILE_LOADING) and must keep their memory effects.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SERVER_FLAGS_WHILE_LOADING, SERVER_FLAGS_WHILE_RUNNING, SERVER_HEAP_FLAGS, SERVER_NODE_FLAGS } from '../../../src/util/server-node-flags.js';

const root = join(import.meta.dirname, '..', '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'swb-flags-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs `script` (CommonJS) in a node with `flags`; its stdout. */
function node(flags: readonly string[], script: string): string {
  const run = spawnSync(process.execPath, [...flags, '-e', script], { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } });
  expect(run.stderr).toBe('');
  return run.stdout;
}

describe('SERVER_NODE_FLAGS', () => {
  it('are the flags bin/swb gives `swb server`', () => {
    const script = readFileSync(join(root, 'bin', 'swb'), 'utf8');
    const line = /^serverflags='([^']*)'$/m.exec(script);
    expect(line).not.toBeNull();
    expect(line![1]!.split(' ')).toEqual([...SERVER_NODE_FLAGS]);
  });

  it('are accepted by this node, and cap the heap’s growth without the memory reducer', () => {
    expect(node(SERVER_NODE_FLAGS, 'process.stdout.write("ok")')).toBe('ok');
    expect(SERVER_NODE_FLAGS).toContain('--no-memory-reducer');
    expect(SERVER_NODE_FLAGS.some((f) => f.startsWith('--heap-growing-percent='))).toBe(true);
  });

  it('name each heap flag’s default as this node’s V8 has it', () => {
    const options = spawnSync(process.execPath, ['--v8-options'], { encoding: 'utf8' }).stdout;
    for (const f of SERVER_HEAP_FLAGS) expect(options).toContain(`default: --${f.name}=${f.v8Default}\n`);
  });
});

describe('SERVER_FLAGS_WHILE_LOADING', () => {
  // Code caches made under V8's defaults, as node's cache of its built-ins is: one a check, since
  // V8 compiles a source once a process (its compilation cache) and would not read a second cache.
  const checks = ['before', 'loading', 'running'];
  const source = (check: string) => `(function () { return ${JSON.stringify(check)}; })`;
  const cache = (check: string) => join(dir, `${check}.cache`);
  node([], `const vm = require('node:vm'), fs = require('node:fs');\n${checks.map((c) => `fs.writeFileSync(${JSON.stringify(cache(c))}, new vm.Script(${JSON.stringify(source(c))}).createCachedData());`).join('\n')}`);
  const takes = (check: string) => `(new (require('node:vm').Script)(${JSON.stringify(source(check))}, { cachedData: require('node:fs').readFileSync(${JSON.stringify(cache(check))}) }).cachedDataRejected ? 'refused' : 'taken')`;

  it('makes a node started with the server’s flags take a cache made under V8’s defaults, which it refused before; the running flags make it refuse one again', () => {
    const out = node(SERVER_NODE_FLAGS, `
      const v8 = require('node:v8');
      const before = ${takes('before')};
      v8.setFlagsFromString(${JSON.stringify(SERVER_FLAGS_WHILE_LOADING)});
      const loading = ${takes('loading')};
      v8.setFlagsFromString(${JSON.stringify(SERVER_FLAGS_WHILE_RUNNING)});
      const running = ${takes('running')};
      process.stdout.write([before, loading, running].join(' '));`);
    expect(out).toBe('refused taken refused');
  });

  it('leaves the young generation as small as the command line set it up', () => {
    const semiSpaceMb = SERVER_HEAP_FLAGS.find((f) => f.name === 'max-semi-space-size')!.value;
    // Short-lived garbage with a few survivors grows the young generation to its cap.
    const churn = `
      let keep = [];
      for (let i = 0; i < 2e6; i++) { const o = { i, s: 'x' + i }; if (i % 100 === 0) keep.push(o); if (keep.length > 5000) keep = []; }
      process.stdout.write(String(require('node:v8').getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size / 1048576));`;
    const reset = `require('node:v8').setFlagsFromString(${JSON.stringify(SERVER_FLAGS_WHILE_LOADING)});`;
    const withFlagsReset = Number(node(SERVER_NODE_FLAGS, reset + churn));
    const without = Number(node([], churn));
    // Two semi-spaces of the command line's size; V8's default grows to 16 MB each.
    expect(withFlagsReset).toBeLessThanOrEqual(2 * semiSpaceMb);
    expect(without).toBeGreaterThan(2 * semiSpaceMb);
  });
});
