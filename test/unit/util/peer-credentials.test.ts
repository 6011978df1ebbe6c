// Real Unix sockets in a temp dir, real child processes: the point is what the kernel reports.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, closeSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { packageRoot } from '../../../src/util/package-root.js';
import { peerCredentialsOf, peerCredentialsUnavailableReason, type PeerCredentials } from '../../../src/util/peer-credentials.js';

// Connects to argv[1], then waits for the server to end the connection, so the server reads the
// credentials while this process is still alive.
const CHILD_CLIENT = `
const c = require('node:net').createConnection(process.argv[1]);
c.on('error', (e) => { console.error(e.message); process.exit(2); });
c.resume();
c.on('end', () => c.end());
`;

let dir: string;
const servers: Server[] = [];
const children: ChildProcess[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'swb-peercred-'));
});

afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
  rmSync(dir, { recursive: true, force: true });
});

async function listen(opts: { readableAll?: boolean; writableAll?: boolean } = {}): Promise<{ server: Server; path: string }> {
  const path = join(dir, 'hub.sock');
  const server = createServer();
  servers.push(server);
  server.listen({ path, ...opts });
  await once(server, 'listening');
  return { server, path };
}

/** The credentials the server sees for the child's connection; fails fast if the child dies first. */
async function credentialsOfChild(server: Server, child: ChildProcess): Promise<PeerCredentials | null> {
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = once(child, 'exit').then(([code, signal]) => {
    throw new Error(`child exited (${String(code ?? signal)}) before connecting: ${stderr}`);
  });
  const [conn] = (await Promise.race([once(server, 'connection'), exited])) as [Socket];
  const creds = peerCredentialsOf(conn);
  conn.end();
  exited.catch(() => {}); // the child exits once ended; that is expected now
  const [code] = await once(child, 'exit');
  expect(code, stderr).toBe(0);
  return creds;
}

describe('peerCredentialsOf', () => {
  it('loads the addon here (CI builds it through npm install)', () => {
    expect(peerCredentialsUnavailableReason()).toBeNull();
  });

  it('sees this process on both ends of an in-process connection', async () => {
    const { server, path } = await listen();
    const accepted = once(server, 'connection') as Promise<[Socket]>;
    const client = createConnection(path);
    await once(client, 'connect');
    const [conn] = await accepted;
    const own = { pid: process.pid, uid: process.getuid!(), gid: process.getgid!() };
    expect(peerCredentialsOf(conn)).toEqual(own);
    expect(peerCredentialsOf(client)).toEqual(own);
    client.destroy();
    conn.destroy();
  });

  it("sees a child client's pid from the server side", async () => {
    const { server, path } = await listen();
    const child = spawn(process.execPath, ['-e', CHILD_CLIENT, path], { stdio: ['ignore', 'ignore', 'pipe'] });
    children.push(child);
    const creds = await credentialsOfChild(server, child);
    expect(creds).toEqual({ pid: child.pid, uid: process.getuid!(), gid: process.getgid!() });
  });

  it("sees another user's uid (needs root to spawn as nobody)", async (ctx) => {
    if (process.getuid?.() !== 0) {
      const reason = 'not root: cannot spawn a child as uid 65534';
      console.warn(`peer-credentials: skipped: ${reason}`);
      ctx.skip(reason);
    }
    // Only here: the unprivileged child has to reach the socket (mkdtemp makes the dir 0700).
    chmodSync(dir, 0o755);
    const { server, path } = await listen({ readableAll: true, writableAll: true });
    const child = spawn(process.execPath, ['-e', CHILD_CLIENT, path], {
      uid: 65534,
      gid: 65534,
      cwd: dir,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    children.push(child);
    const creds = await credentialsOfChild(server, child);
    expect(creds).toEqual({ pid: child.pid, uid: 65534, gid: 65534 });
  });

  it('throws EBADF for a destroyed socket rather than returning null', async () => {
    const { path } = await listen();
    const client = createConnection(path);
    await once(client, 'connect');
    client.destroy();
    await once(client, 'close');
    expect(() => peerCredentialsOf(client)).toThrow(expect.objectContaining({ code: 'EBADF' }));
  });
});

describe('the raw addon', () => {
  const addon = createRequire(import.meta.url)(join(packageRoot(), 'build', 'Release', 'peer_credentials.node')) as {
    peerCredentials(fd: unknown): PeerCredentials;
  };

  it('throws ENOTSOCK for a file and EBADF for an fd that is not open', () => {
    const fd = openSync(join(dir, 'plain-file'), 'w');
    try {
      expect(() => addon.peerCredentials(fd)).toThrow(expect.objectContaining({ code: 'ENOTSOCK', syscall: 'getpeername' }));
    } finally {
      closeSync(fd);
    }
    // Above any RLIMIT_NOFILE, so never open (a just-closed fd could be reused by another thread).
    expect(() => addon.peerCredentials(2 ** 31 - 1)).toThrow(expect.objectContaining({ code: 'EBADF' }));
  });

  it('throws EAFNOSUPPORT for a TCP socket (SO_PEERCRED would report made-up credentials)', async () => {
    const server = createServer();
    servers.push(server);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as { port: number };
    const accepted = once(server, 'connection') as Promise<[Socket]>;
    const client = createConnection(port, '127.0.0.1');
    await once(client, 'connect');
    const [conn] = await accepted;
    expect(() => peerCredentialsOf(conn)).toThrow(expect.objectContaining({ code: 'EAFNOSUPPORT' }));
    client.destroy();
    conn.destroy();
  });

  it('rejects an argument that is not an fd with a TypeError', () => {
    for (const bad of [undefined, '3', -1, 1.5, 2 ** 31, Number.NaN]) {
      expect(() => addon.peerCredentials(bad), String(bad)).toThrow(TypeError);
    }
  });
});
