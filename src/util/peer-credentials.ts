// Who is at the other end of a Unix-socket connection, as the kernel recorded it: the client uses it
// to check that the hub runs as its own uid before sending anything, the hub to tell an operator's
// process from one inside an agent row's process tree. Backed by the native addon built from
// native/peer-credentials.c (binding.gyp; npm builds it on install).
import { createRequire } from 'node:module';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { packageRoot } from './package-root.js';

export interface PeerCredentials {
  pid: number;
  uid: number;
  gid: number;
}

interface Addon {
  peerCredentials(fd: number): PeerCredentials;
}

const SUPPORTED_PLATFORMS: readonly NodeJS.Platform[] = ['linux', 'darwin'];

// undefined: not tried yet. Loaded lazily so that modules importing this one (the CLI's send path)
// pay for the dlopen only when they actually ask.
let addon: Addon | null | undefined;
let unavailableReason: string | null = null;

function load(): Addon | null {
  if (addon !== undefined) return addon;
  if (!SUPPORTED_PLATFORMS.includes(process.platform)) {
    unavailableReason = `peer credentials are not supported on ${process.platform}`;
    return (addon = null);
  }
  // Relative to the package root rather than to this module: this code also runs from the esbuild
  // bundles (dist/cli-bundle/chunks/, dist/server.bundle.mjs), which sit at other depths than
  // dist/src/util/. A computed path also keeps esbuild from trying to bundle the .node file.
  let path: string | undefined;
  try {
    path = join(packageRoot(), 'build', 'Release', 'peer_credentials.node');
    addon = createRequire(import.meta.url)(path) as Addon;
  } catch (err) {
    // First line only: require() appends a multi-line "Require stack" that says nothing useful here.
    unavailableReason = `cannot load the peer-credentials addon${path ? ` (${path})` : ''}: ${(err as Error).message.split('\n')[0]}`;
    addon = null;
  }
  return addon;
}

/**
 * The peer's pid/uid/gid: for an accepted connection, the connecting process as of connect(); for
 * a connecting socket, the process that called listen(). The pid is 0 when the peer lives in a pid
 * namespace this process cannot see.
 *
 * Returns null only when this install cannot tell (addon not built, unsupported platform; see
 * peerCredentialsUnavailableReason()). Throws, with the errno name as `code`, when the socket
 * itself cannot be asked: not connected (ENOTCONN), destroyed (EBADF), not a Unix socket
 * (EAFNOSUPPORT). A caller making a security decision should treat both as "unknown", not as a pass.
 */
export function peerCredentialsOf(socket: Socket): PeerCredentials | null {
  const native = load();
  if (!native) return null;
  // Node offers no public fd for a net.Socket (socket.fd does not exist; only the libuv handle
  // knows it), so read the handle's fd getter. It is null once the socket is destroyed and -1
  // where libuv has no fd (Windows pipes).
  const fd = (socket as unknown as { _handle?: { fd?: unknown } | null })._handle?.fd;
  if (typeof fd !== 'number' || fd < 0) {
    throw Object.assign(new Error('peerCredentialsOf: the socket has no file descriptor (closed or not yet opened)'), { code: 'EBADF' });
  }
  try {
    return native.peerCredentials(fd);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_PEER_CREDENTIALS_UNSUPPORTED') {
      unavailableReason = (err as Error).message;
      addon = null;
      return null;
    }
    throw err;
  }
}

/** Why peerCredentialsOf() returns null on this install, or null when it works. Loads the addon if not yet loaded. */
export function peerCredentialsUnavailableReason(): string | null {
  load();
  return unavailableReason;
}
