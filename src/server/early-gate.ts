// The gate of a server bin/swb started beside its client (`swb server --held --early-for PID`;
// src/protocol/early-server-meeting.ts says how they find each other): the client listens, and the
// server connects as its node starts — before it loads its code, so that the kernel has joined them
// by the time it has — then waits for the go line there, as a server its client started waits on
// its ready fd (server-gate.ts). A client that does not want it after all (a server already runs, a
// typo, --help) ends it with SIGTERM while it is held, and closes the connection, which it reads as
// cancel; a client that is gone before it listened, or never does, leaves the server nobody to
// meet. Either way it exits, having touched nothing.
import { connect, type Socket } from 'node:net';
import { earlyMeetingName } from '../protocol/early-server-meeting.js';
import { peerCredentialsOf } from '../util/peer-credentials.js';
import { myUid } from '../util/private-path.js';
import { GoLineReader, type GateOutcome, type LaunchingClient } from './server-gate.js';

/**
 * How long the server tries to meet a client that lives but does not listen: the client listens as
 * soon as its own node has started (some 40 ms), so this is for a machine under heavy load only.
 */
const MEET_WITHIN_MS = 10_000;

/** Meets client `clientPid`; null when it is gone, never listened, or is not who it should be. */
export async function meetEarlyClient(clientPid: number): Promise<LaunchingClient | null> {
  const name = earlyMeetingName(myUid(), clientPid);
  const deadline = Date.now() + MEET_WITHIN_MS;
  for (let delay = 1; ; delay = Math.min(delay * 2, 50)) {
    const socket = await connectOnce(name);
    if (socket) return isOurClient(socket, clientPid) ? clientOnSocket(socket) : (socket.destroy(), null);
    if (!alive(clientPid) || Date.now() > deadline) return null;
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}

function connectOnce(name: string): Promise<Socket | null> {
  return new Promise((resolve) => {
    const socket = connect(name);
    socket.once('error', () => resolve(null));
    socket.once('connect', () => {
      socket.removeAllListeners('error');
      resolve(socket);
    });
  });
}

/** The kernel's word that the listener runs as us, and is the process this server was started for. */
function isOurClient(socket: Socket, clientPid: number): boolean {
  try {
    const peer = peerCredentialsOf(socket);
    return peer !== null && peer.uid === myUid() && peer.pid === clientPid;
  } catch {
    return false;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false; // ESRCH: gone; EPERM: the pid is someone else's now
  }
}

/** The go line read from the client's connection, and the one line back. */
function clientOnSocket(socket: Socket): LaunchingClient {
  socket.on('error', () => socket.destroy()); // the client gone mid-line: read as its end
  return {
    word: () =>
      new Promise<GateOutcome>((resolve) => {
        const line = new GoLineReader();
        const onData = (chunk: Buffer) => {
          const outcome = line.add(chunk);
          if (outcome) done(outcome);
        };
        const onEnd = () => done(line.ended());
        const done = (outcome: GateOutcome) => {
          socket.off('data', onData);
          socket.off('end', onEnd);
          socket.off('close', onEnd);
          socket.pause();
          if ('go' in outcome && !outcome.go) socket.destroy(); // cancelled: a refusal is still said back
          resolve(outcome);
        };
        socket.on('data', onData);
        socket.once('end', onEnd);
        socket.once('close', onEnd);
      }),
    say(line) {
      if (!socket.destroyed) socket.end(`${line}\n`);
    },
  };
}
