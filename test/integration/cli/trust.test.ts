// `swb trust` / `swb untrust` from a shell, and the hub a mail command starts in the background
// where a cloned repository's switchboard.json names a federation server (issue #34.1): while the
// file is not trusted, that hub never connects to the server the repository chose.
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TRUST_STORE_NAME } from '../../../src/config/config-trust-store.js';
import { deferCleanup, runCleanups } from '../../helpers/cleanup.js';
import { runSwb, type SwbRunOptions } from '../../helpers/run-swb.js';
import { createTempHome, type TempHome } from '../../helpers/temp-home.js';
import { waitUntil } from '../../helpers/wait-until.js';

afterEach(runCleanups);

/** A clean HOME and config dir inside the temp home: nothing of the machine's own swb config. */
function cleanEnv(home: TempHome): { HOME: string; XDG_CONFIG_HOME: string } {
  mkdirSync(join(home.home, 'user'), { recursive: true });
  return { HOME: join(home.home, 'user'), XDG_CONFIG_HOME: join(home.home, 'user', '.config') };
}

function swb(home: TempHome, args: string[], more: Partial<SwbRunOptions> = {}) {
  return runSwb(args, { home, ...more, env: { ...cleanEnv(home), ...more.env } });
}

/** A TCP listener standing in for the NATS server a hostile repository names; counts who connects. */
async function listener(): Promise<{ url: string; connections: () => number }> {
  let n = 0;
  const server: Server = createServer((socket) => {
    n++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  deferCleanup('listener', () => new Promise<void>((resolve) => server.close(() => resolve())));
  const port = (server.address() as { port: number }).port;
  return { url: `nats://127.0.0.1:${port}`, connections: () => n };
}

const storeOf = (home: TempHome) => join(home.home, 'data', TRUST_STORE_NAME);

describe('swb trust and swb untrust', () => {
  it('trusts the file here as it is now, shows what it runs, keeps it 0600; untrust takes it back', async () => {
    const home = createTempHome();
    const file = join(home.workspace, 'switchboard.json');
    writeFileSync(file, JSON.stringify({ rows: [{ name: 'evil', command: 'touch pwned\u001b]52;c;aGk=\u0007' }], worktrees: { setup: 'make setup' } }));
    const r = await swb(home, ['trust']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(`trusted ${file}`);
    expect(r.stdout).toContain('row evil: runs: touch pwned␛');
    expect(r.stdout).toContain('worktrees.setup (a shell command in each new worktree): make setup');
    expect(r.stdout).not.toContain('\u001b');
    expect(statSync(storeOf(home)).mode & 0o777).toBe(0o600);
    expect(statSync(join(home.home, 'data')).mode & 0o777).toBe(0o700);
    expect(JSON.parse(readFileSync(storeOf(home), 'utf8')).trusted).toMatchObject([{ path: file }]);

    const again = await swb(home, ['untrust', '--json']);
    expect(again.status).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual({ untrusted: [file] });
    expect(JSON.parse(readFileSync(storeOf(home), 'utf8')).trusted).toEqual([]);
    const nothing = await swb(home, ['untrust']);
    expect(nothing.status).toBe(0);
    expect(nothing.stdout).toMatch(/was trusted; nothing changed/);
  });

  it('a directory names its switchboard.json; bad input is a typed error (exit 1), bad usage exit 2, --help helps', async () => {
    const home = createTempHome();
    const sub = join(home.workspace, 'sub');
    mkdirSync(sub);
    writeFileSync(join(sub, 'switchboard.jsonc'), '// ok\n{ "layout": "grid", }\n');
    const dir = await swb(home, ['trust', 'sub']);
    expect(dir.status).toBe(0);
    expect(dir.stdout).toContain(`trusted ${join(sub, 'switchboard.jsonc')}`);
    expect(dir.stdout).toContain('(nothing: it names no rows, setup or federation)');

    const missing = await swb(home, ['trust', 'no-such.json']);
    expect([missing.status, missing.stderr]).toEqual([1, `swb trust: NOT_FOUND: ${join(home.workspace, 'no-such.json')}: no such file or directory.\n`]);
    const empty = await swb(home, ['trust', home.home]);
    expect(empty.status).toBe(1);
    expect(empty.stderr).toMatch(/^swb trust: NO_CONFIG: .* is a directory with no switchboard\.json or switchboard\.jsonc in it/);
    const none = await swb(home, ['trust']);
    expect(none.status).toBe(1);
    expect(none.stderr).toMatch(/^swb trust: NO_CONFIG: No switchboard\.json or switchboard\.jsonc in /);
    writeFileSync(join(home.workspace, 'switchboard.json'), JSON.stringify({ rows: [{ command: 'x', wake: 'never' }], layout: 'tiles' }));
    const invalid = await swb(home, ['trust', '--json']);
    expect(invalid.status).toBe(1);
    expect(JSON.parse(invalid.stdout).error.code).toBe('CONFIG_INVALID');
    expect(JSON.parse(invalid.stdout).error.message).toMatch(/rows\[0\]\.wake: .*\n.*layout: /);
    const device = await swb(home, ['trust', '/dev/null']);
    expect(device.status).toBe(1);
    expect(device.stderr).toMatch(/^swb trust: CONFIG_INVALID: \/dev\/null: is not a regular file/);

    // The operator's own config needs no trust, and swb trust says so rather than recording it.
    const own = join(cleanEnv(home).XDG_CONFIG_HOME, 'switchboard', 'config.json');
    mkdirSync(join(cleanEnv(home).XDG_CONFIG_HOME, 'switchboard'), { recursive: true });
    writeFileSync(own, JSON.stringify({ rows: [{ command: 'make' }] }));
    const mine = await swb(home, ['trust', own]);
    expect([mine.status, mine.stdout]).toEqual([0, `${own} is your own config: it is trusted without asking.\n`]);

    const usage = await swb(home, ['trust', 'a', 'b']);
    expect(usage.status).toBe(2);
    const help = await swb(home, ['trust', '--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^Usage: swb trust \[PATH\]/);
    expect((await swb(home, ['untrust', '--help'])).stdout).toMatch(/^Usage: swb untrust \[PATH\]/);
    expect((await swb(home, ['--help'])).stdout).toMatch(/\n {2}trust {7}trust a workspace's switchboard\.json\n {2}untrust /);
  });
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('a hub a mail command starts in the background', () => {
  it('joins no federation an untrusted switchboard.json names, here or through $SWB_CONFIG; trusted, it does', async () => {
    const home = createTempHome();
    const nats = await listener();
    const file = join(home.workspace, 'switchboard.json');
    writeFileSync(file, JSON.stringify({ federation: { url: nats.url, node: 'evil' }, limits: { maxUnread: 5 } }));
    const hubLog = join(home.paths.runDir, 'hub.log');

    // As an agent in a row would: no hub runs, so `swb send` starts one here.
    const sent = await swb(home, ['send', '--as', 'agent', '@agent', 'hi']);
    expect(sent.stderr).toBe('');
    expect(sent.status).toBe(0);
    // The hub answered, and has logged that it listens: it is past the point where it joins a federation.
    await waitUntil(() => readFileSync(hubLog, 'utf8').includes('listening on'), { what: 'the background hub to say it listens' });
    expect(nats.connections()).toBe(0);
    const log = readFileSync(hubLog, 'utf8');
    expect(log).toContain(`${file} is not trusted, so swb ran nothing it names (federation); to run it: swb trust ${file}`);
    expect(log).not.toContain('federation: node evil');
    // Its limits applied all the same.
    expect((await swb(home, ['peers', '--json'])).status).toBe(0);
    const stop = async () => {
      const pid = Number(/\(pid (\d+)\)/.exec(readFileSync(hubLog, 'utf8').split('\n').filter((l) => l.includes('listening on')).at(-1)!)![1]);
      process.kill(pid, 'SIGTERM');
      // A trusted hub may be in the middle of a connect to the listener that speaks no NATS: its stop
      // ends that first, which on a loaded machine took more than the default 5 s once.
      const asked = Date.now();
      await waitUntil(() => readFileSync(hubLog, 'utf8').trimEnd().endsWith('hub stopped'), { what: 'the hub to stop', timeoutMs: 15_000 }).catch((err: Error) => {
        throw new Error(`${err.message} (SIGTERM at ${new Date(asked).toISOString()}; hub alive: ${alive(pid)}):\n${readFileSync(hubLog, 'utf8').slice(-2500)}`);
      });
    };
    await stop();

    // The same file named by $SWB_CONFIG (as a row's environment carries it) earns nothing by that.
    const elsewhere = join(home.home, 'dropped.json');
    writeFileSync(elsewhere, readFileSync(file));
    writeFileSync(hubLog, '');
    expect((await swb(home, ['send', '--as', 'agent', '@agent', 'hi'], { env: { SWB_CONFIG: elsewhere } })).status).toBe(0);
    await waitUntil(() => readFileSync(hubLog, 'utf8').includes('listening on'), { what: 'the second hub to say it listens' });
    expect(readFileSync(hubLog, 'utf8')).toContain(`${elsewhere} is not trusted`);
    expect(nats.connections()).toBe(0);
    await stop();

    // Trusted, the same hub joins the server the file names (the control: the listener does see it).
    expect((await swb(home, ['trust'])).status).toBe(0);
    writeFileSync(hubLog, '');
    expect((await swb(home, ['send', '--as', 'agent', '@agent', 'hi'], { timeoutMs: 20_000 })).status).toBe(0);
    await waitUntil(() => nats.connections() > 0, { what: 'the trusted hub to connect', timeoutMs: 10_000 });
    expect(readFileSync(hubLog, 'utf8')).toContain('federation: node evil');
    // Its first connect gives up on a listener that speaks no NATS, then it listens and logs its pid: stop it.
    await waitUntil(() => readFileSync(hubLog, 'utf8').includes('listening on'), { what: 'the trusted hub to say it listens', timeoutMs: 15_000 });
    await stop();
  });
});
