// What rows learn of the server's config (src/server/config-for-rows.ts): SWB_CONFIG, so that a hub
// a row's CLI starts after a crash reads the same file — with the same trust, never more: a file the
// operator named with --config keeps working there, an untrusted workspace file stays untrusted.
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/load-config.js';
import { configEnvForRows } from '../../../src/server/config-for-rows.js';

let dir: string;
let env: NodeJS.ProcessEnv;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'swb-rows-config-'));
  env = { SWB_HOME: join(dir, 'swb'), HOME: dir, XDG_CONFIG_HOME: join(dir, 'xdg') };
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const CONFIG = { rows: [{ name: 'build', command: 'make watch' }], federation: { url: 'nats://127.0.0.1:4222', node: 'a' } };

function fileWith(value: unknown): { path: string; sha256: string } {
  const path = join(dir, 'team.json');
  writeFileSync(path, JSON.stringify(value));
  return { path, sha256: createHash('sha256').update(readFileSync(path)).digest('hex') };
}

/** The config a row's hub reads: its cwd elsewhere, SWB_CONFIG from the row's environment. */
function asTheRowsHubReadsIt(rowEnv: Record<string, string>) {
  const r = loadConfig({ cwd: join(dir), env: { ...env, ...rowEnv } });
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}

describe('SWB_CONFIG for the rows', () => {
  it('a --config file is recorded as trusted as it is handed on, so the rows\u2019 hub keeps its federation', () => {
    const { path, sha256 } = fileWith(CONFIG);
    const rowEnv = configEnvForRows({ env, configPath: path, configOrigin: 'flag', configSha256: sha256 }, () => undefined);
    expect(rowEnv).toEqual({ SWB_CONFIG: path });
    const seen = asTheRowsHubReadsIt(rowEnv);
    expect(seen.withheld).toBeNull();
    expect(seen.config.federation).toMatchObject({ url: 'nats://127.0.0.1:4222' });
  });

  it('an untrusted workspace file is handed on untrusted: the rows\u2019 hub gets its limits, never its federation', () => {
    const { path, sha256 } = fileWith({ ...CONFIG, limits: { maxUnread: 4 } });
    const rowEnv = configEnvForRows({ env, configPath: path, configOrigin: 'workspace', configSha256: sha256 }, () => undefined);
    const seen = asTheRowsHubReadsIt(rowEnv);
    expect(seen.config.federation).toBeUndefined();
    expect(seen.config.rows).toEqual([]);
    expect(seen.limits.maxUnread).toBe(4);
  });

  it('no file, no variable', () => {
    expect(configEnvForRows({ env, configPath: null, configOrigin: null, configSha256: null }, () => undefined)).toEqual({});
  });
});
