// In-process hubs and JSON-RPC clients for protocol tests: a real Hub on a real socket and a real
// mail.db in a temp SWB_HOME, stopped (and its clients closed) after the test.
import { readFileSync } from 'node:fs';
import { HubClient, type ClientIdentity } from '../../src/client/hub-client.js';
import { Hub } from '../../src/hub/hub.js';
import type { HubLimits } from '../../src/protocol/limits.js';
import type { RuntimePaths } from '../../src/hub/runtime-paths.js';
import { deferCleanup } from './cleanup.js';
import { createTempHome, type TempHome } from './temp-home.js';

export interface TestHub {
  hub: Hub;
  home: TempHome;
  paths: RuntimePaths;
}

/** Starts a hub in this process over a fresh temp home (or the one given). */
export async function startTestHub(opts: { limits?: Partial<HubLimits>; home?: TempHome } = {}): Promise<TestHub> {
  const home = opts.home ?? createTempHome();
  const hub = await Hub.start({ paths: home.paths, ...(opts.limits ? { limits: opts.limits } : {}) });
  deferCleanup('hub', () => hub.stop());
  return { hub, home, paths: home.paths };
}

export interface PushLog {
  pushes: Array<{ method: string; params: unknown }>;
  /** The params of every push with this method, in arrival order. */
  of<T = unknown>(method: string): T[];
}

export interface TestClient {
  client: HubClient;
  pushes: PushLog;
}

/** Opens a JSON-RPC client on the hub's socket and says hello as `identity`. */
export async function connectClient(
  paths: RuntimePaths,
  identity: ClientIdentity,
  opts: { subscribe?: boolean; socketPath?: string } = {},
): Promise<TestClient> {
  const client = await openClient(paths, opts.socketPath);
  const pushes = recordPushes(client);
  await client.sayHello(identity, { subscribe: opts.subscribe ?? false, client: 'test' });
  return { client, pushes };
}

/** Opens a client without saying hello (for tests of hello itself). */
export async function openClient(paths: RuntimePaths, socketPath = paths.socketPath): Promise<HubClient> {
  const client = await HubClient.open(socketPath);
  deferCleanup('hub client', () => client.destroy());
  return client;
}

export function recordPushes(client: HubClient): PushLog {
  const pushes: PushLog['pushes'] = [];
  client.onPush((p) => pushes.push(p));
  return { pushes, of: <T>(method: string) => pushes.filter((p) => p.method === method).map((p) => p.params as T) };
}

/** The operator token as a trusted local tool reads it: from the hub's 0600 file. */
export function readOperatorToken(paths: RuntimePaths): string {
  return readFileSync(paths.operatorTokenFile, 'utf8').trim();
}

/** Connects as the operator with the token from the file. */
export function connectOperator(paths: RuntimePaths, opts: { subscribe?: boolean } = {}): Promise<TestClient> {
  return connectClient(paths, { session: 'operator', token: readOperatorToken(paths) }, opts);
}
