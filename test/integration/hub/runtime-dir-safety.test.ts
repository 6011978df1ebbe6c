// The runtime and data places are private (DESIGN §3): dirs 0700, files 0600, no symlinks or
// foreign owners trusted, and a socket path kept under the sun_path limit however long SWB_HOME is.
import { chownSync, lstatSync, mkdirSync, readdirSync, statSync, symlinkSync, chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Hub } from '../../../src/hub/hub.js';
import { MAX_SOCKET_PATH_BYTES } from '../../../src/hub/runtime-paths.js';
import { runCleanups, deferCleanup } from '../../helpers/cleanup.js';
import { connectClient, startTestHub } from '../../helpers/hub-harness.js';
import { runSwb } from '../../helpers/run-swb.js';
import { createTempHome } from '../../helpers/temp-home.js';

afterEach(runCleanups);

const mode = (path: string) => lstatSync(path).mode & 0o777;
const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

describe('runtime dir safety', () => {
  it('the run and data dirs are 0700 and hub.sock, mail.db, operator.token and hub.lock are 0600', async () => {
    const { paths } = await startTestHub();
    await connectClient(paths, { session: 'bob' }); // make the hub write something
    expect(mode(paths.runDir)).toBe(0o700);
    expect(mode(paths.dataDir)).toBe(0o700);
    for (const file of [paths.socketPath, paths.dbFile, paths.operatorTokenFile, paths.lockFile]) {
      expect({ file, mode: mode(file) }).toEqual({ file, mode: 0o600 });
    }
    expect(lstatSync(paths.socketPath).isSocket()).toBe(true);
    // Nothing else in either dir (SQLite's -wal/-shm/-journal files included) is readable by others.
    for (const dir of [paths.runDir, paths.dataDir]) {
      for (const name of readdirSync(dir)) expect({ name, open: mode(join(dir, name)) & 0o077 }).toEqual({ name, open: 0 });
    }
  });

  it('a loose run dir we own is tightened to 0700', async () => {
    const home = createTempHome();
    mkdirSync(home.paths.runDir, { recursive: true });
    chmodSync(home.paths.runDir, 0o755);
    await startTestHub({ home });
    expect(mode(home.paths.runDir)).toBe(0o700);
  });

  it('a run dir that is a symlink is refused with UNSAFE_RUNTIME_DIR and its target is left alone', async () => {
    const home = createTempHome();
    const elsewhere = mkdtempSync(join(tmpdir(), 'swb-elsewhere-'));
    deferCleanup('symlink target', () => rmSync(elsewhere, { recursive: true, force: true }));
    mkdirSync(join(home.home, 'run'), { mode: 0o700 });
    symlinkSync(elsewhere, home.paths.runDir);
    await expect(Hub.start({ paths: home.paths })).rejects.toMatchObject({ code: 'UNSAFE_RUNTIME_DIR' });
    expect(readdirSync(elsewhere)).toEqual([]);
  });

  it.runIf(isRoot)('a run dir owned by another user is refused with UNSAFE_RUNTIME_DIR', async () => {
    const home = createTempHome();
    mkdirSync(home.paths.runDir, { recursive: true, mode: 0o700 });
    chownSync(home.paths.runDir, 4242, 4242);
    await expect(Hub.start({ paths: home.paths })).rejects.toMatchObject({ code: 'UNSAFE_RUNTIME_DIR' });
    expect(readdirSync(home.paths.runDir)).toEqual([]);
  });

  it('a 150-character SWB_HOME still works: the socket moves to a short private dir that clients find too', async () => {
    const home = createTempHome({ minLength: 150 });
    expect(home.home.length).toBeGreaterThanOrEqual(150);
    const { paths } = await startTestHub({ home });
    expect(paths.socketDir).not.toBe(paths.runDir);
    expect(Buffer.byteLength(paths.socketPath)).toBeLessThanOrEqual(MAX_SOCKET_PATH_BYTES);
    expect(mode(paths.socketDir)).toBe(0o700);
    expect(statSync(paths.socketPath).isSocket()).toBe(true);
    expect(statSync(paths.dbFile).isFile()).toBe(true);

    await connectClient(paths, { session: 'bob' });
    const cli = await runSwb(['send', '@bob', 'through the short socket'], { home });
    expect(cli.stderr).toBe('');
    expect(cli.status).toBe(0);
  });
});
