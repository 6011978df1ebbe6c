// The `swb` command (bin/swb, what npm links) and the rows' launcher that runs it: CLI commands
// start without node reading NODE_EXTRA_CA_CERTS (it costs node 50-200 ms before any JavaScript
// runs), commands that may speak TLS keep it, and what was set aside reaches the command under the
// aside name. Real processes: the real script, the compiled entry, a symlink as npm makes one.
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CA_CERTS_ASIDE } from '../../../src/util/ca-certs-aside.js';
import { packageBinScript } from '../../../src/util/package-root.js';
import { writeSwbLauncher } from '../../../src/util/swb-launcher.js';

const dir = mkdtempSync(join(tmpdir(), 'swb-launcher-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A file node cannot load: node warns about it on stderr at start-up whenever it reads the setting. */
const MISSING_CA = join(dir, 'no-such-ca.pem');
const READ_WARNING = /Ignoring extra certs/;

function run(file: string, args: string[], env: NodeJS.ProcessEnv) {
  const { PATH, HOME } = process.env;
  return spawnSync(file, args, { env: { PATH, HOME, ...env }, encoding: 'utf8', timeout: 20_000 });
}

/**
 * A package tree whose bin/swb is the real script and whose compiled entry prints what it got, with
 * an npm-style relative symlink to the script (node_modules/.bin/swb -> ../../bin/swb).
 */
let made: { link: string; script: string } | undefined;
function fakePackage(): { link: string; script: string } {
  if (made) return made;
  const root = join(dir, 'pkg');
  mkdirSync(join(root, 'bin'), { recursive: true });
  mkdirSync(join(root, 'dist', 'bin'), { recursive: true });
  mkdirSync(join(root, 'node_modules', '.bin'), { recursive: true });
  const script = join(root, 'bin', 'swb');
  copyFileSync(packageBinScript(), script);
  writeFileSync(
    join(root, 'dist', 'bin', 'swb.js'),
    `process.stdout.write(JSON.stringify({ ca: process.env.NODE_EXTRA_CA_CERTS ?? null, aside: process.env.${CA_CERTS_ASIDE} ?? null, node: process.env.SWB_NODE ?? null, exec: process.execPath, args: process.argv.slice(2) }));`,
  );
  const link = join(root, 'node_modules', '.bin', 'swb');
  symlinkSync('../../bin/swb', link);
  return (made = { link, script });
}

describe('the swb command (bin/swb)', () => {
  it('starts a CLI command without node reading the CA file, and `hub` with it', () => {
    const bin = packageBinScript();
    const send = run('/bin/sh', [bin, 'send', '--help'], { NODE_EXTRA_CA_CERTS: MISSING_CA });
    expect(send.status).toBe(0);
    expect(send.stderr).not.toMatch(READ_WARNING);
    expect(send.stdout).toMatch(/send/);
    const hub = run('/bin/sh', [bin, 'hub', '--help'], { NODE_EXTRA_CA_CERTS: MISSING_CA });
    expect(hub.status).toBe(0);
    expect(hub.stderr).toMatch(READ_WARNING);
    // Plain node, for comparison: the setting is read before any script runs.
    expect(spawnSync(process.execPath, ['-e', '0'], { env: { NODE_EXTRA_CA_CERTS: MISSING_CA }, encoding: 'utf8' }).stderr).toMatch(READ_WARNING);
  });

  it('finds the entry through an npm symlink and hands the setting on under the aside name, only when there is one', () => {
    const { link } = fakePackage();
    const CA = join(dir, 'corp-ca.pem');
    const seen = (args: string[], env: NodeJS.ProcessEnv) => JSON.parse(execFileSync(link, args, { env: { PATH: process.env.PATH, ...env }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }));
    expect(seen(['send', 'bob', 'it is "quoted" $HOME'], { NODE_EXTRA_CA_CERTS: CA })).toMatchObject({ ca: null, aside: CA, args: ['send', 'bob', 'it is "quoted" $HOME'] });
    expect(seen([], { NODE_EXTRA_CA_CERTS: CA })).toMatchObject({ ca: null, aside: CA, args: [] });
    expect(seen(['server', '--ready-fd', '3'], { NODE_EXTRA_CA_CERTS: CA })).toMatchObject({ ca: CA, aside: null, args: ['server', '--ready-fd', '3'] });
    expect(seen(['hub'], { NODE_EXTRA_CA_CERTS: CA })).toMatchObject({ ca: CA, aside: null, args: ['hub'] });
    expect(seen(['send'], {})).toMatchObject({ ca: null, aside: null, args: ['send'] });
    expect(seen(['send'], { NODE_EXTRA_CA_CERTS: '' })).toMatchObject({ ca: '', aside: null, args: ['send'] });
    // SWB_NODE picks the node and is not handed on.
    expect(seen(['ls'], { SWB_NODE: process.execPath })).toMatchObject({ node: null, exec: process.execPath });
  });
});

describe('the rows’ swb launcher', () => {
  it('runs bin/swb with the given node, whatever is on PATH', () => {
    const { script } = fakePackage();
    const launcher = writeSwbLauncher(join(dir, 'rows-bin'), process.execPath, script);
    // A PATH with no node on it: the launcher's own node is the one that runs.
    const out = execFileSync(join(launcher, 'swb'), ['send', 'x'], { env: { PATH: '/nonexistent', NODE_EXTRA_CA_CERTS: MISSING_CA }, encoding: 'utf8' });
    expect(JSON.parse(out)).toMatchObject({ ca: null, aside: MISSING_CA, node: null, exec: process.execPath, args: ['send', 'x'] });
  });

  it('reaches the real entry', () => {
    const launcher = writeSwbLauncher(join(dir, 'real'));
    const send = run(join(launcher, 'swb'), ['send', '--help'], { NODE_EXTRA_CA_CERTS: MISSING_CA });
    expect(send.status).toBe(0);
    expect(send.stderr).not.toMatch(READ_WARNING);
    expect(send.stdout).toMatch(/send/);
  });
});
