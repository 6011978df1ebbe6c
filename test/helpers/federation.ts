// Federation tests' real parts: a nats-server with JetStream in a temp dir (the shipped
// least-privilege config, docs/federation/nats-server.conf, with its port and store moved, and its
// users replaced when a test sets up auth another way: NATS operator mode, say), and swb
// hubs as nodes, each with its own SWB_HOME and a workspace config naming its federation section
// (so a hub a CLI command starts after a crash federates too). Nodes are driven over their sockets.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { createServer, createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll } from 'vitest';
import { deferCleanup, runCleanups } from './cleanup.js';
import { DeadlineConnection } from './jepsen/deadline-client.js';
import { spawnSwb, type SwbProcess } from './run-swb.js';
import { createTempHome, type TempHome } from './temp-home.js';
import { waitUntil } from './wait-until.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
export const NATS_SERVER = process.env.NATS_SERVER ?? 'nats-server';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

function portAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const c = createConnection({ port, host: '127.0.0.1' });
    c.once('connect', () => (c.destroy(), resolve(true)));
    c.once('error', () => resolve(false));
  });
}

export class NatsServer {
  private child: ChildProcess | null = null;
  readonly dir: string;
  readonly conf: string;
  log = '';

  private constructor(
    readonly port: number,
    /** Appended to the shipped config (a `tls { ... }` block, say). */
    extraConf = '',
    /** `tls`: clients must come with tls:// (the server requires TLS). */
    private readonly scheme: 'nats' | 'tls' = 'nats',
    /**
     * In place of the shipped `accounts { ... }` block (its users and passwords): the lines that
     * set up authentication another way. Operator mode (JWTs, .creds files) cannot be combined
     * with users in the config; `auth(dir)` gets this server's directory for files it writes.
     */
    auth?: (dir: string) => string,
  ) {
    this.dir = realpathSync(mkdtempSync(join(tmpdir(), 'swb-nats-')));
    this.conf = join(this.dir, 'nats-server.conf');
    let conf = readFileSync(join(root, 'docs/federation/nats-server.conf'), 'utf8')
      .replace('/var/lib/nats/jetstream', join(this.dir, 'js'))
      .replace(/^port: 4222$/m, `port: ${port}`);
    if (auth) {
      // The accounts block is the last thing in the shipped config.
      const at = conf.search(/^accounts \{$/m);
      if (at < 0) throw new Error('docs/federation/nats-server.conf has no top-level `accounts {` block to replace');
      conf = `${conf.slice(0, at)}${auth(this.dir)}\n`;
    }
    writeFileSync(this.conf, `${conf}\n${extraConf}\n`);
    deferCleanup(`nats-server ${port}`, async () => {
      await this.stop('SIGKILL');
      rmSync(this.dir, { recursive: true, force: true });
    });
  }

  static async start(opts: { extraConf?: string; scheme?: 'nats' | 'tls'; auth?: (dir: string) => string } = {}): Promise<NatsServer> {
    const s = new NatsServer(await freePort(), opts.extraConf, opts.scheme, opts.auth);
    await s.restart();
    return s;
  }

  get url(): string {
    return `${this.scheme}://127.0.0.1:${this.port}`;
  }

  /** Starts it again on the same port and store (after a stop or a kill). */
  async restart(): Promise<void> {
    const child = spawn(NATS_SERVER, ['-c', this.conf], { stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    child.stdout!.on('data', (b: Buffer) => (this.log += b.toString()));
    child.stderr!.on('data', (b: Buffer) => (this.log += b.toString()));
    await waitUntil(() => /Server is ready/.test(this.log) && portAnswers(this.port), { timeoutMs: 10_000, what: `nats-server on ${this.port} to be ready` });
  }

  /** Its JetStream store, removed (while it is stopped): a server that comes back empty. */
  wipeStore(): void {
    rmSync(join(this.dir, 'js'), { recursive: true, force: true });
  }

  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const gone = new Promise((r) => child.once('exit', r));
    child.kill(signal);
    await gone;
    this.log = '';
  }
}

export class FedNode {
  proc: SwbProcess | null = null;
  readonly home: TempHome;
  readonly configPath: string;
  private readonly env: Record<string, string>;

  constructor(
    readonly name: string,
    readonly nats: NatsServer,
    /** `credentials`: a .creds file to connect with, in place of the shipped user and its password. */
    opts: { user?: string; credentials?: string; limits?: Record<string, number>; federation?: Record<string, unknown>; env?: Record<string, string> } = {},
  ) {
    this.home = createTempHome();
    this.env = opts.env ?? {};
    let auth: Record<string, string>;
    if (opts.credentials !== undefined) auth = { credentials: opts.credentials };
    else {
      const user = opts.user ?? name;
      const pw = join(this.home.home, 'nats-password');
      writeFileSync(pw, `change-me-${user}\n`, { mode: 0o600 });
      auth = { user, passwordFile: pw };
    }
    this.configPath = join(this.home.workspace, 'switchboard.json');
    writeFileSync(
      this.configPath,
      JSON.stringify({ federation: { url: nats.url, node: name, ...auth, ...opts.federation }, limits: { rate: 0, maxUnread: 0, ...opts.limits } }),
    );
  }

  async start(): Promise<void> {
    // Named with --config: the operator's own file (a workspace's switchboard.json would need swb trust first).
    const proc = spawnSwb(['hub', '--config', this.configPath], { home: this.home, env: this.env });
    this.proc = proc;
    await waitUntil(() => /listening on/.test(proc.stderr()) || proc.hasExited(), { timeoutMs: 15_000, what: `node ${this.name} to listen` });
    if (proc.hasExited()) throw new Error(`node ${this.name} exited: ${proc.stderr().slice(-2000)}`);
  }

  async kill(): Promise<void> {
    const p = this.proc;
    if (!p || p.hasExited()) return;
    p.child.kill('SIGKILL');
    await p.exited;
  }

  async stop(): Promise<void> {
    const p = this.proc;
    if (!p || p.hasExited()) return;
    p.child.kill('SIGTERM');
    await p.exited;
  }

  get log(): string {
    return this.proc?.stderr() ?? '';
  }

  /** A session on this node (hello as `handle`), subscribed to its own mail when asked. */
  async session(handle: string, subscribe = false): Promise<DeadlineConnection> {
    const c = await DeadlineConnection.connect(this.home.paths.socketPath, 5000);
    if (!c.ok) throw new Error(`connect to ${this.name}: ${c.reason}`);
    deferCleanup(`session ${handle}@${this.name}`, () => c.conn.destroy());
    const hello = await c.conn.request('hello', { version: 1, session: handle, ...(subscribe ? { subscribe: true } : {}) }, 5000);
    if (hello.kind !== 'ok') throw new Error(`hello ${handle}@${this.name}: ${JSON.stringify(hello)}`);
    return c.conn;
  }

  /** The operator's session (token from the runtime dir). */
  async operator(): Promise<DeadlineConnection> {
    const c = await DeadlineConnection.connect(this.home.paths.socketPath, 5000);
    if (!c.ok) throw new Error(`connect to ${this.name}: ${c.reason}`);
    deferCleanup(`operator@${this.name}`, () => c.conn.destroy());
    const token = readFileSync(this.home.paths.operatorTokenFile, 'utf8').trim();
    const hello = await c.conn.request('hello', { version: 1, session: 'operator', token }, 5000);
    if (hello.kind !== 'ok') throw new Error(`operator hello on ${this.name}: ${JSON.stringify(hello)}`);
    return c.conn;
  }
}

/** A request that must succeed; its result. */
export async function ok(conn: DeadlineConnection, method: string, params: unknown, deadlineMs = 10_000): Promise<any> {
  const r = await conn.request(method, params, deadlineMs);
  if (r.kind !== 'ok') throw new Error(`${method} ${JSON.stringify(params).slice(0, 200)}: ${JSON.stringify(r)}`);
  return r.result;
}

/**
 * A nats-server and nodes alpha and beta for the whole test file, started before its first test
 * and released (with everything the helpers started) after its last.
 */
export function twoNodesForThisFile(): { nats: NatsServer; alpha: FedNode; beta: FedNode } {
  const world = {} as { nats: NatsServer; alpha: FedNode; beta: FedNode };
  beforeAll(async () => {
    world.nats = await NatsServer.start();
    world.alpha = new FedNode('alpha', world.nats);
    world.beta = new FedNode('beta', world.nats);
    await Promise.all([world.alpha.start(), world.beta.start()]);
  });
  afterAll(async () => {
    await Promise.all([world.alpha?.stop(), world.beta?.stop()]);
    await runCleanups();
  });
  return world;
}
