// The client's side of a server bin/swb started beside it (src/protocol/early-server-meeting.ts):
// on a cold start the server's node then starts with the client's, some 40 ms sooner than the
// client's head start could start it (issue #33), and it is held at its gate as a server the client
// starts is (server-launch.ts holdServer): it touches nothing until go. The client listens for it
// at once; what it says on the connection is what it would say on the ready fd.
//
// The server is an optimisation, never a dependency: when it does not come (its node failed, the
// machine is slow), or goes before a word, go() falls back to a server this client starts itself,
// which then reports any trouble with its own output. A client that does not need it (a server
// already runs, a typo, --help) cancels: a SIGTERM ends the server while it is held, or it hears
// its connection close and exits.
import { createRequire } from 'node:module';
import type { Server, Socket } from 'node:net';
import { join } from 'node:path';
import { EARLY_SERVER_ENV, earlyMeetingName } from '../protocol/early-server-meeting.js';
import { systemClock } from '../util/clock.js';
import { peerCredentialsOf } from '../util/peer-credentials.js';
import { myUid } from '../util/private-path.js';
import { holdServer, MAX_READY_BYTES, READY_TIMEOUT_MS, readyLineOutcome, readyTimedOut, type HeldServer, type LaunchOptions, type LaunchOutcome } from './server-launch.js';

/** How long go() waits for the server to come before it starts one itself: its node start, on a loaded machine. */
const COME_WITHIN_MS = 5_000;

/** A server bin/swb started beside this client, listened for. */
export interface EarlyStartedServer {
  /** It, held for this launch: go() says go to it, or to a server started the usual way (holdServer) when it does not come. */
  held(launch: LaunchOptions): HeldServer;
  /** Lets it go unless held() handed it out (that HeldServer's cancel() lets it go then). */
  releaseUnheld(): void;
}

/**
 * The server bin/swb started for this process, listened for from now on; null when it started none
 * (the variable names another process: inherited), or on a platform without abstract sockets. The
 * variable is taken out of `env` either way: nothing this client starts inherits it.
 */
export function takeEarlyServer(env: NodeJS.ProcessEnv): EarlyStartedServer | null {
  const said = env[EARLY_SERVER_ENV];
  delete env[EARLY_SERVER_ENV];
  if (said !== String(process.pid) || process.platform !== 'linux') return null;
  // node:net now: there is no spawn ahead of it on this way (dashboard-head-start.ts's connectTrusted says why it waits there).
  const { createServer } = createRequire(import.meta.url)('node:net') as typeof import('node:net');
  let cancelled = false;
  let failed = false;
  let server: Socket | null = null;
  let serverPid = 0;
  let toldGo = false;
  const comers: Array<(socket: Socket | null) => void> = [];
  const arrive = (socket: Socket | null) => {
    for (const resolve of comers.splice(0)) resolve(socket);
  };
  const listener: Server = createServer({ pauseOnConnect: true }, (socket) => {
    const pid = server ? 0 : ourPeerPid(socket);
    if (pid === 0) {
      socket.destroy();
      return;
    }
    listener.close();
    socket.on('error', () => socket.destroy());
    socket.unref(); // until go: this client may still end without it
    if (cancelled) {
      letGo(socket, pid);
      return;
    }
    server = socket;
    serverPid = pid;
    arrive(socket);
  });
  listener.on('error', () => {
    // The name is taken (by anyone: abstract names are not private); the fallback starts one.
    failed = true;
    arrive(null);
  });
  listener.listen(earlyMeetingName(myUid(), process.pid));
  // Neither holds this client open: one that ends before go() cancels by ending.
  listener.unref();

  const come = (): Promise<Socket | null> => {
    if (server) return Promise.resolve(server);
    if (failed) return Promise.resolve(null);
    listener.ref(); // this client now waits for it
    return new Promise((resolve) => {
      const timer = systemClock.setTimer(() => resolve(null), COME_WITHIN_MS);
      comers.push((socket) => {
        timer.dispose();
        resolve(socket);
      });
    });
  };

  const cancel = () => {
    cancelled = true;
    // A server that has not come yet is turned away when it does (the listener stays, unref'd, till then).
    if (server) letGo(server, toldGo ? 0 : serverPid);
    if (failed) listener.close();
  };
  let handedOut = false;
  return {
    held(launch) {
      handedOut = true;
      let fallback: HeldServer | null = null;
      return {
        async go(flags) {
          const socket = await come();
          toldGo = socket !== null;
          const outcome = socket === null ? null : await askToListen(socket, { go: true, flags, cwd: launch.cwd }, join(launch.paths.runDir, 'server.out'));
          if (outcome) return outcome;
          listener.close();
          fallback = holdServer(launch);
          return fallback.go(flags);
        },
        cancel() {
          cancel();
          fallback?.cancel();
        },
      };
    },
    releaseUnheld() {
      if (!handedOut) cancel();
    },
  };
}

/** The pid of the server that connected, by the kernel's word, when it runs as us (any process may connect to an abstract name); else 0. */
function ourPeerPid(socket: Socket): number {
  try {
    const peer = peerCredentialsOf(socket);
    return peer !== null && peer.uid === myUid() && peer.pid > 0 ? peer.pid : 0;
  } catch {
    return 0;
  }
}

/**
 * Lets an unwanted server go: its connection closed, which it reads as cancel once its code is
 * loaded, and, before it was told go (`pid` not 0), a SIGTERM, which ends it now (it has no
 * handler then, and has touched nothing), so that a `swb` that finds its server running does not
 * pay a second server's load beside it.
 */
function letGo(socket: Socket, pid: number): void {
  if (pid > 0) {
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      // gone already
    }
  }
  socket.destroy();
}

/**
 * Says go and waits for its one line back (taken as soon as it is whole: the server shuts its end
 * only once its event loop next turns, after its core has started); null when it closed without a
 * line (it died: the fallback shows why).
 */
function askToListen(socket: Socket, goLine: { go: true; flags: readonly string[]; cwd: string }, logPath: string): Promise<LaunchOutcome | null> {
  return new Promise((resolve) => {
    let said = '';
    const timer = systemClock.setTimer(() => done(readyTimedOut(logPath)), READY_TIMEOUT_MS);
    const done = (outcome: LaunchOutcome | null) => {
      timer.dispose();
      socket.destroy();
      resolve(outcome);
    };
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      if (said.length < MAX_READY_BYTES) said += chunk;
      if (said.includes('\n')) done(readyLineOutcome(said, 0));
    });
    socket.once('end', () => done(readyLineOutcome(said, 0)));
    socket.once('close', () => done(readyLineOutcome(said, 0)));
    if (socket.destroyed) {
      done(null); // gone before this client said a word
      return;
    }
    socket.ref();
    socket.resume();
    socket.write(`${JSON.stringify(goLine)}\n`);
  });
}
