// Where a workspace server that bin/swb started beside its client meets that client (issue #33: the
// server's node then starts with the client's, not after it: src/client/early-server.ts and
// src/server/early-gate.ts say how each side plays its part).
//
// bin/swb exports EARLY_SERVER_ENV as its own pid, which is the client's once it execs node: a
// client that finds its own pid there knows bin/swb started a server for it (one inherited from
// another process names another pid), and the server is told that pid on its command line. The
// client listens on a Linux abstract socket named after its uid and pid; the server connects. Any
// process may bind an abstract name, so each side asks the kernel who the other is (SO_PEERCRED)
// before a byte goes out: our uid, and for the server, the pid it was started for.

/** The variable bin/swb sets to the client's pid when it has started a server beside it. */
export const EARLY_SERVER_ENV = 'SWB_EARLY_SERVER';

/** The abstract socket (a leading NUL: no file) where client `clientPid` of `uid` waits for its server. */
export function earlyMeetingName(uid: number, clientPid: number): string {
  return `\0switchboard-${uid}-early-server-for-${clientPid}`;
}
