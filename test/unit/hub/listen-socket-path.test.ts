// The socket path names a listening socket or nothing: it is bound under a temporary name and
// renamed into place (src/hub/listen-socket-path.ts). These check what the rename must keep: the
// mode, a stale socket replaced, a stranger's file left alone, and no temporary name left behind.
import { afterEach, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { connect, createServer, type Server } from 'node:net';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listenOnSocketPath } from '../../../src/hub/listen-socket-path.js';

const servers: Server[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise<void>((r) => s.close(() => r()));
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function privateDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'swb-listen-'));
  dirs.push(d);
  return d;
}

function answering(): Server {
  const s = createServer((socket) => socket.end('hi\n'));
  servers.push(s);
  return s;
}

function greeting(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const c = connect(path);
    let text = '';
    c.setEncoding('utf8');
    c.on('data', (t: string) => (text += t));
    c.on('end', () => resolve(text));
    c.on('error', reject);
  });
}

describe('listenOnSocketPath', () => {
  it('listens on the path with mode 0600 and leaves no temporary name', async () => {
    const dir = privateDir();
    const path = join(dir, 'hub.sock');
    await listenOnSocketPath(answering(), path, 511);
    expect(statSync(path).isSocket()).toBe(true);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(await greeting(path)).toBe('hi\n');
    expect(readdirSync(dir)).toEqual(['hub.sock']);
  });

  it('replaces a stale socket of ours', async () => {
    const dir = privateDir();
    const path = join(dir, 'server.sock');
    // A socket file with nobody behind it: what a server killed with SIGKILL leaves.
    const killed = spawnSync(process.execPath, ['-e', `require('node:net').createServer().listen(${JSON.stringify(path)}, () => process.kill(process.pid, 'SIGKILL'))`]);
    expect(killed.signal).toBe('SIGKILL');
    expect(statSync(path).isSocket()).toBe(true);
    await listenOnSocketPath(answering(), path);
    expect(await greeting(path)).toBe('hi\n');
    expect(readdirSync(dir)).toEqual(['server.sock']);
  });

  it("leaves a file that is not a socket alone and fails as a plain listen would", async () => {
    const dir = privateDir();
    const path = join(dir, 'hub.sock');
    writeFileSync(path, 'not a socket');
    const err = await listenOnSocketPath(answering(), path).then(
      () => null,
      (e: NodeJS.ErrnoException) => e,
    );
    expect(err?.code).toBe('EADDRINUSE');
    expect(readFileSync(path, 'utf8')).toBe('not a socket');
    expect(readdirSync(dir)).toEqual(['hub.sock']);
  });

  it('two listeners of one process in one directory get their own paths', async () => {
    const dir = privateDir();
    await Promise.all([listenOnSocketPath(answering(), join(dir, 'hub.sock')), listenOnSocketPath(answering(), join(dir, 'server.sock'))]);
    expect(readdirSync(dir).sort()).toEqual(['hub.sock', 'server.sock']);
    expect(await greeting(join(dir, 'server.sock'))).toBe('hi\n');
  });
});
