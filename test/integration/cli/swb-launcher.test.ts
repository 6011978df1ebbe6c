// The rows' `swb` launcher: CLI commands start without node reading NODE_EXTRA_CA_CERTS (it costs
// node ~130 ms before any JavaScript runs), commands that may speak TLS keep it, and what the
// launcher set aside reaches the command under the aside name. Real processes, the compiled entry.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CA_CERTS_ASIDE } from '../../../src/util/ca-certs-aside.js';
import { writeSwbLauncher } from '../../../src/util/swb-launcher.js';

const dir = mkdtempSync(join(tmpdir(), 'swb-launcher-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A file node cannot load: node warns about it on stderr at start-up whenever it reads the setting. */
const MISSING_CA = join(dir, 'no-such-ca.pem');
const READ_WARNING = /Ignoring extra certs/;

function run(launcherDir: string, args: string[], env: NodeJS.ProcessEnv) {
  const { PATH, HOME } = process.env;
  return spawnSync(join(launcherDir, 'swb'), args, { env: { PATH, HOME, ...env }, encoding: 'utf8', timeout: 20_000 });
}

describe('the rows’ swb launcher', () => {
  it('starts a CLI command without node reading the CA file, and `hub` with it', () => {
    const real = writeSwbLauncher(join(dir, 'real'));
    const send = run(real, ['send', '--help'], { NODE_EXTRA_CA_CERTS: MISSING_CA });
    expect(send.status).toBe(0);
    expect(send.stderr).not.toMatch(READ_WARNING);
    expect(send.stdout).toMatch(/send/);
    const hub = run(real, ['hub', '--help'], { NODE_EXTRA_CA_CERTS: MISSING_CA });
    expect(hub.status).toBe(0);
    expect(hub.stderr).toMatch(READ_WARNING);
    // Plain node, for comparison: the setting is read before any script runs.
    expect(spawnSync(process.execPath, ['-e', '0'], { env: { NODE_EXTRA_CA_CERTS: MISSING_CA }, encoding: 'utf8' }).stderr).toMatch(READ_WARNING);
  });

  it('hands the setting on under the aside name, only when there is one', () => {
    const entry = join(dir, 'print-env.mjs');
    writeFileSync(entry, `process.stdout.write(JSON.stringify({ ca: process.env.NODE_EXTRA_CA_CERTS ?? null, aside: process.env.${CA_CERTS_ASIDE} ?? null, args: process.argv.slice(2) }));`);
    const CA = join(dir, 'corp-ca.pem');
    const fake = writeSwbLauncher(join(dir, 'fake'), process.execPath, entry);
    const seen = (args: string[], env: NodeJS.ProcessEnv) => JSON.parse(execFileSync(join(fake, 'swb'), args, { env: { PATH: process.env.PATH, ...env }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }));
    expect(seen(['send', 'bob', 'it is "quoted" $HOME'], { NODE_EXTRA_CA_CERTS: CA })).toEqual({ ca: null, aside: CA, args: ['send', 'bob', 'it is "quoted" $HOME'] });
    expect(seen([], { NODE_EXTRA_CA_CERTS: CA })).toEqual({ ca: null, aside: CA, args: [] });
    expect(seen(['server', '--ready-fd', '3'], { NODE_EXTRA_CA_CERTS: CA })).toEqual({ ca: CA, aside: null, args: ['server', '--ready-fd', '3'] });
    expect(seen(['hub'], { NODE_EXTRA_CA_CERTS: CA })).toEqual({ ca: CA, aside: null, args: ['hub'] });
    expect(seen(['send'], {})).toEqual({ ca: null, aside: null, args: ['send'] });
    expect(seen(['send'], { NODE_EXTRA_CA_CERTS: '' })).toEqual({ ca: '', aside: null, args: ['send'] });
  });
});
