// Finds the workspace's hub, starting a headless one (detached) when none answers, then says
// hello. Racing CLIs may each start a hub: the workspace lock lets exactly one live, the others
// exit with HUB_RUNNING and every CLI connects to the winner.
import { readFileSync } from 'node:fs';
import { SwbError } from '../protocol/error-codes.js';
import type { RuntimePaths } from '../hub/runtime-paths.js';
import { sleep, systemClock } from '../util/clock.js';
import { swbBinPath } from '../util/package-root.js';
import { IDLE_V8_FLAGS } from '../util/idle-v8-flags.js';
import { HubClient, hubDenied, noHub, type ClientIdentity } from './hub-client.js';
import { checkPrivateFile } from './trusted-socket.js';

export interface ConnectOptions {
  paths: RuntimePaths;
  /** SWB_SOCKET from a row's env wins over the computed path. */
  socketPath?: string;
  identity: ClientIdentity;
  autoStart?: boolean;
  /** Every request's deadline (ms); 0 = none. */
  requestTimeoutMs?: number;
  subscribe?: boolean;
  client?: string;
  startTimeoutMs?: number;
  env?: NodeJS.ProcessEnv;
  /**
   * The caller asks the workspace server (rows, dashboards): nothing listening is NO_SERVER
   * ("start one with swb"), not NO_HUB, whose advice (a headless `swb hub`) has no rows.
   */
  forServer?: boolean;
}

const RETRYABLE = new Set(['ENOENT', 'ECONNREFUSED', 'ENOTSOCK']);
/** The hub's listen backlog is full: it runs but is swamped. Retried for a while, then HUB_BUSY (never NO_HUB). */
const BACKLOG_FULL = 'EAGAIN';
const BACKLOG_RETRY_MS = 2000;
/** The connect was forbidden, not unanswered: starting a hub would not help (and must not be tried). */
const DENIED = new Set(['EPERM', 'EACCES']);

function connectError(opts: ConnectOptions, socketPath: string, code: string): SwbError {
  if (code === BACKLOG_FULL) {
    return new SwbError('HUB_BUSY', `The hub at ${socketPath} is running but not accepting connections (its listen backlog is full); try again shortly.`);
  }
  if (DENIED.has(code)) return hubDenied(socketPath, code);
  if (opts.forServer) return new SwbError('NO_SERVER', `No swb server runs for workspace ${opts.paths.workspaceId}: nothing listens at ${socketPath} (${code}); start one with swb.`);
  return noHub(socketPath, code);
}

/** Opens the socket, waiting out a full listen backlog for a moment. */
async function openWhenAccepted(socketPath: string): Promise<HubClient> {
  const deadline = systemClock.now() + BACKLOG_RETRY_MS;
  for (let delay = 5; ; delay = Math.min(delay * 2, 100)) {
    try {
      return await HubClient.open(socketPath);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== BACKLOG_FULL || systemClock.now() > deadline) throw err;
      await sleep(delay);
    }
  }
}
/** `swb hub` exits with this status when another hub already holds the lock. */
export const EXIT_HUB_RUNNING = 3;

export async function connectToHub(opts: ConnectOptions): Promise<HubClient> {
  const socketPath = opts.socketPath ?? opts.paths.socketPath;
  let client: HubClient;
  try {
    client = await openWhenAccepted(socketPath);
  } catch (err) {
    if (err instanceof SwbError) throw err;
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    if (!opts.autoStart || !RETRYABLE.has(code)) throw connectError(opts, socketPath, code);
    client = await startAndConnect(opts, socketPath);
    client.startedHub = true;
  }
  let identity: ReturnType<typeof resolveIdentity>;
  try {
    identity = resolveIdentity(opts);
  } catch (err) {
    client.destroy();
    throw err;
  }
  if (opts.requestTimeoutMs !== undefined) client.requestTimeoutMs = opts.requestTimeoutMs;
  // Pipelined: the caller's first request follows hello on the wire without waiting for it.
  client.startHello(identity, { subscribe: opts.subscribe ?? false, client: opts.client ?? 'cli' });
  return client;
}

/** `--as operator` (or no identity at all) authenticates with the hub's operator token file. */
function resolveIdentity(opts: ConnectOptions): ClientIdentity {
  const { session, token } = opts.identity;
  if (token || (session && session !== 'operator')) return opts.identity;
  checkPrivateFile(opts.paths.operatorTokenFile);
  try {
    return { session: 'operator', token: readFileSync(opts.paths.operatorTokenFile, 'utf8').trim() };
  } catch {
    throw new SwbError('UNAUTHENTICATED', `Cannot read the operator token (${opts.paths.operatorTokenFile}); pass --as NAME to speak as someone else.`);
  }
}

async function startAndConnect(opts: ConnectOptions, socketPath: string): Promise<HubClient> {
  const { workspace, explicitWorkspace } = opts.paths;
  // Loaded only here: most commands find a hub running, and start-up time is an agent's hot path.
  const { spawn } = await import('node:child_process');
  const child = spawn(process.execPath, [...IDLE_V8_FLAGS, swbBinPath(), 'hub', '--detached', ...(explicitWorkspace ? ['--workspace', workspace] : [])], {
    detached: true,
    stdio: 'ignore',
    // The hub finds the same workspace from the same directory.
    ...(explicitWorkspace ? {} : { cwd: workspace }),
    env: opts.env ?? process.env,
  });
  let exited: number | null = null;
  child.once('exit', (code) => {
    exited = code ?? 1;
  });
  child.unref();
  const deadline = systemClock.now() + (opts.startTimeoutMs ?? 5000);
  for (let delay = 5; ; delay = Math.min(delay * 2, 50)) {
    try {
      return await openWhenAccepted(socketPath);
    } catch (err) {
      if (err instanceof SwbError) throw err;
      const code = (err as NodeJS.ErrnoException).code ?? 'error';
      if (!RETRYABLE.has(code)) throw connectError(opts, socketPath, code);
      if (exited !== null && exited !== EXIT_HUB_RUNNING && exited !== 0) {
        throw noHub(socketPath, `the hub it started exited with status ${exited}; run \`swb hub\` to see why`);
      }
      if (systemClock.now() > deadline) throw noHub(socketPath, 'timed out waiting for the hub to start');
      await sleep(delay);
    }
  }
}
